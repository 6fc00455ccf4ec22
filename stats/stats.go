// Package stats summarises the samples of a measurement: the median of
// the per-run times, an interval that holds the true median with 95%
// probability, and the range of the samples.
//
// # A Stats
//
// A measurement is a list of samples, each the time in seconds of one run
// of an operation (a sample of k batched runs is divided by k). Summarize
// turns them into a Stats:
//
//	s := stats.Summarize(samples, batch)
//	fmt.Printf("%.3g s ± %.1f%%\n", s.Median, 100*s.HalfWidth())
//
// A Stats keeps the median, the 95% confidence interval of the median
// [Lo, Hi], the smallest and largest samples, the spread (Max-Min)/Median,
// how many samples there were and how many runs each timed, and the
// samples themselves, in the order given. Its JSON form is the one every
// vkbench file uses (the autotune cache's entries, results files).
//
// # The interval of the median
//
// Run times are not normally distributed: they have a floor and a long
// tail of interruptions, clock changes and cache misses. Summarize
// therefore assumes nothing about their distribution
// (golang.org/x/perf/benchmath's AssumeNothing): the interval comes from
// order statistics. Each sample falls below the true median with
// probability ½, so the i-th smallest sample lies above the median exactly
// when at most i-1 of the n samples fall below it: a binomial probability
// that needs no knowledge of the distribution. The interval is the
// narrowest pair of order statistics around the middle of the sorted
// samples (the i-th smallest and, give or take one, the i-th largest) that
// holds the median with probability Confidence (95%) or more.
//
// # Why at least 6 samples
//
// The widest interval order statistics give, from the smallest sample to
// the largest, misses the median only when every sample falls on one side
// of it: with probability 2·2⁻ⁿ. It therefore holds the median with
// probability 75% with 3 samples, 93.75% with 5, and 96.9% with 6. Fewer
// than MinIntervalSamples samples have no 95% interval at all, and rather
// than claim a narrower one, Summarize leaves Lo and Hi 0 (HasInterval
// reports false, and HalfWidth is +Inf, wider than any target).
package stats

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Confidence is the confidence level of every interval vkbench reports.
const Confidence = 0.95

// MinIntervalSamples is the fewest samples from which a 95% confidence
// interval of the median can be had without assuming a distribution (see
// the package doc). Measurement refuses fewer (autotune's
// Options.MinSamples), and Summarize gives no interval for fewer.
const MinIntervalSamples = 6

// Stats summarise the samples of one measurement (a candidate's, or one
// round of it). Times are seconds per run of the operation (a sample of k
// batched runs is divided by k).
type Stats struct {
	// Median and its 95% confidence interval [Lo, Hi]. Fewer than
	// MinIntervalSamples samples have no such interval: Lo and Hi are 0,
	// and absent from JSON (see HasInterval).
	Median float64 `json:"median_s"`
	Lo     float64 `json:"ci_lo_s,omitempty"`
	Hi     float64 `json:"ci_hi_s,omitempty"`
	Min    float64 `json:"min_s"`
	Max    float64 `json:"max_s"`
	// Spread is (Max-Min)/Median.
	Spread float64 `json:"spread"`
	// N is the number of samples; Batch the runs per sample.
	N     int `json:"samples"`
	Batch int `json:"batch"`
	// Samples are the per-run times, kept for compare.
	Samples []float64 `json:"samples_s,omitempty"`
}

// HasInterval reports whether s has a 95% confidence interval of its
// median: whether it has at least MinIntervalSamples samples (and, read
// from a file, the interval).
func (s Stats) HasInterval() bool { return s.N >= MinIntervalSamples && s.Hi > 0 && s.Lo <= s.Hi }

// HalfWidth is the half-width of the interval relative to the median;
// +Inf without an interval, which is wider than any target.
func (s Stats) HalfWidth() float64 {
	if !s.HasInterval() {
		return math.Inf(1)
	}
	if s.Median <= 0 {
		return 0
	}
	return (s.Hi - s.Lo) / 2 / s.Median
}

// Summarize computes the statistics of per-run times in seconds: the
// median with its 95% confidence interval (from order statistics; none,
// Lo and Hi 0, with fewer than MinIntervalSamples samples), min, max and
// spread. The samples are kept, in the order given; batch is recorded as
// is.
func Summarize(samples []float64, batch int) Stats {
	s := Stats{N: len(samples), Batch: batch, Samples: samples}
	if len(samples) == 0 {
		return s
	}
	sorted := slices.Sorted(slices.Values(samples))
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(sorted, &benchmath.DefaultThresholds), Confidence)
	s.Median = sum.Center
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	if len(samples) >= MinIntervalSamples && finite(sum.Lo) && finite(sum.Hi) {
		s.Lo, s.Hi = sum.Lo, sum.Hi
	}
	if s.Median > 0 {
		s.Spread = (s.Max - s.Min) / s.Median
	}
	return s
}

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
