package results

import (
	"math"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// outlierAlpha is the level of the test by which Compare leaves the
// slowest round of a run out (steadyRounds).
const outlierAlpha = 0.01

// steadyRounds is a side's round medians, the probe's in the same rounds
// (where given) and how many rounds each run gave (Benchmark.Runs; one
// run where they do not add up to the rounds), without the slowest round
// of each run where Grubbs' test of the logarithms of the run's rounds
// calls it an outlier at outlierAlpha (slowestOutlier; none with
// opts.keepOutliers). The test is exact for normal rounds, however few
// (one run in a hundred loses a round it should have kept); a rule by
// median absolute deviations is not, over so few: past 3.5 of them, as
// Iglewicz and Hoaglin advise, one normal run of five rounds in eight
// lost one. It finds one outlier a run, as a neighbour makes; two in one
// run hide each other. A trimmed (Yuen) t-test instead, which drops the
// fastest round with the slowest and leaves two degrees of freedom a
// side, found a 10% slowdown on a busy machine in 4% of pairs where
// Welch's found it in 29% (in the simulation of BenchmarkCompareGate,
// 500 pairs each).
func steadyRounds(rounds, probe []float64, runs []int, opts CompareOptions) (keptRounds, keptProbe []float64, keptRuns []int) {
	each, total := runs, 0
	for _, n := range runs {
		total += n
	}
	if total != len(rounds) {
		each = []int{len(rounds)}
	}
	at := 0
	for _, n := range each {
		drop, from := -1, len(keptRounds)
		if !opts.keepOutliers {
			drop = slowestOutlier(logsOf(rounds[at:at+n]), outlierAlpha)
		}
		for i, v := range rounds[at : at+n] {
			if i != drop {
				keptRounds = append(keptRounds, v)
				if probe != nil {
					keptProbe = append(keptProbe, probe[at+i])
				}
			}
		}
		keptRuns = append(keptRuns, len(keptRounds)-from)
		at += n
	}
	return keptRounds, keptProbe, keptRuns
}

// slowestOutlier is the index of the largest of values where Grubbs' test
// (Grubbs 1969), one-sided at level alpha, calls it an outlier: where it
// lies more sample standard deviations above their mean than
// (n−1)/√n · √(t²/(n−2+t²)), t the upper alpha/n point of the t
// distribution with n−2 degrees of freedom; -1 where it does not, or
// there are fewer than 3 values.
func slowestOutlier(values []float64, alpha float64) int {
	n := float64(len(values))
	if n < 3 {
		return -1
	}
	i, sd := slices.Index(values, slices.Max(values)), moremath.StdDev(values)
	t := moremath.InvCDF(moremath.TDist{V: n - 2})(1 - alpha/n)
	if sd > 0 && (values[i]-moremath.Mean(values))/sd > (n-1)/math.Sqrt(n)*math.Sqrt(t*t/(n-2+t*t)) {
		return i
	}
	return -1
}
