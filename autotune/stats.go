package autotune

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Confidence is the confidence level of every interval vkbench reports.
const Confidence = 0.95

// MinIntervalSamples is the fewest samples from which a 95% confidence
// interval of the median can be had without assuming a distribution. The
// widest interval order statistics give, from the smallest sample to the
// largest, holds the median with probability 1 - 2·2⁻ⁿ: 96.9% with 6
// samples, but 93.75% with 5 and 75% with 3. Measurement refuses fewer
// (Options.MinSamples), and Summarize gives no interval for fewer.
const MinIntervalSamples = 6

// Summarize computes the statistics of per-run times in seconds: the
// median with its 95% confidence interval (benchmath, assuming nothing
// about the distribution: the interval comes from order statistics), min,
// max and spread. With fewer than MinIntervalSamples samples there is no
// such interval, and Lo and Hi are left 0 (see Stats.HasInterval): the
// range of the samples would be a narrower-than-claimed one. The samples
// are kept, in the order given; batch is recorded as is.
func Summarize(samples []float64, batch int) Stats {
	s := Stats{N: len(samples), Batch: batch, Samples: samples}
	if len(samples) == 0 {
		return s
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
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
