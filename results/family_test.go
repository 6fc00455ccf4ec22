package results_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vkbench/vkbench/results"
)

// family is a file of n benchmarks, each of five rounds whose medians
// scatter by roundNoise around 1 ms (times scale for the benchmarks in
// slower), drawn from r.
func family(r *rand.Rand, n int, roundNoise float64, slower map[int]float64) *results.File {
	var bs []results.Benchmark
	for i := range n {
		scale := 1.0
		if s, ok := slower[i]; ok {
			scale = s
		}
		var rs [][]float64
		for range 5 {
			m := 1e-3 * scale * (1 + roundNoise*r.NormFloat64())
			rs = append(rs, []float64{m * 0.99, m, m * 1.01})
		}
		bs = append(bs, bench(fmt.Sprintf("op/f32/%d/c", i), rs...))
	}
	return file(bs...)
}

// TestCompareFamilyWise: Alpha bounds the chance that a comparison of two
// runs in which nothing changed reports anything, however many benchmarks
// they hold. Over 400 pairs of files of 17 benchmarks whose rounds scatter
// by 5%, at most 5% of pairs (plus sampling slack) may report a
// regression; a test of each benchmark at 0.05 reports one in about a
// quarter of them. A benchmark 10% slower among the 17, with rounds as
// tight as a quiet GPU's, is still found, and only it.
func TestCompareFamilyWise(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const pairs, n = 400, 17
	flagged, perBenchmark := 0, 0
	for range pairs {
		rep := results.Compare(family(r, n, 0.05, nil), family(r, n, 0.05, nil), results.DefaultCompareOptions)
		if rep.Regressions > 0 {
			flagged++
		}
		for _, row := range rep.Rows {
			if row.RawP < 0.05 && row.Delta > 0.05 {
				perBenchmark++
				break
			}
			if row.P < row.RawP {
				t.Fatalf("%s: adjusted p %.4g below the raw %.4g", row.Name, row.P, row.RawP)
			}
		}
	}
	t.Logf("%d of %d pairs of identical runs reported a regression; tested one benchmark at a time, %d would have", flagged, pairs, perBenchmark)
	if flagged > pairs*8/100 {
		t.Errorf("%d of %d pairs of identical runs reported a regression; want at most 8%%", flagged, pairs)
	}
	if perBenchmark < pairs/10 {
		t.Errorf("only %d of %d pairs would have been flagged one benchmark at a time: the test does not show what the correction is for", perBenchmark, pairs)
	}

	rep := results.Compare(family(r, n, 0.005, nil), family(r, n, 0.005, map[int]float64{11: 1.1}), results.DefaultCompareOptions)
	for i, row := range rep.Rows {
		want := results.Same
		if i == 11 {
			want = results.Slower
		}
		if row.Verdict != want {
			t.Errorf("%s: %q (delta %+.3f, p %.3g, raw %.3g), want %q", row.Name, row.Verdict, row.Delta, row.P, row.RawP, want)
		}
	}
}

// TestCompareDetectable: the report says how large a slowdown the rounds'
// spread let the test see. Rounds as tight as a quiet GPU's can show a
// 5% change among 17 benchmarks; rounds scattered by 5% cannot, and the
// report says so rather than let exit status 0 pass for "no regression".
// A slowdown that was found is past what was detectable. One scattered
// benchmark among tight ones is named even where the median is within
// reach.
func TestCompareDetectable(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	quiet := results.Compare(family(r, 17, 0.005, nil), family(r, 17, 0.005, map[int]float64{3: 1.1}), results.DefaultCompareOptions)
	if d := quiet.Detectable; d <= 0 || d >= 0.05 {
		t.Errorf("tight rounds: detectable %.3f, want in (0, 0.05)", d)
	}
	if row := quiet.Rows[3]; row.Verdict != results.Slower || row.Delta <= row.Detectable {
		t.Errorf("the 10%% slower benchmark: %q, delta %.3f, detectable %.3f; want slower, past what was detectable", row.Verdict, row.Delta, row.Detectable)
	}
	noisy := results.Compare(family(r, 17, 0.05, nil), family(r, 17, 0.05, nil), results.DefaultCompareOptions)
	if d := noisy.Detectable; d <= 0.05 {
		t.Errorf("rounds scattered by 5%%: detectable %.3f, want past the 5%% threshold", d)
	}
	t.Logf("detectable: %.1f%% with rounds scattered by 0.5%%, %.1f%% by 5%%", 100*quiet.Detectable, 100*noisy.Detectable)

	// One benchmark of 17 scattered by 5%: the median is within reach, and
	// Undecided names that one.
	base, cur := family(r, 17, 0.005, nil), family(r, 17, 0.005, nil)
	base.Benchmarks[5].Rounds = family(r, 1, 0.05, nil).Benchmarks[0].Rounds
	cur.Benchmarks[5].Rounds = family(r, 1, 0.05, nil).Benchmarks[0].Rounds
	one := results.Compare(base, cur, results.DefaultCompareOptions)
	und := one.Undecided()
	if one.Detectable >= 0.05 || len(und) != 1 || und[0].Name != base.Benchmarks[5].Name {
		var names []string
		for _, row := range und {
			names = append(names, row.Name)
		}
		t.Errorf("one benchmark of 17 scattered: detectable %.3f (the median), undecided %v; want under 0.05, and %s alone", one.Detectable, names, base.Benchmarks[5].Name)
	}
}
