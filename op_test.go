package vkbench_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/status"
)

// TestOpChangedAfterUse: the first use of an Op fixes it (its answers
// are cached under its checksum); a Tuner's call with an Op changed
// after that fails, naming what changed, where it was silently ignored.
// The same values again are no change.
func TestOpChangedAfterUse(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	tu, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "test", CachePath: filepath.Join(t.TempDir(), "autotune.db"), Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1024
	for _, tt := range []struct {
		field  string
		change func(op *vkbench.Op)
	}{
		{"Candidates", func(op *vkbench.Op) { op.Candidates[0].Constants = map[uint32]uint32{0: 128} }},
		{"Candidates", func(op *vkbench.Op) { op.Candidates = append(op.Candidates, op.Candidates[0]) }},
		{"Candidates", func(op *vkbench.Op) { op.Candidates[0].Name = "other" }},
		{"Name", func(op *vkbench.Op) { op.Name = "scale2" }},
		{"Dims", func(op *vkbench.Op) { op.Dims = []string{"M"} }},
		{"DType", func(op *vkbench.Op) { op.DType = vkbench.F16 }},
		{"Prepare", func(op *vkbench.Op) { op.Prepare = nil }},
	} {
		op := scaleOpOf(scaleKernel)
		if _, err := tu.Fastest(ctx, op, n); err != nil {
			t.Fatal(err)
		}
		tt.change(op)
		_, err := tu.Fastest(ctx, op, n)
		if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "its "+tt.field+" changed after its first use") {
			t.Errorf("Fastest after changing %s: %v; want FAILED_PRECONDITION naming it", tt.field, err)
		}
		if _, err := tu.Result(t.Context(), op, n); status.CodeOf(err) != status.FailedPrecondition {
			t.Errorf("Result after changing %s: %v; want FAILED_PRECONDITION", tt.field, err)
		}
	}
	op := scaleOpOf(scaleKernel)
	if _, err := tu.Fastest(ctx, op, n); err != nil {
		t.Fatal(err)
	}
	op.Dims = []string{op.Dims[0]}
	op.Candidates = append([]vkbench.Kernel(nil), op.Candidates...)
	op.Candidates[0].Name = strings.Clone(op.Candidates[0].Name) // the same name, in other memory
	if _, err := tu.Fastest(ctx, op, n); err != nil {
		t.Errorf("Fastest after setting the same values again: %v", err)
	}
}
