package results

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSlowOutliers: the generalized ESD test leaves out some of n values
// drawn from one normal distribution in alpha to twice alpha of draws
// (its second step adds to Grubbs' alpha), and only the largest ones; one value far above the rest is left out, and so are
// two, which Grubbs' test alone would not find (each hides the other);
// values far below are kept.
func TestSlowOutliers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{3, 5, 10} {
		const draws = 4000
		flagged := 0
		for range draws {
			values := make([]float64, n)
			for i := range values {
				values[i] = r.NormFloat64()
			}
			out := slowOutliers(values, 0.05)
			if len(out) == 0 {
				continue
			}
			flagged++
			sorted := slices.Sorted(slices.Values(values))
			for _, i := range out {
				if values[i] < sorted[n-len(out)] {
					t.Fatalf("%v: left out %v, not among the %d largest", values, values[i], len(out))
				}
			}
		}
		// 200 to 330 expected (n 3 to 5), standard deviation 14 to 18.
		if flagged < 150 || flagged > 400 {
			t.Errorf("%d values from one normal distribution: some left out in %d of %d draws, want 5%% to 10%%", n, flagged, draws)
		}
	}
	for _, c := range []struct {
		values []float64
		want   []int
	}{
		{[]float64{0, 0.01, -0.01, 0.005, 0.5}, []int{4}},
		{[]float64{0, 0.01, -0.01, 0.005, -0.5}, nil},
		{[]float64{0.6, 0.01, -0.01, 0.005, 0.5}, []int{0, 4}},
		{[]float64{0.5, 0.01, -0.01, 0.004, 0.005, 0.6, -0.002}, []int{5, 0}},
		{[]float64{0.5, 0.01}, nil},
	} {
		if got := slowOutliers(c.values, outlierAlpha); !slices.Equal(got, c.want) {
			t.Errorf("slowOutliers(%v) = %v, want %v", c.values, got, c.want)
		}
	}
}
