package par

import (
	"runtime"
	"sync"
	"testing"
)

func TestRange(t *testing.T) {
	for _, tc := range []struct{ n, grain int }{{0, 1}, {1, 1}, {10, 100}, {1000, 10}, {1 << 20, 1 << 16}, {7, 0}} {
		var mu sync.Mutex
		seen := make([]int, tc.n)
		parts := 0
		Range(tc.n, tc.grain, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			parts++
			if hi-lo < tc.grain && hi != tc.n {
				t.Errorf("n=%d grain=%d: part [%d, %d) is smaller than a grain", tc.n, tc.grain, lo, hi)
			}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d grain=%d: index %d done %d times", tc.n, tc.grain, i, c)
			}
		}
		if want := min(runtime.GOMAXPROCS(0), tc.n/max(tc.grain, 1)); want >= 2 && parts < 2 {
			t.Errorf("n=%d grain=%d: %d part(s), want one per processor (%d)", tc.n, tc.grain, parts, want)
		}
	}
}
