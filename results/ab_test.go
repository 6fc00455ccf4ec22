package results_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// measuredAt is a benchmark measured in rounds of the given medians.
func measuredAt(medians ...float64) results.Benchmark {
	b := results.Benchmark{Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: medians[0]}}}
	for _, m := range medians {
		b.Rounds = append(b.Rounds, stats.Stats{Median: m})
	}
	return b
}

// TestABVerdicts: ab's judge on pairs crafted for each verdict, and the
// one rule of what fails a gate.
func TestABVerdicts(t *testing.T) {
	old := measuredAt(1.00, 1.01, 0.99, 1.00, 1.02)
	rep := results.ABReport{Threshold: 0.05}
	rep.AddPair("slower", "op", "slower", old, measuredAt(1.50, 1.52, 1.49, 1.51, 1.50), true)
	rep.AddPair("faster", "op", "faster", old, measuredAt(0.50, 0.51, 0.49, 0.50, 0.51), true)
	rep.AddPair("same", "op", "same", old, old, true)
	rep.AddPair("wrong", "op", "wrong", old, results.Benchmark{Measurement: results.Measurement{Outcome: results.Wrong, Error: "y[3]: got 1, want 2"}}, true)
	rep.AddPair("failed", "op", "failed", old, results.Benchmark{Measurement: results.Measurement{Outcome: results.Failed, Error: "no pipeline"}}, true)
	rep.AddPair("unsupported", "op", "unsupported", old, results.Benchmark{Measurement: results.Measurement{Outcome: results.Unsupported}}, true)
	rep.AddUnpaired("gone", "op", "gone", results.OnlyOld)
	rep.Finish()
	got := map[string]results.Verdict{}
	for _, r := range rep.Rows {
		got[r.Name] = r.Verdict
	}
	want := map[string]results.Verdict{"slower": results.Slower, "faster": results.Faster, "same": results.Within,
		"wrong": results.Miscomputed, "failed": results.Broke, "unsupported": results.NotMeasured, "gone": results.OnlyOld}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	if rep.Slower != 1 || rep.Wrong != 1 || rep.Failed != 1 || rep.Unpaired != 2 {
		t.Errorf("counts: %d slower, %d wrong, %d failed, %d unpaired; want 1, 1, 1, 2", rep.Slower, rep.Wrong, rep.Failed, rep.Unpaired)
	}
	if rep.Failures() == "" {
		t.Error("no failures told")
	}
}
