package autotune

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// statsAt returns statistics with the given median and a narrow interval.
func statsAt(median float64) *stats.Stats {
	return &stats.Stats{Median: median, Lo: median * 0.99, Hi: median * 1.01, N: 10, Batch: 1}
}

// TestPickWinnerFlagsDrift: a dropped candidate whose median ends below
// the winner's (the drift the measurement could not resolve by measuring
// again) is flagged, and so is the winner.
func TestPickWinnerFlagsDrift(t *testing.T) {
	e := &Entry{Results: []results.Result{
		{Index: 0, Name: "a", Measurement: results.Measurement{Outcome: results.Dropped, Stats: statsAt(1e-3), Error: "dropped"}},
		{Index: 1, Name: "b", Measurement: results.Measurement{Outcome: results.Measured, Stats: statsAt(2e-3)}},
		{Index: 2, Name: "c", Measurement: results.Measurement{Outcome: results.Dropped, Stats: statsAt(3e-3), Error: "dropped"}},
		{Index: 3, Name: "d", Measurement: results.Measurement{Outcome: results.Failed, Error: "no"}},
	}}
	pickWinner(e)
	if e.Fastest != 1 {
		t.Fatalf("winner %d, want 1 (b, the only one measured to the end)", e.Fastest)
	}
	var got [][]string
	for _, r := range e.Results {
		got = append(got, r.Flags)
	}
	want := [][]string{{FlagDrift}, {FlagDrift}, nil, nil}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("flags (-want +got):\n%s", d)
	}
}

// TestMergeRoundsFlagsDrift: over several rounds, a candidate dropped in
// every round whose pooled median is below the winner's is flagged too.
func TestMergeRoundsFlagsDrift(t *testing.T) {
	round := func(a, b float64) *Entry {
		sa, sb := statsAt(a), statsAt(b)
		sa.Samples, sb.Samples = []float64{a}, []float64{b}
		return &Entry{Results: []results.Result{
			{Index: 0, Name: "a", Measurement: results.Measurement{Outcome: results.Dropped, Stats: sa, Error: "dropped",
				Drop: &results.Drop{Samples: 1, Median: a, Leader: "b", LeaderMedian: b}}},
			{Index: 1, Name: "b", Measurement: results.Measurement{Outcome: results.Measured, Stats: sb}},
		}}
	}
	rounds := []*Entry{round(1e-3, 2e-3), round(1e-3, 2e-3), round(1e-3, 2e-3)}
	e := MergeRounds(nil, rounds, Options{})
	if d := e.Results[0].Drop; d == nil || d.Rounds != 3 || rounds[2].Results[0].Drop.Rounds != 0 {
		t.Errorf("merged a's drop %+v; want the last round's, counting 3 rounds (the round's own untouched)", d)
	}
	if e.Fastest != 1 || !slices.Contains(e.Results[0].Flags, FlagDrift) || !slices.Contains(e.Results[1].Flags, FlagDrift) {
		t.Errorf("merged: fastest %d, flags %v and %v; want 1, both drift", e.Fastest, e.Results[0].Flags, e.Results[1].Flags)
	}
	if n := len(e.Results[1].Rounds); n != 3 || e.Results[1].Stats.N != 3 || e.Results[1].Stats.Samples != nil {
		t.Errorf("merged b: %d rounds, pooled %+v; want 3 rounds, 3 samples pooled, none kept", n, e.Results[1].Stats)
	}
}

// TestPickWinnerTie: the fastest is a tie, with its rule, when its 95%
// interval overlaps the runner-up's, or, apart, when their medians are
// within the target half-width of each other; not when they are apart by
// more; a candidate that failed never counts as the runner-up.
func TestPickWinnerTie(t *testing.T) {
	tight := func(median float64) *stats.Stats {
		return &stats.Stats{Median: median, Lo: median * 0.9999, Hi: median * 1.0001, N: 10, Batch: 1}
	}
	for _, c := range []struct {
		name    string
		a, b    *stats.Stats
		failedB bool
		rule    string
		fastest int
	}{
		{"apart", statsAt(1e-3), statsAt(1.1e-3), false, "", 0},
		{"overlapping", statsAt(1e-3), statsAt(1.015e-3), false, TieRule, 0},
		{"overlapping, runner-up first", statsAt(1.015e-3), statsAt(1e-3), false, TieRule, 1},
		{"apart, within the target", tight(1e-3), tight(1.009e-3), false, TieRuleTarget, 0},
		{"apart, within the target, runner-up first", tight(1.009e-3), tight(1e-3), false, TieRuleTarget, 1},
		{"apart, beyond the target", tight(1e-3), tight(1.011e-3), false, "", 0},
		{"runner-up failed", statsAt(1e-3), nil, true, "", 0},
	} {
		rb := results.Result{Index: 1, Name: "b", Measurement: results.Measurement{Outcome: results.Measured, Stats: c.b}}
		if c.failedB {
			rb = results.Result{Index: 1, Name: "b", Measurement: results.Measurement{Outcome: results.Wrong, Error: "wrong"}}
		}
		e := &Entry{Bounds: Bounds{TargetHalfWidth: 0.01},
			Results: []results.Result{{Index: 0, Name: "a", Measurement: results.Measurement{Outcome: results.Measured, Stats: c.a}}, rb}}
		pickWinner(e)
		if e.Fastest != c.fastest || e.Tie != (c.rule != "") || e.TieRule != c.rule {
			t.Errorf("%s: fastest %d, tie %v (%q); want %d, rule %q", c.name, e.Fastest, e.Tie, e.TieRule, c.fastest, c.rule)
		}
	}
}
