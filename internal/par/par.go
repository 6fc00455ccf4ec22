// Package par splits a range of work among the processors.
package par

import (
	"runtime"
	"sync"
)

// Range runs fn over [0, n) in contiguous parts, one per processor but
// none smaller than grain, and returns when all parts are done. Work of
// less than two grains runs in the calling goroutine.
func Range(n, grain int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(grain, 1))
	if workers < 2 {
		fn(0, n)
		return
	}
	per := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}
