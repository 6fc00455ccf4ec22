package haltest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

func testTimestamps(e *env) {
	for _, n := range []int{0, -1} {
		p, err := e.dev.CreateTimestampPool(n)
		refused(e, "TimestampPool", p, err, fmt.Sprintf("CreateTimestampPool(%d)", n), status.InvalidArgument)
	}
	const slots = 6 // 0..3 written, 4 and 5 never
	pool := e.timestampPool(slots)
	if pool.Count() != slots {
		e.Errorf("TimestampPool.Count() = %d, want %d", pool.Count(), slots)
	}

	// Work of about 20 ms of device time, and 4 times as much, side by
	// side in one submission, alternating which goes first; the median
	// ratio of five rounds, or up to fifteen while it is out of bounds.
	job := e.newSpinJob(20 * time.Millisecond)
	cb := e.commandBuffer()
	measure := func(first, second uint32) (time.Duration, time.Duration) {
		e.Helper()
		e.record(cb, func() {
			stamp(e, cb, pool, 0)
			e.dispatch(cb, spinDispatch(job.x, job.out, first))
			stamp(e, cb, pool, 1)
			e.barrier(cb)
			stamp(e, cb, pool, 2)
			e.dispatch(cb, spinDispatch(job.x, job.out, second))
			stamp(e, cb, pool, 3)
		})
		start := time.Now()
		e.execute(cb, "spin between timestamps")
		host := time.Since(start)
		checkSpin(e, job.out, second)
		checkTicks(e, pool)
		d1, d2 := elapsed(e, pool, 0, 1), elapsed(e, pool, 2, 3)
		// What the timer saw happened within what the host waited for,
		// on a quiet machine or a busy one.
		if d1+d2 > host+host/20+time.Millisecond {
			e.Errorf("the timestamps measured %v and %v, more than the %v the host waited for the submission", d1, d2, host)
		}
		return d1, d2
	}
	// The host-timed estimate of job.iters is refined with timestamps.
	short := min(job.iters, maxSpinIters/4)
	for range 4 {
		d, _ := measure(short, 1)
		if d >= 15*time.Millisecond || short == maxSpinIters/4 {
			break
		}
		scale := min(float64(20*time.Millisecond)/float64(d), 64)
		short = uint32(min(float64(short)*scale+1, maxSpinIters/4))
	}
	long := 4 * short
	var ratios []float64
	var shorts, longs []time.Duration
	median := func() float64 {
		r := slices.Sorted(slices.Values(ratios))
		return r[len(r)/2]
	}
	for round := 0; round < 5 || round < 15 && median() < 2; round++ {
		var d1, d2 time.Duration
		if round%2 == 0 {
			d1, d2 = measure(short, long)
		} else {
			d2, d1 = measure(long, short)
		}
		shorts, longs = append(shorts, d1), append(longs, d2)
		ratios = append(ratios, float64(d2)/float64(d1))
	}
	ratio := median()
	e.Logf("spin(%d) took %v, spin(%d) took %v: median ratio %.2f of %.2f", short, shorts, long, longs, ratio, ratios)
	// A timer that measures nothing (ratio 1) fails; one that measures
	// more than the work fails the host's bound above. No upper bound on
	// the ratio: on a CPU device a busy host stretched the longer run
	// most (a median of 24 under a load of 28 on two cores).
	if ratio < 2 {
		e.Errorf("spin(%d iterations) took %v and spin(%d iterations) %v: median ratio %.2f, want about 4 (at least 2)",
			short, shorts, long, longs, ratio)
	}

	checkTimestampErrors(e, pool, slots)
}

// checkTimestampErrors checks that pool, whose slots 0 to 3 are written
// in order, refuses what cannot be timed: a timer that did not tick, a
// slot never written, a slot outside the pool.
func checkTimestampErrors(e *env, pool hal.TimestampPool, slots int) {
	e.Helper()
	// A backend that waits for a slot no submission wrote hangs.
	const notAfter, unwritten = "the end is not after the start", "a slot was never written"
	for _, c := range []struct {
		start, end int
		why        string
	}{
		{1, 1, notAfter}, {3, 3, notAfter}, {1, 0, notAfter}, {3, 2, notAfter}, {3, 0, notAfter},
		{4, 5, unwritten}, {0, 4, unwritten}, {5, 3, unwritten},
	} {
		var d time.Duration
		var err error
		Within(e, 10*time.Second, "TimestampPool.Elapsed", func() { d, err = pool.Elapsed(c.start, c.end) })
		if err == nil {
			e.Errorf("Elapsed(%d, %d) = %v, want an error: %s", c.start, c.end, d, c.why)
		} else if c.why == notAfter && !errors.Is(err, hal.ErrNoTick) {
			e.Errorf("Elapsed(%d, %d): %v does not match hal.ErrNoTick", c.start, c.end, err)
		}
	}
	// Slots outside the pool.
	for _, c := range []struct{ start, end int }{{-1, 1}, {0, slots}, {slots, slots + 1}} {
		d, err := pool.Elapsed(c.start, c.end)
		wantCode(e, fmt.Sprintf("Elapsed(%d, %d) = %v", c.start, c.end, d), err, status.InvalidArgument, nil)
	}
	for _, c := range []struct{ first, n int }{{-1, 2}, {5, 2}, {0, slots + 1}, {0, -1}} {
		wantCode(e, fmt.Sprintf("Ticks(%d, %d)", c.first, c.n), errOf(pool.Ticks(c.first, c.n)), status.InvalidArgument, nil)
	}
}

func stamp(e *env, cb hal.CommandBuffer, pool hal.TimestampPool, i int) {
	e.Helper()
	e.must(fmt.Sprintf("CommandBuffer.Timestamp(%d)", i), cb.Timestamp(pool, i))
}

func elapsed(e *env, pool hal.TimestampPool, start, end int) time.Duration {
	e.Helper()
	d, err := pool.Elapsed(start, end)
	e.must(fmt.Sprintf("Elapsed(%d, %d)", start, end), err)
	if d <= 0 {
		e.Fatalf("Elapsed(%d, %d) = %v, want a positive duration", start, end, d)
	}
	return d
}

// checkTicks checks the raw ticks of slots 0..3: masked to the valid
// bits, and agreeing with Elapsed, wrapping included.
func checkTicks(e *env, pool hal.TimestampPool) {
	e.Helper()
	ticks, err := pool.Ticks(0, 4)
	e.must("Ticks(0, 4)", err)
	if len(ticks) != 4 {
		e.Fatalf("Ticks(0, 4) returned %d values", len(ticks))
	}
	bits := e.info.Limits.TimestampValidBits
	for i, v := range ticks {
		if bits < 64 && v>>bits != 0 {
			e.Errorf("Ticks()[%d] = %#x has bits above the %d valid bits", i, v, bits)
		}
	}
	for _, pair := range [][2]int{{0, 1}, {2, 3}} {
		b := ticks[pair[1]] - ticks[pair[0]]
		if bits < 64 {
			b &= 1<<bits - 1
		}
		ns := float64(b) * e.info.Limits.TimestampPeriod
		d := elapsed(e, pool, pair[0], pair[1])
		if diff := math.Abs(ns - float64(d.Nanoseconds())); diff > 1000 && diff > ns/1000 {
			e.Errorf("Elapsed(%d, %d) = %v, but Ticks differ by %d ticks of %v ns = %.0f ns",
				pair[0], pair[1], d, b, e.info.Limits.TimestampPeriod, ns)
		}
	}
}
