package faulty

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// heldLossCheck is how often a Wait on a held submission asks the inner
// device whether it was lost behind the wrapper's back; well under the
// 200 ms in which a loss must fail every pending fence.
const heldLossCheck = 10 * time.Millisecond

// fence wraps the fence of a submission, which may still be held.
type fence struct {
	dev *device
	n   int // the submission's number among the plan's Submit calls

	// ready is closed once the submission has reached the inner device
	// (inner is set) or failed on its way there (fail is set). The fields
	// below are written under plan.holdMu before ready is closed and never
	// after.
	ready chan struct{}
	inner hal.Fence
	fail  error
	// injected is what the fence reports once the inner submission has
	// completed without error: the asynchronous failure of this submission
	// or of one it waited on. root is the first of those failures.
	injected error
	root     error

	released         atomic.Bool
	releasedWhenHeld bool // guarded by plan.holdMu
}

// resolved reports whether the fence is resolved. Without plan.holdMu the
// answer may be stale by one resolution, which callers tolerate; once it
// is true, the fields that ready guards can be read.
func (f *fence) resolved() bool {
	select {
	case <-f.ready:
		return true
	default:
		return false
	}
}

// resolveLocked sets the outcome of the submission's way to the inner
// device and wakes its waiters. plan.holdMu must be held.
func (f *fence) resolveLocked(inner hal.Fence, fail error) {
	if f.resolved() {
		return
	}
	f.inner, f.fail = inner, fail
	close(f.ready)
	if inner != nil && f.releasedWhenHeld {
		// Released while held: nobody can wait on it any more, and nobody
		// is left to tell how releasing it went but the device.
		if err := inner.Release(); err != nil {
			f.dev.orphanErrs = append(f.dev.orphanErrs, err)
		}
	}
}

func (f *fence) Wait(ctx context.Context) error {
	if _, err := f.dev.enter(Wait); err != nil {
		return err
	}
	if f.released.Load() {
		return status.Annotate(hal.ErrReleased, "faulty: Wait on a released fence")
	}
	if err := f.waitReady(ctx); err != nil {
		return err
	}
	if f.fail != nil {
		return f.fail
	}
	if err := f.waitInner(ctx); err != nil {
		return err
	}
	return f.injected
}

// waitInner waits for the inner fence. An emulated loss, which the inner
// device knows nothing about, ends the wait too.
func (f *fence) waitInner(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(f.dev.lost, cancel)
	defer stop()
	err := f.inner.Wait(ctx)
	if e := f.dev.emulated.Load(); e != nil {
		return *e
	}
	return err
}

// waitReady waits until the submission has left the hold, ctx is done or
// the device is lost.
func (f *fence) waitReady(ctx context.Context) error {
	if f.resolved() {
		return nil
	}
	tick := time.NewTicker(heldLossCheck)
	defer tick.Stop()
	for {
		select {
		case <-f.ready:
			return nil
		case <-ctx.Done():
			return status.Wrapf(ctx.Err(), status.OK, "faulty: submission %d is held", f.n)
		case <-tick.C:
			if err := f.dev.lossErr(); err != nil {
				f.dev.failHeld(err)
			}
		}
	}
}

func (f *fence) Poll() (bool, error) {
	if _, err := f.dev.enter(Poll); err != nil {
		// A loss completes the submission; any other failure is Poll's
		// own, and the submission is as it was.
		return errors.Is(err, hal.ErrDeviceLost), err
	}
	if f.released.Load() {
		return false, status.Annotate(hal.ErrReleased, "faulty: Poll of a released fence")
	}
	if !f.resolved() {
		if err := f.dev.lossErr(); err != nil {
			f.dev.failHeld(err)
			return true, err
		}
		return false, nil
	}
	if f.fail != nil {
		return true, f.fail
	}
	done, err := f.inner.Poll()
	if !done || err != nil {
		return done, err
	}
	return true, f.injected
}

func (f *fence) Release() error {
	f.dev.plan.decide(Release, true)
	if f.released.Swap(true) {
		return status.Annotate(hal.ErrReleased, "faulty: fence released twice")
	}
	f.dev.plan.holdMu.Lock()
	held := !f.resolved()
	f.releasedWhenHeld = held
	f.dev.plan.holdMu.Unlock()
	if held || f.inner == nil {
		return nil
	}
	return f.inner.Release()
}
