package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/internal/testenv"
)

// TestQuickstart runs the program of docs/library-quickstart.md, twice on
// one cache file (the first run tunes, the second reads the answer), and
// holds what the document says of Prepare: it is given the size bucket's
// representative, not the size asked.
func TestQuickstart(t *testing.T) {
	t.Setenv("VKBENCH_CACHE", filepath.Join(t.TempDir(), "autotune.db"))
	ctx := context.Background()
	for range 2 {
		if err := run(ctx, 100003); err != nil {
			if strings.Contains(err.Error(), "Vulkan") {
				testenv.Unavailable(t, "%v", err)
			}
			t.Fatal(err)
		}
	}
	var sizes [][]int
	op := &vkbench.Op{Name: "scale-sizes", Dims: scale.Dims, Candidates: scale.Candidates,
		Prepare: func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
			sizes = append(sizes, size)
			return prepare(ctx, d, size, seed)
		}}
	dev, err := vkbench.Open(ctx, vkbench.Options{})
	if err != nil {
		testenv.Unavailable(t, "%v", err)
	}
	defer func() {
		if err := dev.Close(); err != nil {
			t.Error(err)
		}
	}()
	tuner, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "quickstart"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tuner.Fastest(ctx, op, 1000000); err != nil {
		t.Fatal(err)
	}
	if len(sizes) == 0 || sizes[0][0] != 1<<20 {
		t.Errorf("Fastest(1000000) prepared sizes %v; the quickstart says 1048576", sizes)
	}
}

// TestQuickstartIsThisCode: the document shows this program's main.go
// and scale.comp, byte for byte, so that the code a reader copies is the
// code TestQuickstart runs.
func TestQuickstartIsThisCode(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "library-quickstart.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ file, fence string }{{"main.go", "```go\n"}, {"scale.comp", "```glsl\n"}} {
		code, err := os.ReadFile(f.file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), f.fence+string(code)+"```\n") {
			t.Errorf("docs/library-quickstart.md does not show %s as it is: copy it into the document again", f.file)
		}
	}
}

// TestCheckFails: the check that decides whether a candidate is right can
// fail.
func TestCheckFails(t *testing.T) {
	in := []float32{1, 2, 3}
	if err := check([]float32{2.5, 5, 7.5}, in); err != nil {
		t.Errorf("a right result: %v", err)
	}
	if err := check([]float32{2.5, 5.001, 7.5}, in); err == nil || !strings.Contains(err.Error(), "y[1]") {
		t.Errorf("y[1] off by 1e-3: %v, want an error naming y[1]", err)
	}
}
