package results_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
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
	old := measuredAt(1.00, 1.01, 0.99, 1.00, 1.02, 1.00, 1.01)
	rep := results.ABReport{Threshold: 0.05, OnUnclear: results.UnclearWarns}
	rep.AddPair("slower", "op", "slower", old, measuredAt(1.50, 1.52, 1.49, 1.51, 1.50, 1.50, 1.53), true)
	rep.AddPair("faster", "op", "faster", old, measuredAt(0.50, 0.51, 0.49, 0.50, 0.51, 0.50, 0.52), true)
	rep.AddPair("same", "op", "same", old, old, true)
	rep.AddPair("not slower", "op", "not slower", old, measuredAt(0.92, 1.03, 0.98, 1.00, 1.02, 0.99, 1.01), true)
	rep.AddPair("unclear", "op", "unclear", old, measuredAt(1.00, 1.12, 0.98, 1.00, 1.02, 0.99, 1.01), true)
	rep.AddPair("too few", "op", "too few", measuredAt(1, 1), measuredAt(2, 2), true)
	rep.AddPair("wrong", "op", "wrong", old, results.Benchmark{Measurement: results.Measurement{Outcome: results.Wrong, Error: "y[3]: got 1, want 2"}}, true)
	rep.AddPair("failed", "op", "failed", old, results.Benchmark{Measurement: results.Measurement{Outcome: results.Failed, Error: "no pipeline"}}, true)
	rep.AddPair("unsupported", "op", "unsupported", old, results.Benchmark{Measurement: results.Measurement{Outcome: results.Unsupported}}, true)
	rep.AddPair("not run", "op", "not run", old, results.Benchmark{Measurement: results.Measurement{Outcome: results.NotRun, Error: "the device was lost before"}}, true)
	rep.AddUnpaired("gone", "op", "gone", results.OnlyOld)
	rep.Finish()
	got := map[string]results.Verdict{}
	for _, r := range rep.Rows {
		got[r.Name] = r.Verdict
	}
	want := map[string]results.Verdict{"slower": results.Slower, "faster": results.Faster, "same": results.Within,
		"not slower": results.NotSlower, "unclear": results.Unclear, "too few": results.Unclear,
		"wrong": results.Miscomputed, "failed": results.Broke, "unsupported": results.NotMeasured, "gone": results.OnlyOld, "not run": results.Unclear}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	if rep.Slower != 1 || rep.Wrong != 1 || rep.Failed != 1 || rep.Unpaired != 1 || rep.Unmeasured != 1 {
		t.Errorf("counts: %d slower, %d wrong, %d failed, %d unpaired, %d not measured; want 1, 1, 1, 1, 1", rep.Slower, rep.Wrong, rep.Failed, rep.Unpaired, rep.Unmeasured)
	}
	if rep.Failures() == "" {
		t.Error("no failures told")
	}
	// What could not be ruled out is said: 1.12 against 1.01, 10.9% slower.
	var u []string
	for _, row := range rep.Rows {
		if row.Verdict == results.Unclear {
			u = append(u, row.Name+": "+row.Undecided())
		}
	}
	if len(u) != 3 || !strings.Contains(u[0], "a slowdown of up to 10.9% could not be ruled out") || !strings.HasPrefix(u[2], "not run: not run in new: the device was lost before") {
		t.Errorf("undecided: %q; want three, the first not ruling out 10.9%%, the last not run", u)
	}
	rep.OnUnclear = results.UnclearFails
	if f := rep.Failures(); !strings.Contains(f, "3 unclear") {
		t.Errorf("with unclear pairs failing: %q", f)
	}
}

// TestNotMeasuredSaidAlike: a benchmark not measured on one side or both,
// or failed in new where the base ran, reads the same in ab's report as in
// Compare's, but for the name of the base's side: "unsupported in old:
// ..." beside "unsupported in base: ...". ab's "new failed where the base
// ran" named Compare's side before.
func TestNotMeasuredSaidAlike(t *testing.T) {
	ran := measuredAt(1.00, 1.01, 0.99, 1.00, 1.02, 1.00, 1.01)
	unsupported := results.Benchmark{Measurement: results.Measurement{Outcome: results.Unsupported, Error: "needs subgroup size 32"}}
	failed := results.Benchmark{Measurement: results.Measurement{Outcome: results.Failed, Error: "no pipeline"}}
	for _, c := range []struct {
		old, cur results.Benchmark
		want     string
	}{
		{unsupported, ran, "unsupported in old: needs subgroup size 32"},
		{ran, unsupported, "unsupported in new: needs subgroup size 32"},
		{unsupported, unsupported, "unsupported in old and new: needs subgroup size 32"},
		{failed, unsupported, "failed in old: no pipeline; unsupported in new: needs subgroup size 32"},
		{ran, failed, "new failed where old ran: no pipeline"},
	} {
		ab := results.ABReport{Threshold: 0.05}
		ab.AddPair("b", "op", "b", c.old, c.cur, true)
		c.old.Name, c.cur.Name = "b", "b"
		cmp := results.Compare(file(c.old), file(c.cur), results.DefaultCompareOptions)
		want := results.NotMeasured
		if c.cur.Outcome == results.Failed && c.old.Ran() {
			want = results.Broke
		}
		if got := ab.Rows[0].Note; ab.Rows[0].Verdict != want || got != c.want {
			t.Errorf("ab: %s (%q), want %s (%q)", ab.Rows[0].Verdict, got, want, c.want)
		}
		if got, want := cmp.Rows[0].Note, strings.ReplaceAll(c.want, "old", "base"); got != want {
			t.Errorf("Compare: %q, want %q", got, want)
		}
	}
}

// TestParseAB reads back an ab report as ab writes it, and refuses one of
// another schema or that its schema forbids.
func TestParseAB(t *testing.T) {
	rep := results.ABReport{Schema: results.ABSchema, Version: "test", Old: "a.json", New: "b.json",
		Device: results.Device{Name: "GPU", Hardware: "hw"}, Mode: "hot", MinRounds: 7, Rounds: 7, OnUnclear: results.UnclearWarns,
		Threshold: 0.05, Confidence: 0.95}
	old := measuredAt(1.00, 1.01, 0.99, 1.00, 1.02, 1.00, 1.01)
	rep.AddPair("op/f32/8/c", "op", "c", old, measuredAt(1.50, 1.52, 1.49, 1.51, 1.50, 1.50, 1.53), true)
	rep.Finish()
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	got, err := results.ParseAB(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if r := got.Rows[0]; r.Verdict != results.Slower || r.Lo <= 1.05 || r.Hi < r.Ratio {
		t.Errorf("read back: %+v", r)
	}
	for _, bad := range []string{
		strings.Replace(string(data), results.ABSchema, "vkbench.ab/v1", 1),
		strings.Replace(string(data), `"verdict":"slower"`, `"verdict":"slow"`, 1),
	} {
		if _, err := results.ParseAB([]byte(bad)); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("ParseAB of a bad report: %v; want InvalidArgument", err)
		}
	}
}

// TestHasBounds: a pair has bounds only where both are there, above 0
// and finite; a file that gives only the upper one (ratio_lo left out)
// has none, so that no table prints a bound of 0.
func TestHasBounds(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   bool
	}{{0.9, 1.1, true}, {0, 0, false}, {0, 1.1, false}, {0.9, math.Inf(1), false}} {
		if got := (results.ABRow{Ratio: 1, Lo: tc.lo, Hi: tc.hi}).HasBounds(); got != tc.want {
			t.Errorf("[%g, %g]: HasBounds %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}
