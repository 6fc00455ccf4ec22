package stats_test

import (
	"fmt"

	"github.com/vkbench/vkbench/stats"
)

// Eight samples of one run each, in seconds: the median with its 95%
// interval from order statistics, which the slow outlier does not widen.
func ExampleSummarize() {
	samples := []float64{1.00e-3, 1.02e-3, 0.99e-3, 1.05e-3, 1.01e-3, 1.03e-3, 1.00e-3, 1.20e-3}
	s := stats.Summarize(samples, 1)
	fmt.Printf("median %.4g s, 95%% interval [%.4g, %.4g] s, ±%.1f%%\n", s.Median, s.Lo, s.Hi, 100*s.HalfWidth())

	// Five samples cannot give a 95% interval: none is claimed.
	few := stats.Summarize(samples[:5], 1)
	fmt.Println(few.HasInterval(), few.HalfWidth())
	// Output:
	// median 0.001015 s, 95% interval [0.00099, 0.00105] s, ±3.0%
	// false +Inf
}
