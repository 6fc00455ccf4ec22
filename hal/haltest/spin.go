package haltest

import (
	"fmt"
	"math"
	"time"

	"github.com/vkbench/vkbench/hal"
)

// spinGroups is the number of workgroups of every kernelSpin dispatch:
// 4096 invocations, few enough that even a small device runs them all at
// once, so that the time grows with the iterations and not the groups.
const spinGroups = 64

// maxSpinIters bounds the iterations of one kernelSpin dispatch: llvmpipe
// ends a shader's loops after 65535 iterations in all.
const maxSpinIters = 65535

// maxSpinDispatch bounds one spin dispatch, well under any watchdog.
const maxSpinDispatch = 200 * time.Millisecond

// spinNanos returns the host time, in nanoseconds, that one iteration of
// a kernelSpin dispatch takes on this device, measured on the first call
// by timing dispatches of growing length, each the fastest of three; the
// time of a few iterations, after a first run that may compile the
// pipeline, is taken off as the fixed cost of any dispatch.
func (e *env) spinNanos() float64 {
	e.Helper()
	s := e.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spinNanos > 0 {
		return s.spinNanos
	}
	x := e.executable(kernelSpin)
	out := e.buffer(4*64*spinGroups, hal.HostVisible)
	cb := e.commandBuffer()
	fastest := func(iters uint32) time.Duration {
		e.Helper()
		e.record(cb, func() { e.dispatch(cb, spinDispatch(x, out, iters)) })
		best := time.Duration(math.MaxInt64)
		for range 3 {
			start := time.Now()
			e.execute(cb, "spin")
			best = min(best, time.Since(start))
		}
		return best
	}
	const few = 16
	fastest(few)
	fixed := fastest(few)
	for iters := uint32(4 * few); ; iters = min(4*iters, maxSpinIters) {
		d := fastest(iters)
		if d < 50*time.Millisecond && iters < maxSpinIters {
			continue
		}
		checkSpin(e, out, iters)
		s.spinNanos = float64(d.Nanoseconds()) / float64(iters)
		if d > 2*fixed {
			s.spinNanos = float64((d - fixed).Nanoseconds()) / float64(iters-few)
		}
		e.Logf("kernelSpin: %d iterations took %v, %d took %v (host time): %.0f ns an iteration",
			few, fixed, iters, d, s.spinNanos)
		return s.spinNanos
	}
}

func spinDispatch(x hal.Executable, out hal.Buffer, iters uint32) hal.Dispatch {
	return hal.Dispatch{
		Executable:    x,
		Bindings:      []hal.Binding{{Buffer: out}},
		PushConstants: words(iters),
		Groups:        [3]uint32{spinGroups, 1, 1},
	}
}

func checkSpin(e *env, out hal.Buffer, iters uint32) {
	e.Helper()
	got := e.readWords(out)
	for _, i := range []uint32{0, 4095} {
		if want := spinRef(i, iters); got[i] != want {
			e.Errorf("spin(%d iterations): out[%d] = %#x, want %#x", iters, i, got[i], want)
		}
	}
}

// spinJob is GPU work that lasts about a given time: dispatches of
// kernelSpin separated by barriers.
type spinJob struct {
	x          hal.Executable
	out        hal.Buffer
	iters      uint32
	dispatches int
}

// newSpinJob makes a job of about d.
func (e *env) newSpinJob(d time.Duration) *spinJob {
	e.Helper()
	iters := uint32(max(1, min(float64(min(d, maxSpinDispatch).Nanoseconds())/e.spinNanos(), maxSpinIters)))
	per := time.Duration(float64(iters) * e.spinNanos())
	return &spinJob{
		x:          e.executable(kernelSpin),
		out:        e.buffer(4*64*spinGroups, hal.HostVisible),
		iters:      iters,
		dispatches: max(1, int((d+per-1)/per)),
	}
}

func (j *spinJob) record(e *env, cb hal.CommandBuffer) {
	e.Helper()
	for i := range j.dispatches {
		if i > 0 {
			e.barrier(cb)
		}
		e.dispatch(cb, spinDispatch(j.x, j.out, j.iters))
	}
}

func (j *spinJob) String() string {
	return fmt.Sprintf("%d dispatches of spin(%d iterations)", j.dispatches, j.iters)
}
