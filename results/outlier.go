package results

import (
	"math"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// outlierAlpha is the level of slowOutliers in steadyRounds.
const outlierAlpha = 0.01

// steadyRounds is a side's round medians, the probe's in the same rounds
// (where given) and how many rounds each run gave (Benchmark.Runs; one
// run where they do not add up to the rounds), without the slow rounds of
// each run that slowOutliers finds in the logarithms of the run's rounds
// (none with opts.keepOutliers). A neighbour's job on a shared runner
// slows a round or two of a run far more than the others: where it hit
// one round in five of half the runs, the spread hid a kernel 10% slower
// in half the pairs, and left out it is caught in 99%; where it hit two,
// Grubbs' test alone (one outlier a run: two hide each other) found it in
// 39% of pairs, this in 95% (quiet+2neighbours in BenchmarkCompareGate),
// and where it hit one, the A/A pairs left undecided went from 58% to 40%
// (quiet+neighbour), false alarms unchanged on every machine. The test
// holds its level for normal rounds, however few (fewer than two runs in
// a hundred lose a round they should have kept); a rule by median
// absolute deviations does not, over so few: past 3.5 of them, as
// Iglewicz and Hoaglin advise, one normal run of five rounds in eight
// lost one. A trimmed (Yuen) t-test instead, which drops the fastest
// round with the slowest and leaves two degrees of freedom a side, found
// a 10% slowdown on a busy machine in 4% of pairs where Welch's found it
// in 29% (in the same simulation, 500 pairs each).
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
		var drop []int
		if !opts.keepOutliers {
			drop = slowOutliers(logsOf(rounds[at:at+n]), outlierAlpha)
		}
		from := len(keptRounds)
		for i, v := range rounds[at : at+n] {
			if !slices.Contains(drop, i) {
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

// maxOutliers is the most rounds of a run that steadyRounds leaves out.
const maxOutliers = 2

// slowOutliers are the indices of the values that the generalized extreme
// Studentized deviate test (Rosner 1983), one-sided at level alpha, calls
// outliers above the rest: at most maxOutliers, and fewer than half of the
// values. Step i (from 1) takes the largest of the m = n−i+1 values left,
// at R_i sample standard deviations of theirs above their mean, and
// compares it with λ_i = (m−1)·t / √((m−2+t²)·m), t the upper alpha/m
// point of the t distribution with m−2 degrees of freedom; the outliers
// are the values of every step up to the last one whose R_i exceeds λ_i.
// Step 1 is Grubbs' test (Grubbs 1969); step 2 finds a second slow value
// that the first would hide. Of five normal values, some are left out in
// 1.7% of draws at alpha 1% (Grubbs' alone: 1%). Splitting alpha between
// the steps keeps that within alpha, but made step 1 miss the rounds it
// should leave out: in BenchmarkCompareGate the quiet machine's A/A pairs
// were undecided in 26% against 16%. None where there are fewer than 3
// values.
func slowOutliers(values []float64, alpha float64) []int {
	n := len(values)
	left := slices.Clone(values)
	index := make([]int, n) // index[j]: where left[j] is in values
	for i := range index {
		index[i] = i
	}
	var taken []int
	found := 0
	for i := 1; i <= min((n-1)/2, maxOutliers); i++ {
		m := n - i + 1 // values left
		j, sd := slices.Index(left, slices.Max(left)), moremath.StdDev(left)
		df := float64(m - 2)
		t := moremath.InvCDF(moremath.TDist{V: df})(1 - alpha/float64(m))
		lambda := float64(m-1) * t / math.Sqrt((df+t*t)*float64(m))
		if sd > 0 && (left[j]-moremath.Mean(left))/sd > lambda {
			found = i
		}
		taken = append(taken, index[j])
		left, index = slices.Delete(left, j, j+1), slices.Delete(index, j, j+1)
	}
	return taken[:found]
}
