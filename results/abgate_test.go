package results_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// How often ab, the gate that measures both versions in one process, is
// wrong, under the machines of gateNoises: a simulated ab run of
// gateBenchmarks pairs adds rounds to each pair until it is decided (at
// least MinSequentialRounds, at most abMaxRounds, as --max-time caps
// them), and its verdict is the last round's. OLD and NEW of a round
// share the machine's load and drift (they alternate within it; a whole
// process's shift is the same for both), and each has its own noise and
// outlier rounds; a pass's samples each take a recorded H200 deviation.

// abMaxRounds is where a simulated ab run stops adding rounds: about what
// --max-time (60 s) allows on lavapipe, whose rounds take a second or two.
const abMaxRounds = 40

// abRound is one round of a pair: OLD's and NEW's samples, taken pass by
// pass.
func abRound(r *rand.Rand, nz gateNoise, residuals []float64, machine, slower float64) (old, cur stats.Stats) {
	level := func() float64 {
		l := machine + nz.own*r.NormFloat64()
		if r.Float64() < nz.outlier {
			l += math.Log1p(nz.outlierSize * r.ExpFloat64())
		}
		return l
	}
	lo, ln := level(), level()
	os, ns := make([]float64, gateSamples), make([]float64, gateSamples)
	for j := range os {
		os[j] = 1e-4 * math.Exp(lo+residuals[r.IntN(len(residuals))])
		ns[j] = 1e-4 * slower * math.Exp(ln+residuals[r.IntN(len(residuals))])
	}
	return stats.Summarize(os, 1), stats.Summarize(ns, 1)
}

// abVerdicts runs one simulated ab of gateBenchmarks pairs, pair 0 slower
// by factor slower, and returns each pair's verdict and rounds.
func abVerdicts(r *rand.Rand, nz gateNoise, residuals []float64, threshold, slower float64) ([]results.Verdict, []int) {
	drift := nz.drift * (2*r.Float64() - 1)
	machine := make([]float64, abMaxRounds)
	for k := range machine {
		machine[k] = drift*float64(k)/(abMaxRounds-1) + nz.load*studentT3(r)
	}
	verdicts, rounds := make([]results.Verdict, gateBenchmarks), make([]int, gateBenchmarks)
	for i := range gateBenchmarks {
		s := 1.0
		if i == 0 {
			s = slower
		}
		// Ran asks for Stats; the judge reads only the rounds.
		old := results.Benchmark{Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{}}}
		cur := old
		for k := range abMaxRounds {
			o, n := abRound(r, nz, residuals, machine[k], s)
			old.Rounds, cur.Rounds = append(old.Rounds, o), append(cur.Rounds, n)
			if k+1 < results.MinSequentialRounds {
				continue
			}
			rep := results.ABReport{Threshold: threshold}
			rep.AddPair("p", "op", "c", old, cur, true)
			verdicts[i], rounds[i] = rep.Rows[0].Verdict, k+1
			if verdicts[i].Decided() {
				break
			}
		}
	}
	return verdicts, rounds
}

// abRates runs trials simulated ab runs in which nothing changed (slower
// 1), or pair 0 is slower: the share of runs with a pair called slower,
// with a pair left unclear, and the mean rounds a pair took.
func abRates(tb testing.TB, seed uint64, trials int, nz gateNoise, threshold, slower float64) (flagged, unclear, caught, rounds float64) {
	residuals := recordedResiduals(tb)
	r := rand.New(rand.NewPCG(seed, 4))
	var f, u, c, n int
	for range trials {
		vs, rs := abVerdicts(r, nz, residuals, threshold, slower)
		anySlower, anyUnclear := false, false
		for i, v := range vs {
			anySlower = anySlower || v == results.Slower
			anyUnclear = anyUnclear || v == results.Unclear
			n += rs[i]
		}
		if anySlower {
			f++
		}
		if anyUnclear {
			u++
		}
		if vs[0] == results.Slower {
			c++
		}
	}
	t := float64(trials)
	return float64(f) / t, float64(u) / t, float64(c) / t, float64(n) / t / gateBenchmarks
}

// BenchmarkABGate measures ab's error rates under each machine, at its
// default threshold (5%) and at 1%:
//
//	go test ./results -run '^$' -bench ABGate -benchtime 1x
//
// Metrics: false-alarm (runs of identical versions with a pair called
// slower), unclear (such runs with a pair undecided at abMaxRounds),
// rounds (the mean a pair took), power-2%, -5%, -10% (pair 0 that much
// slower called slower).
func BenchmarkABGate(b *testing.B) {
	const trials = 500
	for _, nz := range gateNoises {
		for _, threshold := range []float64{0.05, 0.01} {
			b.Run(fmt.Sprintf("%s/threshold-%.0f%%", nz.name, 100*threshold), func(b *testing.B) {
				for range b.N {
					fa, unclear, _, rounds := abRates(b, 1, trials, nz, threshold, 1)
					b.ReportMetric(fa, "false-alarm")
					b.ReportMetric(unclear, "unclear")
					b.ReportMetric(rounds, "rounds")
					for _, s := range []float64{1.02, 1.05, 1.10} {
						_, _, p, _ := abRates(b, 2, trials/5, nz, threshold, s)
						b.ReportMetric(p, fmt.Sprintf("power-%.0f%%", 100*(s-1)))
					}
				}
			})
		}
	}
}

// TestABFalseAlarms: ab looks at each pair's bounds after every round and
// stops when they decide, so only bounds that hold at every look keep
// its 95%. Under the busy machine, at threshold 0 (any slowdown at all
// counts), pairs of identical versions measured up to abMaxRounds rounds
// are called slower in at most 2.5% of pairs: one side of the 5% that
// the confidence sequence may miss, at any number of looks (1.1% here).
// A fixed-sample 95% t interval in its place, looked at as often, calls
// 8.5% of them slower.
func TestABFalseAlarms(t *testing.T) {
	const runs = 100
	residuals := recordedResiduals(t)
	r := rand.New(rand.NewPCG(30, 4))
	slower, pairs := 0, 0
	for range runs {
		vs, _ := abVerdicts(r, gateNoises[1], residuals, 0, 1)
		for _, v := range vs {
			pairs++
			if v == results.Slower {
				slower++
			}
		}
	}
	rate := float64(slower) / float64(pairs)
	t.Logf("%d pairs of identical versions, looked at every round up to %d: %.2f%% called slower", pairs, abMaxRounds, 100*rate)
	if rate > 0.025 {
		t.Errorf("%.2f%% of %d pairs of identical versions called slower at threshold 0; the sequence allows at most 2.5%%", 100*rate, pairs)
	}
}
