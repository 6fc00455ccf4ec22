package results

import (
	"math/rand/v2"
	"testing"
)

// TestSlowestOutlier: Grubbs' test leaves out the slowest of n values
// drawn from one normal distribution in alpha of draws, and never the
// fastest; a value far above the rest is left out.
func TestSlowestOutlier(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{3, 5, 10} {
		const draws = 4000
		flagged := 0
		for range draws {
			values := make([]float64, n)
			for i := range values {
				values[i] = r.NormFloat64()
			}
			if i := slowestOutlier(values, 0.05); i >= 0 {
				flagged++
				for _, v := range values {
					if v > values[i] {
						t.Fatalf("%v: left out %v, not the largest", values, values[i])
					}
				}
			}
		}
		// Binomial: 200 expected, standard deviation 14.
		if flagged < 150 || flagged > 250 {
			t.Errorf("%d values from one normal distribution: the largest left out in %d of %d draws, want about 5%%", n, flagged, draws)
		}
	}
	if i := slowestOutlier([]float64{0, 0.01, -0.01, 0.005, 0.5}, outlierAlpha); i != 4 {
		t.Errorf("a value 50 standard deviations above four others: %d left out, want 4", i)
	}
	if i := slowestOutlier([]float64{0, 0.01, -0.01, 0.005, -0.5}, outlierAlpha); i != -1 {
		t.Errorf("a value far below four others: %d left out, want none", i)
	}
}
