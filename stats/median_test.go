package stats_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkbench/vkbench/stats"
)

// TestSummarizeMedian pins the median, the figure every table, cache entry
// and comparison leads with: the middle sample of an odd count, the mean
// of the two middle ones of an even count, whatever the order the samples
// came in, which Summarize keeps.
func TestSummarizeMedian(t *testing.T) {
	for _, c := range []struct {
		samples []float64
		median  float64
	}{
		{[]float64{7}, 7},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{9, 1, 1, 1, 100, 2, 3}, 2},
		{[]float64{10, 20, 30, 40, 50, 60, 70, 1000}, 45},
	} {
		for shuffle := range 4 {
			in := slices.Clone(c.samples)
			rand.New(rand.NewPCG(uint64(shuffle), 1)).Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
			s := stats.Summarize(in, 1)
			if s.Median != c.median {
				t.Errorf("Summarize(%v).Median = %v, want %v", in, s.Median, c.median)
			}
			if lo, hi := slices.Min(in), slices.Max(in); s.Min != lo || s.Max != hi {
				t.Errorf("Summarize(%v): min %v, max %v, want %v, %v", in, s.Min, s.Max, lo, hi)
			}
			if !slices.Equal(s.Samples, in) {
				t.Errorf("Summarize kept %v, want the samples as given, %v", s.Samples, in)
			}
			if s.HasInterval() && !(s.Lo <= s.Median && s.Median <= s.Hi) {
				t.Errorf("Summarize(%v): median %v outside its interval [%v, %v]", in, s.Median, s.Lo, s.Hi)
			}
		}
	}
	if s := stats.Summarize(nil, 1); s.Median != 0 || s.N != 0 || s.HasInterval() {
		t.Errorf("Summarize(nil) = %+v, want nothing", s)
	}
}
