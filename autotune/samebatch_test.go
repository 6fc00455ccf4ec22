package autotune_test

import (
	"context"
	"slices"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
)

// TestSameBatch: with Options.SameBatch, every candidate is sampled with
// the same runs per sample, the most any was calibrated to; without it,
// each with its own. The first candidate's calibration does not tick, so
// that it batches MaxBatch runs; the second, timed against a nanosecond,
// batches one.
func TestSameBatch(t *testing.T) {
	for _, same := range []bool{false, true} {
		plan := faulty.NewPlan()
		dev := faulty.Wrap(devtest.Device(t), plan)
		plan.NoTickAt(1)
		opts := oneRunPerSample()
		opts.NoDrop, opts.SameBatch = true, same
		op := newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "wg32", wg: 32})
		e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range e.Results {
			if r.Stats == nil {
				t.Fatalf("SameBatch %v: %s %s (%s), want it sampled", same, r.Name, r.Outcome, r.Error)
			}
			got = append(got, r.Stats.Batch)
		}
		want := []int{opts.MaxBatch, 1}
		if same {
			want = []int{opts.MaxBatch, opts.MaxBatch}
		}
		if !slices.Equal(got, want) {
			t.Errorf("SameBatch %v: runs per sample %v, want %v", same, got, want)
		}
	}
}
