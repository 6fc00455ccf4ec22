package results_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/perf/benchmath"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// TestMedianBoundsNeedRounds: with fewer than MinSequentialRounds values
// the 95% bounds are infinite; at that many, all on one side of a value
// exclude it (the bounds are the least and the greatest).
func TestMedianBoundsNeedRounds(t *testing.T) {
	xs := []float64{0.3, 0.1, 0.2, 0.5, 0.4, 0.6, 0.7}
	if lo, hi := results.MedianBounds(xs[:results.MinSequentialRounds-1], stats.Confidence); !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		t.Errorf("%d values: bounds [%g, %g], want infinite", results.MinSequentialRounds-1, lo, hi)
	}
	if lo, hi := results.MedianBounds(xs, stats.Confidence); lo != 0.1 || hi != 0.7 {
		t.Errorf("7 values: bounds [%g, %g], want [0.1, 0.7]", lo, hi)
	}
	// With more values the bounds close in on the median, never past it.
	var many []float64
	for i := range 101 {
		many = append(many, float64(i))
	}
	if lo, hi := results.MedianBounds(many, stats.Confidence); !(lo > 20 && lo < 50 && hi > 50 && hi < 80) {
		t.Errorf("0..100: bounds [%g, %g], want about 50 ± 10 to 30", lo, hi)
	}
}

// nullRuns simulates runs of a gate that looks after every round, from
// round 1 to rounds, at values drawn by draw (whose median is 0), and
// counts the runs in which the bounds ever excluded 0: by MedianBounds,
// and, with control, by a fixed-sample 95% t interval looked at the same
// way (from round 2).
func nullRuns(runs, rounds int, seed uint64, control bool, draw func(r *rand.Rand, round int) float64) (sequence, fixed int) {
	r := rand.New(rand.NewPCG(seed, 1))
	th := benchmath.DefaultThresholds
	for range runs {
		var xs []float64
		excluded, tExcluded := false, false
		for k := range rounds {
			xs = append(xs, draw(r, k))
			if lo, hi := results.MedianBounds(xs, stats.Confidence); lo > 0 || hi < 0 {
				excluded = true
			}
			if control && len(xs) >= 2 && !tExcluded {
				s := benchmath.AssumeNormal.Summary(benchmath.NewSample(append([]float64(nil), xs...), &th), stats.Confidence)
				tExcluded = s.Lo > 0 || s.Hi < 0
			}
		}
		if excluded {
			sequence++
		}
		if tExcluded {
			fixed++
		}
	}
	return sequence, fixed
}

// TestMedianBoundsErrorRate: simulated runs of a gate that looks at its
// bounds after every round, up to 60 rounds, with no difference at all,
// exclude the true median in at most 5% of runs, whatever the rounds'
// distribution: normal, heavy-tailed (a loaded machine's round now and
// then far out), or with a spread that changes from round to round (the
// load coming and going). A t interval looked at as often, beside it,
// does not keep its 95%: the control that shows the simulation can fail.
func TestMedianBoundsErrorRate(t *testing.T) {
	const runs, rounds, alpha = 2000, 60, 1 - stats.Confidence
	for _, c := range []struct {
		name    string
		seed    uint64
		draw    func(r *rand.Rand, round int) float64
		tBreaks bool // the control's false alarms must pass alpha
	}{
		{"normal", 1, func(r *rand.Rand, _ int) float64 { return 0.02 * r.NormFloat64() }, true},
		{"one round in seven far out", 2, func(r *rand.Rand, _ int) float64 {
			if r.IntN(7) == 0 {
				return 0.8 * r.NormFloat64()
			}
			return 0.02 * r.NormFloat64()
		}, false},
		{"load coming and going", 3, func(r *rand.Rand, round int) float64 {
			return 0.02 * (1 + 9*float64((round/5)%2)) * r.NormFloat64()
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			seq, fixed := nullRuns(runs, rounds, c.seed, c.tBreaks, c.draw)
			rate, tRate := float64(seq)/runs, float64(fixed)/runs
			t.Logf("%d runs of %d rounds, a look after each: the sequence excluded the median in %.1f%% (the t interval, where measured, in %.1f%%)", runs, rounds, 100*rate, 100*tRate)
			if rate > alpha {
				t.Errorf("the confidence sequence excluded the true median in %.1f%% of runs, above %.0f%%", 100*rate, 100*alpha)
			}
			if c.tBreaks && tRate <= alpha {
				t.Errorf("the t interval looked at every round excluded it in only %.1f%%: the simulation shows nothing", 100*tRate)
			}
		})
	}
}

// TestMedianBoundsDecide: the bounds do decide, and sooner the clearer
// the difference: rounds 10% slower with a loaded machine's spread (2%,
// and one round in seven far out) lie above a 5% threshold within 60
// rounds in nearly every run; 40% slower, within 30.
func TestMedianBoundsDecide(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	threshold := math.Log(1.05)
	roundsTo := func(effect float64) []int {
		var out []int
		for range 200 {
			var xs []float64
			n := 0
			for k := range 60 {
				x := math.Log(effect) + 0.02*r.NormFloat64()
				if r.IntN(7) == 0 {
					x = 0.8 * r.NormFloat64()
				}
				xs = append(xs, x)
				if lo, _ := results.MedianBounds(xs, stats.Confidence); lo > threshold {
					n = k + 1
					break
				}
			}
			out = append(out, n)
		}
		return out
	}
	caught := 0
	for _, n := range roundsTo(1.10) {
		if n > 0 {
			caught++
		}
	}
	if caught < 190 {
		t.Errorf("10%% slower: caught within 60 rounds in %d of 200 runs, want 190 or more", caught)
	}
	slow := roundsTo(1.40)
	for _, n := range slow {
		if n == 0 || n > 30 {
			t.Errorf("40%% slower: decided at round %d (0: not in 60)", n)
			break
		}
	}
}
