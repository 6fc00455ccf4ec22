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

// TestMap: Map is a loop's answer, long lists split among the processors
// or not; a panic of f reaches the caller as the loop's would, the first
// in order (the manifest's decoder recovers its errors so).
func TestMap(t *testing.T) {
	for _, n := range []int{0, 3, 1 << 18} {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = i
		}
		for i, v := range Map(xs, func(x int) int { return 3 * x }) {
			if v != 3*i {
				t.Fatalf("n=%d: Map(...)[%d] = %d, want %d", n, i, v, 3*i)
			}
		}
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one processor: Range splits nothing")
	}
	xs := make([]int, 1<<18)
	for i := range xs {
		xs[i] = i
	}
	got := func() (r any) {
		defer func() { r = recover() }()
		Map(xs, func(x int) int {
			if x == 5 || x == len(xs)-1 {
				panic(x)
			}
			return x
		})
		return nil
	}()
	if got != 5 {
		t.Errorf("panics at 5 and %d: the caller recovered %v, want 5, the first", len(xs)-1, got)
	}
}
