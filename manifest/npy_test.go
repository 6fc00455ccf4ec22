package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio"

	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/status"
)

// writeNpy writes values to name in dir as a .npy file.
func writeNpy(t testing.TB, dir, name string, values any) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.Write(f, values); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// npyManifest is saxpy (y = 2.5x + y over N floats) with x and y from
// .npy files and the answer in another, within a tolerance.
func npyManifest(t testing.TB) string {
	spv, err := filepath.Abs(filepath.Join(manifestDir, "saxpy.spv"))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy", "dims": {"N": 1000},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "init": {"npy": "x.npy"}},
		{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout", "init": {"npy": "y.npy"},
		 "expect": {"npy": "want.npy"}, "tolerance": {"rel": 0, "abs": 1e-3}}],
	"push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
	"verify": {},
	"candidates": [{"name": "scalar", "spirv": %q, "groups": ["div_up(N, 256)"]}]}]}`, spv)
}

// TestManifestNpy: inputs and the expected output come from .npy files
// (x in float32, y in float64, the answer in float64, as NumPy writes
// by default); the kernel passes, and fails when one element of the
// answer is off by more than the tolerance (1e-3), naming it, but not
// when it is off by less.
func TestManifestNpy(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	dir := t.TempDir()
	const n = 1000
	x, y, want := make([]float32, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float32(i%17) - 8
		y[i] = float64(i) / 7
		want[i] = 2.5*float64(x[i]) + y[i]
	}
	writeNpy(t, dir, "x.npy", x)
	writeNpy(t, dir, "y.npy", y)
	verify := func(want []float64) error {
		t.Helper()
		writeNpy(t, dir, "want.npy", want)
		ops, err := manifest.Parse([]byte(npyManifest(t)), dir)
		if err != nil {
			t.Fatal(err)
		}
		return kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(n), 0, 1)
	}
	if err := verify(want); err != nil {
		t.Fatalf("against the right answer: %v", err)
	}
	off := append([]float64(nil), want...)
	off[321] += 0.9e-3
	if err := verify(off); err != nil {
		t.Errorf("y[321] off by 0.9e-3, within the tolerance 1e-3: %v", err)
	}
	off[321] += 0.2e-3
	err := verify(off)
	if !errors.Is(err, kernels.ErrWrongResult) || !strings.Contains(err.Error(), "y[321]") || !strings.Contains(err.Error(), "want.npy") {
		t.Errorf("y[321] off by 1.1e-3, past the tolerance 1e-3: %v; want a wrong result naming y[321] and want.npy", err)
	}

	// At a size whose length is not the file's, the problem is refused.
	ops, err := manifest.Parse([]byte(npyManifest(t)), dir)
	if err != nil {
		t.Fatal(err)
	}
	err = kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(500), 0, 1)
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "has 500 elements at size") {
		t.Errorf("at N=500: %v; want INVALID_ARGUMENT saying the buffer has 500 elements", err)
	}
	// An integer buffer refuses float data.
	text := strings.Replace(npyManifest(t), `"name": "x", "type": "f32"`, `"name": "x", "type": "i32"`, 1)
	if _, err := manifest.Parse([]byte(text), dir); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "holds f32 floats") {
		t.Errorf("float .npy in an i32 buffer: %v", err)
	}
}

// TestManifestExpectReadsInputs: an expected value reads the inputs by
// index (saxpy's "2.5 * x[i] + y[i]", y the initial contents of the
// inout buffer), and an init's values are expressions of the dims and
// lets ("0 - HALF").
func TestManifestExpectReadsInputs(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	spv, err := filepath.Abs(filepath.Join(manifestDir, "saxpy.spv"))
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy", "dims": {"N": 1000},
	"let": {"HALF": "N / 2"},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "init": {"iota": {"start": "0 - HALF", "step": 1}}},
		{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout", "expect": "A * x[i] + y[i]"},
		{"name": "z", "type": "f32", "len": 1, "binding": 2, "role": "output", "check": false}],
	"push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
	"verify": {},
	"candidates": [{"name": "scalar", "spirv": %q, "groups": ["div_up(N, 256)"]}]}]}`, spv)
	for _, tt := range []struct {
		a    string
		pass bool
	}{{"2.5", true}, {"2.25", false}} {
		src := strings.Replace(text, "A * x[i]", tt.a+" * x[i]", 1)
		src = strings.Replace(src, `,
		{"name": "z", "type": "f32", "len": 1, "binding": 2, "role": "output", "check": false}`, "", 1)
		ops, err := manifest.Parse([]byte(src), dir(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1000, 37} {
			err := kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(n), 0, 1)
			if tt.pass && err != nil || !tt.pass && !errors.Is(err, kernels.ErrWrongResult) {
				t.Errorf("expect %s * x[i] + y[i] at N=%d: %v (want pass: %v)", tt.a, n, err, tt.pass)
			}
		}
	}
	// x is made of the let: its first element is -N/2, which the expected
	// value reads.
	src := strings.Replace(text, "A * x[i] + y[i]", "select(i == 0, 2.5 * (0 - HALF), 2.5 * x[i]) + y[i]", 1)
	src = strings.Replace(src, `,
		{"name": "z", "type": "f32", "len": 1, "binding": 2, "role": "output", "check": false}`, "", 1)
	ops, err := manifest.Parse([]byte(src), dir(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(1000), 0, 1); err != nil {
		t.Errorf("x[0] = 0 - HALF: %v", err)
	}
	// An output's contents are not an input's.
	src = strings.Replace(text, "A * x[i] + y[i]", "z[0]", 1)
	if _, err := manifest.Parse([]byte(src), dir(t)); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), `unknown name "z"`) {
		t.Errorf("expect reading an output: %v", err)
	}
}

func dir(t testing.TB) string { return t.TempDir() }
