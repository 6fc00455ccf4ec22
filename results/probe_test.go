package results_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
)

// probeFile is a results file of one benchmark measured in five rounds,
// its rounds' medians those of base times scale (a slight wobble between
// rounds, as real rounds have), and a probe of 10 µs times probeScale in
// every round; no probe for probeScale 0.
func probeFile(t *testing.T, scale, probeScale float64) *results.File {
	return probeFileOwn(t, scale, probeScale, false, 1)
}

// probeFileOwn is probeFile, its probe wobbling on its own (by as much as
// the benchmark, in another order: a probe the machine does not move as
// it moves the benchmark) where own is set, and the benchmark wobbling as
// the machine's speed raised to beta (2: it moves twice as much as the
// probe).
func probeFileOwn(t *testing.T, scale, probeScale float64, own bool, beta float64) *results.File {
	t.Helper()
	wobble := []float64{1, 1.01, 0.99, 1.005, 0.995}
	var rounds, probe []string
	for i, w := range wobble {
		m := 100e-6 * scale * math.Pow(w, beta)
		rounds = append(rounds, fmt.Sprintf(`{"median_s": %g, "min_s": %g, "max_s": %g, "spread": 0, "samples": 1, "batch": 1, "samples_s": [%g]}`, m, m, m, m))
		// The probe wobbles with the benchmark, round by round, as a
		// machine's speed moves both, and a little on its own.
		pw := w * (1 + 0.002*float64((3*i)%5-2))
		if own {
			pw = wobble[(2*i+3)%5]
		}
		probe = append(probe, fmt.Sprintf("%g", 10e-6*probeScale*pw))
	}
	p := ""
	if probeScale > 0 {
		p = fmt.Sprintf(`"probe": {"name": "copy/u32/1048576/vec4-wg256", "round_medians_s": [%s]},`, strings.Join(probe, ", "))
	}
	text := fmt.Sprintf(`{"schema": "vkbench.results/v2", "vkbench_version": "test", "time": "2026-01-02T03:04:05Z",
		"device": {"index": 0, "name": "Crafted GPU", "hardware": "crafted_0000_test"}, "mode": "hot", "seed": 1, "rounds": 5, %s
		"benchmarks": [{"name": "copy/u32/4096/vec4", "op": "copy", "dtype": "u32", "shape": "4096", "candidate": "vec4",
		"outcome": "measured", "winner": true, "stats": {"median_s": %g, "min_s": %g, "max_s": %g, "spread": 0, "samples": 5, "batch": 1},
		"rounds": [%s]}]}`, p, 100e-6*scale, 99e-6*scale, 101e-6*scale, strings.Join(rounds, ", "))
	f, err := results.Parse([]byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return f
}

// TestCompareReversalNote: where the probe would reverse a change, the
// note tells the change by each way it was judged, each under its own
// name. A kernel 20% slower whose times move with the square root of the
// machine's speed, on a machine 36% faster, is 4% faster by its own
// times, 50% slower relative to the probe, and slower net of it by what
// the slope fitted from five rounds leaves.
func TestCompareReversalNote(t *testing.T) {
	opts := results.DefaultCompareOptions
	opts.Relative = true
	r := results.Compare(probeFileOwn(t, 1, 1, false, 0.5), probeFileOwn(t, 1.2*0.8, 0.64, false, 0.5), opts).Rows[0]
	if r.NetDelta == nil {
		t.Fatalf("no change net of the probe: %+v", r)
	}
	want := fmt.Sprintf("-4.0%% by its own times, +50.0%% relative to the probe, %+.1f%% net of it: the probe would reverse the change", 100**r.NetDelta)
	if r.Verdict != results.Same || !strings.Contains(r.Note, want) {
		t.Errorf("verdict %s, note %q; want the same, and a note that says %q", r.Verdict, r.Note, want)
	}
}

// TestCompareRelativeToProbe: where both files measured the probe, its
// change is reported, and a benchmark is judged relative to it round by
// round where the probe steadies its rounds (by default) or always (with
// Relative): a machine that ran 60% slower during the new run (the probe
// too) is then no regression, while its own times (OwnTimes) call it one;
// a kernel 10% slower is one whether the machine also slowed or not. A
// probe that wobbles on its own is not used alone by default: a kernel is
// then slower only where it is so both by its own times and relative to
// the probe, so that a machine slower through a whole run is no
// regression either; and relative to the probe a change never turns into
// its opposite. By default the change net of the probe (NetDelta) counts
// too: a kernel that moves twice as much as the probe is no regression
// where the machine slowed, one where it slowed too; and where a probe
// that does not move with the kernel moved 33%, how the kernel would move
// with it is unknown, and a kernel 10% faster both by its own times and
// relative to the probe is not taken as faster. Delta is always the
// benchmark's own change, RelativeDelta the one relative to the probe. Without a probe in both files own times
// are judged, and the report says why.
func TestCompareRelativeToProbe(t *testing.T) {
	auto := results.DefaultCompareOptions
	opts := auto
	opts.Relative = true
	raw := auto
	raw.OwnTimes = true
	both := results.WithoutNet(auto)
	nan := math.NaN()
	for _, c := range []struct {
		name                   string
		base, cur              *results.File
		opts                   results.CompareOptions
		verdict                results.Verdict
		delta, rel, probeShift float64 // rel NaN: no change relative to the probe told; probeShift NaN: no probe
		alone                  bool    // judged relative to the probe alone (Row.Relative)
		probeNote              string
	}{
		{"machine 60% slower", probeFile(t, 1, 1), probeFile(t, 1.6, 1.6), opts, results.Same, 0.6, 0, 0.6, true, ""},
		{"machine 60% slower, by default", probeFile(t, 1, 1), probeFile(t, 1.6, 1.6), auto, results.Same, 0.6, 0, 0.6, true, ""},
		{"kernel 10% slower, machine steady, by default", probeFile(t, 1, 1), probeFile(t, 1.1, 1), auto, results.Slower, 0.1, 0.1, 0, true, ""},
		{"machine 60% slower, own times", probeFile(t, 1, 1), probeFile(t, 1.6, 1.6), raw, results.Slower, 0.6, nan, 0.6, false, ""},
		{"kernel 10% slower", probeFile(t, 1, 1), probeFile(t, 1.1, 1), opts, results.Slower, 0.1, 0.1, 0, true, ""},
		{"kernel 10% slower, machine 60% slower", probeFile(t, 1, 1), probeFile(t, 1.6*1.1, 1.6), opts, results.Slower, 0.76, 0.1, 0.6, true, ""},
		{"kernel 10% slower, machine 30% faster: not reversed", probeFile(t, 1, 1), probeFile(t, 0.7*1.1, 0.7), opts, results.Same, -0.23, 0.1, -0.3, true, ""},
		{"kernel 10% faster, machine 60% slower: not reversed", probeFile(t, 1, 1), probeFile(t, 1.6/1.1, 1.6), opts, results.Same, 1.6/1.1 - 1, 1/1.1 - 1, 0.6, true, ""},
		{"kernel 10% faster, machine 20% faster", probeFile(t, 1, 1), probeFile(t, 0.8/1.1, 0.8), opts, results.Faster, 0.8/1.1 - 1, 1/1.1 - 1, -0.2, true, ""},
		{"a probe of its own, 33% slower, by default: how the kernel moves with it unknown", probeFileOwn(t, 1, 1, true, 1), probeFileOwn(t, 0.9, 1.33, true, 1), auto, results.Same, -0.1, 0.9/1.33 - 1, 0.33, false, ""},
		{"a probe of its own, 33% slower, both ways", probeFileOwn(t, 1, 1, true, 1), probeFileOwn(t, 0.9, 1.33, true, 1), both, results.Faster, -0.1, 0.9/1.33 - 1, 0.33, false, ""},
		{"machine 10% slower, kernel moves twice as much, by default", probeFileOwn(t, 1, 1, false, 2), probeFileOwn(t, 1.21, 1.1, false, 2), auto, results.Same, 0.21, 0.1, 0.1, true, ""},
		{"kernel 10% slower, machine 10% slower, kernel moves twice as much, by default", probeFileOwn(t, 1, 1, false, 2), probeFileOwn(t, 1.1*1.21, 1.1, false, 2), auto, results.Slower, 0.331, 0.21, 0.1, true, ""},
		{"machine 30% slower, a probe of its own, by default: both ways or not at all", probeFileOwn(t, 1, 1, true, 1), probeFileOwn(t, 1.3, 1.3, true, 1), auto, results.Same, 0.3, 0, 0.3, false, ""},
		{"kernel 10% slower, a probe of its own, by default", probeFileOwn(t, 1, 1, true, 1), probeFileOwn(t, 1.1, 1, true, 1), auto, results.Slower, 0.1, 0.1, 0, false, ""},
		{"probe in new only", probeFile(t, 1, 0), probeFile(t, 1.6, 1.6), opts, results.Slower, 0.6, nan, nan, false, "only one file has a probe"},
		{"kernel 10% slower, own times", probeFile(t, 1, 1), probeFile(t, 1.1, 1), raw, results.Slower, 0.1, nan, 0, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := results.Compare(c.base, c.cur, c.opts)
			if len(rep.Rows) != 1 {
				t.Fatalf("%d rows", len(rep.Rows))
			}
			r := rep.Rows[0]
			if r.Verdict != c.verdict {
				t.Errorf("verdict %q, want %q (delta %+.3f, p %.3f, note %q)", r.Verdict, c.verdict, r.Delta, r.P, r.Note)
			}
			if math.Abs(r.Delta-c.delta) > 0.01 {
				t.Errorf("delta %+.3f, want %+.3f (own times)", r.Delta, c.delta)
			}
			switch {
			case math.IsNaN(c.rel) && r.RelativeDelta != nil:
				t.Errorf("a change relative to the probe (%+.3f) told; want own times alone (probe variance ×%.2f, p %.3g)", *r.RelativeDelta, r.ProbeVariance, r.ProbeP)
			case !math.IsNaN(c.rel) && (r.RelativeDelta == nil || math.Abs(*r.RelativeDelta-c.rel) > 0.01):
				t.Errorf("relative delta %v; want %+.3f", r.RelativeDelta, c.rel)
			}
			if wantNet := r.RelativeDelta != nil && c.opts != both; (r.NetDelta != nil) != wantNet {
				t.Errorf("change net of the probe %v, want one: %v", r.NetDelta, wantNet)
			}
			if r.Relative != c.alone {
				t.Errorf("judged relative to the probe alone: %v, want %v (probe variance ×%.2f, p %.3g)", r.Relative, c.alone, r.ProbeVariance, r.ProbeP)
			}
			if (rep.RelativeRows == 1) != r.Relative {
				t.Errorf("the report counts %d rows judged relative; the row says %v", rep.RelativeRows, r.Relative)
			}
			if !math.IsNaN(c.probeShift) {
				if rep.Probe == "" || math.Abs(rep.ProbeShift-c.probeShift) > 0.01 {
					t.Errorf("probe %q shift %+.3f, want %+.3f", rep.Probe, rep.ProbeShift, c.probeShift)
				}
				if r.ProbeVariance <= 0 {
					t.Errorf("no probe variance told")
				}
			} else if rep.Probe != "" {
				t.Errorf("a probe %q is reported where the files do not both have it", rep.Probe)
			}
			if !strings.Contains(rep.ProbeNote, c.probeNote) || (c.probeNote == "") != (rep.ProbeNote == "") {
				t.Errorf("probe note %q, want %q", rep.ProbeNote, c.probeNote)
			}
			data, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			if (r.RelativeDelta != nil) != strings.Contains(string(data), `"relative_delta"`) || (r.NetDelta != nil) != strings.Contains(string(data), `"net_delta"`) || !strings.Contains(string(data), `"schema":"vkbench.compare/v1"`) {
				t.Errorf("the JSON report and relative_delta disagree, or it names no schema: %s", data)
			}
		})
	}
}

// TestMerge pools the rounds of several runs of one side: each
// benchmark's rounds in the files' order, the probe's too when every file
// has the same one, Stats over every sample; files of other hardware are
// refused. Pooled, three runs of a kernel 10% slower are judged slower,
// and three of the same kernel on a machine whose speed wobbles are not.
func TestMerge(t *testing.T) {
	a, b, c := probeFile(t, 1, 1), probeFile(t, 1.02, 1.02), probeFile(t, 0.98, 0)
	m, err := results.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	bm := m.Benchmarks[0]
	if d := cmp.Diff([]int{5, 5}, bm.Runs); d != "" {
		t.Errorf("merged: the rounds of each run (-want +got):\n%s", d)
	}
	if len(bm.Rounds) != 10 || m.Rounds != 10 || bm.Stats.N != 10 {
		t.Errorf("merged: %d rounds (file says %d), stats of %d samples; want 10, 10, 10", len(bm.Rounds), m.Rounds, bm.Stats.N)
	}
	if bm.Rounds[5].Median != b.Benchmarks[0].Rounds[0].Median {
		t.Errorf("the second file's rounds do not follow the first's")
	}
	if m.Probe == nil || len(m.Probe.RoundMedians) != 10 {
		t.Errorf("merged probe: %+v; want 10 rounds", m.Probe)
	}
	if m, err := results.Merge(a, b, c); err != nil || m.Probe != nil {
		t.Errorf("merging a file without a probe: probe %+v (%v); want none", m.Probe, err)
	}
	if len(a.Benchmarks[0].Rounds) != 5 {
		t.Errorf("Merge changed its first file: %d rounds", len(a.Benchmarks[0].Rounds))
	}
	// A run that lost the device before the benchmark's turn takes
	// nothing from the others, in either order.
	lost := probeFile(t, 1.01, 1)
	lost.Benchmarks[0].Measurement = results.Measurement{Outcome: results.NotRun, Error: "the device was lost before"}
	for _, files := range [][]*results.File{{a, lost}, {lost, a}} {
		if m, err := results.Merge(files...); err != nil || m.Benchmarks[0].Outcome != results.Measured || len(m.Benchmarks[0].Rounds) != 5 {
			t.Errorf("merged with a run that did not run it: %s, %d rounds (%v); want measured, a's 5", m.Benchmarks[0].Outcome, len(m.Benchmarks[0].Rounds), err)
		}
	}
	other := probeFile(t, 1, 1)
	other.Device.Hardware = "another"
	if _, err := results.Merge(a, other); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("merging files of other hardware: %v; want InvalidArgument", err)
	}
	// Runs of one side in other modes or for other objectives are not
	// one side's runs (they were merged, the first file's mode and
	// objective taken for all); other seeds are.
	for _, change := range []func(f *results.File){
		func(f *results.File) { f.Mode = "cold" },
		func(f *results.File) { f.Objective = "energy" },
	} {
		other := probeFile(t, 1, 1)
		change(other)
		if _, err := results.Merge(a, other); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "results: Merge: files measured in hot mode for objective time, and in ") {
			t.Errorf("merging files of other modes or objectives: %v; want InvalidArgument naming both", err)
		}
	}
	seeded := probeFile(t, 1, 1)
	seeded.Seed, seeded.Objective = 7, "time"
	if _, err := results.Merge(a, seeded); err != nil {
		t.Errorf("merging runs of other seeds: %v", err)
	}

	opts := results.DefaultCompareOptions
	base, _ := results.Merge(probeFile(t, 1, 1), probeFile(t, 1.03, 1), probeFile(t, 0.97, 1))
	same, _ := results.Merge(probeFile(t, 0.98, 1), probeFile(t, 1.02, 1), probeFile(t, 1.01, 1))
	slower, _ := results.Merge(probeFile(t, 1.1, 1), probeFile(t, 1.13, 1), probeFile(t, 1.08, 1))
	if r := results.Compare(base, same, opts).Rows[0]; r.Verdict != results.Same || r.N1 != 15 {
		t.Errorf("pooled runs of one kernel: %s over %d rounds; want ~ over 15", r.Verdict, r.N1)
	}
	if r := results.Compare(base, slower, opts).Rows[0]; r.Verdict != results.Slower {
		t.Errorf("pooled runs of a kernel 10%% slower: %s (delta %+.3f, p %.3f); want slower", r.Verdict, r.Delta, r.P)
	}
}

// TestMergeDroppedAndMeasured: a benchmark dropped early in one file and
// measured fully in another is Measured, in either order of the files,
// without the drop's detail, which described one run and not the rounds
// pooled; one dropped in every file stays dropped, with its detail. It
// once stayed dropped wherever the first file had dropped it, and so was
// hidden from the table and the report's charts.
func TestMergeDroppedAndMeasured(t *testing.T) {
	dropped := func(scale float64) *results.File {
		f := probeFile(t, scale, 1)
		b := &f.Benchmarks[0]
		b.Outcome, b.Winner = results.Dropped, false
		b.Error = "dropped early: much slower than vec4-wg256"
		b.Drop = &results.Drop{Samples: 5, Median: 150e-6, Leader: "vec4-wg256", LeaderMedian: 100e-6}
		return f
	}
	type merged struct {
		Outcome results.Outcome
		Error   string
		Drop    *results.Drop
		Runs    []int
	}
	got := func(files ...*results.File) merged {
		t.Helper()
		m, err := results.Merge(files...)
		if err != nil {
			t.Fatal(err)
		}
		b := m.Benchmarks[0]
		return merged{b.Outcome, b.Error, b.Drop, b.Runs}
	}
	measured := merged{Outcome: results.Measured, Runs: []int{5, 5}}
	if d := cmp.Diff(measured, got(dropped(1.5), probeFile(t, 1, 1))); d != "" {
		t.Errorf("dropped, then measured (-want +got):\n%s", d)
	}
	if d := cmp.Diff(measured, got(probeFile(t, 1, 1), dropped(1.5))); d != "" {
		t.Errorf("measured, then dropped (-want +got):\n%s", d)
	}
	first := dropped(1.5)
	want := merged{Outcome: results.Dropped, Error: first.Benchmarks[0].Error, Drop: first.Benchmarks[0].Drop, Runs: []int{5, 5}}
	if d := cmp.Diff(want, got(first, dropped(1.6))); d != "" {
		t.Errorf("dropped in both (-want +got):\n%s", d)
	}
	if first.Benchmarks[0].Outcome != results.Dropped || first.Benchmarks[0].Drop == nil {
		t.Errorf("Merge changed its first file: %+v", first.Benchmarks[0].Measurement)
	}
}

// TestMergeWinner: in a merged file the winner of an operation at a shape
// is the candidate that every file naming a winner names, measured after
// merging, in either order of the files, with a tie any of them told;
// where the files name different winners (a candidate dropped early in
// one run, which another run picked) there is none, and where the one
// named failed in another file there is none either. Before, the first
// file's Winner flag and Tie stayed, so the star depended on the files'
// order and could fall on a failed candidate.
func TestMergeWinner(t *testing.T) {
	// run is a file of two candidates, vec4 and scalar, winner the named
	// one ("" for none), tie its Tie; dropped is dropped early, failed
	// failed.
	run := func(winner, tie, dropped, failed string) *results.File {
		f := probeFile(t, 1, 1)
		scalar := f.Benchmarks[0]
		scalar.Name, scalar.Candidate = "copy/u32/4096/scalar", "scalar"
		f.Benchmarks = append(f.Benchmarks, scalar)
		for i := range f.Benchmarks {
			b := &f.Benchmarks[i]
			b.Winner = b.Candidate == winner
			if b.Winner {
				b.Tie = tie
			}
			switch b.Candidate {
			case dropped:
				b.Outcome, b.Error = results.Dropped, "dropped early: much slower than the leader"
				b.Drop = &results.Drop{Samples: 5, Median: 150e-6, Leader: winner, LeaderMedian: 100e-6}
			case failed:
				b.Outcome, b.Error = results.Failed, "vk: vkQueueSubmit: VK_ERROR_DEVICE_LOST"
			}
		}
		return f
	}
	type won struct{ Winner, Tie string }
	winner := func(files ...*results.File) won {
		t.Helper()
		m, err := results.Merge(files...)
		if err != nil {
			t.Fatal(err)
		}
		var w won
		for _, b := range m.Benchmarks {
			switch {
			case b.Winner && w.Winner != "":
				t.Errorf("two winners: %s and %s", w.Winner, b.Candidate)
			case b.Winner:
				w = won{b.Candidate, b.Tie}
			case b.Tie != "":
				t.Errorf("%s is no winner but ties: %q", b.Candidate, b.Tie)
			}
		}
		return w
	}
	const tie = "the first of those that tie"
	for _, c := range []struct {
		name string
		a, b *results.File
		want won
	}{
		{"agree", run("scalar", "", "", ""), run("scalar", "", "vec4", ""), won{"scalar", ""}},
		{"agree, one tied", run("scalar", tie, "", ""), run("scalar", "", "", ""), won{"scalar", tie}},
		{"dropped in one, the winner in another", run("scalar", "", "vec4", ""), run("vec4", "", "", ""), won{}},
		{"the winner failed in another", run("vec4", "", "", ""), run("", "", "", "vec4"), won{}},
	} {
		if d := cmp.Diff(c.want, winner(c.a, c.b)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
		if d := cmp.Diff(c.want, winner(c.b, c.a)); d != "" {
			t.Errorf("%s, the other order (-want +got):\n%s", c.name, d)
		}
	}
}

// TestNetDegreesOfFreedom: judged net of the probe, the difference has
// n1 + n2 − 3 degrees of freedom, one fewer than Welch's most, since the
// slope was fitted from the same rounds; its own times keep Welch's.
func TestNetDegreesOfFreedom(t *testing.T) {
	// Five rounds a side with the same spread of their logarithms:
	// Welch–Satterthwaite gives n1 + n2 − 2 = 8.
	var base, next []float64
	for i := range 5 {
		base = append(base, math.Exp(0.01*float64(i)))
		next = append(next, math.Exp(0.05+0.01*float64(i)))
	}
	pOwn, own := results.WelchTest(base, next, 0)
	pNet, net := results.WelchTest(base, next, 1e-9)
	if own < 7.99 || own > 8.01 || net != 7 {
		t.Errorf("degrees of freedom %g by own times, %g net of the probe; want 8 and 7", own, net)
	}
	if !(pNet > pOwn) {
		t.Errorf("p %g net of the probe, %g by own times; want the net one larger (fewer degrees of freedom, a wider standard error)", pNet, pOwn)
	}
}
