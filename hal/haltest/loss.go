package haltest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// lossLatency bounds how long after MarkLost a blocked Wait may return,
// beyond what the host adds: at once, not when its work ends nor at its
// waiter's timeout. The host's share is measured beside the fences, by as
// many Waits on them whose context is cancelled at the loss (WaitControl),
// as hal/faulty's loss tests do: on a loaded machine the Waits were seen
// to return 241 ms after MarkLost against a fixed 200 ms bound, and 210 ms
// after it where plain goroutines woken at the loss ran within 174 µs,
// since those model no thread woken from vkWaitSemaphores. 200 ms more
// still fails a Wait that returns when its work ends: the work is a second
// of spinning, begun some 20 ms before the loss.
const lossLatency = 200 * time.Millisecond

func testDeviceLoss(e *env) {
	lm, ok := e.dev.(hal.LossMarker)
	if !ok {
		e.Skip("the device does not implement hal.LossMarker")
	}
	rng := rand.New(rand.NewPCG(19, 20))
	o := e.other()
	oc := o.newAddCase(rng, 300, hal.HostVisible)
	ox := o.executable(kernelAdd)

	l := &lossCase{env: e, kit: e.newKit()}
	l.inFlight()
	l.lose(lm)
	l.kit.refused(e, time.Second, status.DataLoss, hal.ErrDeviceLost, "after the device was lost")
	for i, f := range append(l.fences, l.done) {
		Within(e, time.Second, fmt.Sprintf("Wait and Poll of fence %d after the device was lost", i), func() {
			wantLost(e, fmt.Sprintf("Wait of fence %d, again", i), f.Wait(e.ctx))
			done, err := f.Poll()
			if !done {
				e.Errorf("Poll of fence %d after the device was lost: not done", i)
			}
			wantLost(e, fmt.Sprintf("Poll of fence %d", i), err)
		})
	}

	// Other devices go on.
	oc.run(o, ox, "add on another device after the loss")
	if err := o.dev.Err(); err != nil {
		e.Errorf("Err of another device after the loss: %v", err)
	}

	// Releasing everything works.
	for _, obj := range l.all {
		releaseWithin(e, 10*time.Second, obj.name+".Release after the device was lost", obj.r)
	}
	releaseWithin(e, time.Minute, "Device.Release after the device was lost", e.dev)
	if err := e.dev.Err(); !errors.Is(err, hal.ErrReleased) {
		e.Errorf("Err of a lost device once released = %v, want hal.ErrReleased", err)
	}
}

// lossCase is the state of testDeviceLoss: objects of every kind, used
// before the loss, and submissions in flight when it comes.
type lossCase struct {
	*env
	*kit
	job    *spinJob
	fences []hal.Fence
}

// inFlight submits a long job, and submissions behind it, some waiting on
// it and some on the one before.
func (l *lossCase) inFlight() {
	e := l.env
	l.job = e.newSpinJob(time.Second)
	l.keep(l.job.out, "Buffer (spin)")
	l.keep(l.job.x, "Executable (spin)")
	first := e.commandBuffer()
	l.keep(first, "CommandBuffer (long)")
	e.record(first, func() { l.job.record(e, first) })
	l.fences = []hal.Fence{e.submit(first)}
	l.keep(l.fences[0], "Fence (long)")
	const behind = 30
	fx := e.executable(kernelFillIota)
	l.keep(fx, "Executable (fill_iota)")
	fc := &fillCase{n: 1, local: 1, out: e.buffer(4*behind, hal.HostVisible)}
	l.keep(fc.out, "Buffer (fill_iota)")
	for i := range behind {
		cb := e.commandBuffer()
		l.keep(cb, "CommandBuffer %d behind", i)
		e.record(cb, func() { e.dispatch(cb, fc.dispatch(fx, uint32(i))) })
		wait := l.fences[0]
		if i%2 == 1 {
			wait = l.fences[len(l.fences)-1]
		}
		f := e.submit(cb, wait)
		l.keep(f, "Fence %d behind", i)
		l.fences = append(l.fences, f)
	}
}

// lose marks the device lost while a goroutine waits on every fence: each
// wait fails with the loss within lossLatency, plus what Waits cancelled
// at the loss took to return (WaitControl).
func (l *lossCase) lose(lm hal.LossMarker) {
	e := l.env
	type result struct {
		err error
		at  time.Time
	}
	results := make([]result, len(l.fences))
	var wg sync.WaitGroup
	for i, f := range l.fences {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := f.Wait(ctx)
			results[i] = result{err, time.Now()}
		})
	}
	// The control (see WaitControl), started with the waiters and given
	// the same time to start waiting: a Wait that ignores the loss, which
	// returns only when its work ends, still fails.
	wake, woken := WaitControl(l.fences)
	time.Sleep(20 * time.Millisecond)
	for i, f := range l.fences {
		if done, err := f.Poll(); done {
			e.Fatalf("submission %d of %d completed (%v) before the loss, behind %v: cannot test pending fences", i, len(l.fences), err, l.job)
		}
	}
	lostAt := wake()
	lm.MarkLost(errors.New("haltest: device marked lost"))
	Within(e, 10*time.Second, "Fence.Wait of fences pending when the device was lost", wg.Wait)
	scheduler := woken()
	bound := lossLatency + scheduler
	var slowest time.Duration
	for i, r := range results {
		what := fmt.Sprintf("Wait of submission %d of %d (pending at the loss)", i, len(l.fences))
		wantLost(e, what, r.err)
		d := r.at.Sub(lostAt)
		slowest = max(slowest, d)
		if d > bound {
			e.Errorf("%s returned %v after MarkLost, want within %v (%v, plus the %v that as many Waits on the same fences took to return once their context was cancelled)", what, d, bound, lossLatency, scheduler)
		}
	}
	e.Logf("Waits failed within %v of MarkLost; Waits cancelled at that moment returned within %v", slowest, scheduler)
}

// WaitControl starts a Wait on each of fences, under a context that wake
// cancels: wake returns that moment, and woken, called after it, how long
// the last of those Waits took to return after it. A test that bounds how
// soon Waits on fences react to something done at a moment allows woken's
// delay too: what a busy host adds to Waits that notice it between two of
// the backend's own waits (vkWaitSemaphores, in a thread the host must
// wake and run), measured in the same waits. The fences must be pending
// until wake, and the control's Waits given as long as the test's to
// start waiting. What they return is not the control's to judge: the
// cancellation, or whatever the test did at the moment.
func WaitControl(fences []hal.Fence) (wake func() time.Time, woken func() time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	at := make(chan time.Time, len(fences))
	for _, f := range fences {
		go func() {
			_ = f.Wait(ctx)
			at <- time.Now()
		}()
	}
	var moment time.Time
	wake = func() time.Time {
		moment = time.Now()
		cancel()
		return moment
	}
	woken = func() time.Duration {
		var most time.Duration
		for range fences {
			most = max(most, (<-at).Sub(moment))
		}
		return most
	}
	return wake, woken
}
