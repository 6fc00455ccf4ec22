package autotune_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// TestStopFlagged checks that a result whose interval is still wider than
// the target says why sampling stopped: the most samples it may have, or
// the budget spent; never both, and never the wrong one.
func TestStopFlagged(t *testing.T) {
	dev := devtest.Device(t)
	for _, tc := range []struct {
		name       string
		budget     time.Duration
		maxSamples int
		want       []string
	}{
		// A target no one reaches, with time to spare: every survivor
		// stops at MaxSamples.
		{"max samples", time.Minute, stats.MinIntervalSamples, []string{autotune.FlagMaxSamples}},
		// The budget runs out at the first decision, far from MaxSamples.
		{"budget", time.Nanosecond, 1000, []string{autotune.FlagBudgetSpent}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := quick
			opts.TargetHalfWidth = 1e-12
			opts.Budget = tc.budget
			opts.MinSamples = stats.MinIntervalSamples
			opts.MaxSamples = tc.maxSamples
			e, err := autotune.Measure(context.Background(), dev, defaultScaleOp(), kernels.SizeOf(1<<12), opts)
			if err != nil {
				t.Fatal(err)
			}
			measured := 0
			for _, r := range e.Results {
				if r.Outcome != results.Measured {
					continue
				}
				measured++
				if r.Stats.N != stats.MinIntervalSamples {
					t.Errorf("%s: %d samples, want %d", r.Name, r.Stats.N, stats.MinIntervalSamples)
				}
				if diff := cmp.Diff(tc.want, r.Flags); diff != "" {
					t.Errorf("%s: flags (-want +got):\n%s", r.Name, diff)
				}
			}
			if measured == 0 {
				t.Fatalf("no candidate was measured: %+v", e.Results)
			}
		})
	}
}
