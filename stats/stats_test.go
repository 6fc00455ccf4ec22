package stats_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/stats"
)

// TestSummarizeInterval checks that a 95% interval is claimed only where
// one exists: with fewer than MinIntervalSamples samples the range of the
// samples holds the median with less than 95% probability (75% with 3,
// 93.75% with 5), so there is no interval at all, in the statistics or
// their JSON; from 6 on it is the order statistics' interval.
func TestSummarizeInterval(t *testing.T) {
	samples := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64((i*7)%n+1) * 1e-3 // 1 to n ms, shuffled
		}
		return s
	}
	type interval struct {
		Has    bool
		Lo, Hi float64
		JSON   bool // ci_lo_s and ci_hi_s in the JSON
	}
	for _, tc := range []struct {
		n    int
		want interval
	}{
		{1, interval{}},
		{3, interval{}},
		{5, interval{}},
		{6, interval{Has: true, Lo: 1e-3, Hi: 6e-3, JSON: true}},
		{9, interval{Has: true, Lo: 2e-3, Hi: 8e-3, JSON: true}},
	} {
		s := stats.Summarize(samples(tc.n), 1)
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got := interval{Has: s.HasInterval(), Lo: s.Lo, Hi: s.Hi,
			JSON: strings.Contains(string(data), `"ci_lo_s"`) && strings.Contains(string(data), `"ci_hi_s"`)}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%d samples: interval (-want +got):\n%s", tc.n, diff)
		}
		if s.N != tc.n || s.Median <= 0 || s.Min != 1e-3 || s.Max != float64(tc.n)*1e-3 {
			t.Errorf("%d samples: %+v", tc.n, s)
		}
		if hw := s.HalfWidth(); tc.want.Has == math.IsInf(hw, 1) {
			t.Errorf("%d samples: half-width %v", tc.n, hw)
		}
	}
	// Read back from a file written before, five samples with their range
	// as the interval still have none.
	var old stats.Stats
	if err := json.Unmarshal([]byte(`{"median_s":3e-3,"ci_lo_s":1e-3,"ci_hi_s":5e-3,"min_s":1e-3,"max_s":5e-3,"samples":5,"batch":1}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.HasInterval() {
		t.Errorf("five samples read from a file have an interval: %+v", old)
	}
}
