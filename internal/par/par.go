// Package par splits a range of work among the processors.
package par

import (
	"runtime"
	"sync"
)

// Range runs fn over [0, n) in contiguous parts, one per processor but
// none smaller than grain, and returns when all parts are done. Work of
// less than two grains runs in the calling goroutine. A panic in fn is
// raised again in the calling goroutine once every part is done: the
// panic of the lowest part that panicked, the one a loop over [0, n) in
// order would have met first.
func Range(n, grain int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(grain, 1))
	if workers < 2 {
		fn(0, n)
		return
	}
	per := (n + workers - 1) / workers
	panics := make([]any, workers)
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { panics[lo/per] = recover() }()
			fn(lo, hi)
		}()
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// Map returns f of each element of xs, in order, computed in parts as
// Range splits them, 2¹⁶ elements at least: a short list is mapped in the
// calling goroutine, as a loop would.
func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	Range(len(xs), 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = f(xs[i])
		}
	})
	return out
}
