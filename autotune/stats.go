package autotune

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Confidence is the confidence level of every interval vkbench reports.
const Confidence = 0.95

// Summarize computes the statistics of per-run times in seconds: the
// median with its 95% confidence interval (benchmath, assuming nothing
// about the distribution: the interval comes from order statistics), min,
// max and spread. The samples are kept, in the order given; batch is
// recorded as is.
func Summarize(samples []float64, batch int) Stats {
	s := Stats{N: len(samples), Batch: batch, Samples: samples}
	if len(samples) == 0 {
		return s
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(sorted, &benchmath.DefaultThresholds), Confidence)
	s.Median, s.Lo, s.Hi = sum.Center, sum.Lo, sum.Hi
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	// With too few samples for a 95% interval benchmath gives an infinite
	// bound; the range of the samples is then the honest interval (wider,
	// never narrower).
	if math.IsInf(s.Lo, 0) || math.IsNaN(s.Lo) {
		s.Lo = s.Min
	}
	if math.IsInf(s.Hi, 0) || math.IsNaN(s.Hi) {
		s.Hi = s.Max
	}
	if s.Median > 0 {
		s.Spread = (s.Max - s.Min) / s.Median
	}
	return s
}
