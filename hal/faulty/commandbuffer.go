package faulty

import (
	"slices"
	"sync/atomic"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

type commandBuffer struct {
	wrapped[hal.CommandBuffer]

	heldBy *fence // its held submission, if any; guarded by plan.holdMu
	// released is set by Release. A command buffer released while its
	// submission is held is released underneath once the hold ends
	// (releaseLater); guarded by plan.holdMu.
	released     atomic.Bool
	releaseLater bool
}

// enter is device.enter for a command buffer's call, which a held
// submission of the command buffer refuses as the inner device refuses a
// command buffer in flight.
func (cb *commandBuffer) enter(c Call) error {
	if _, err := cb.dev.enter(c); err != nil {
		return err
	}
	if cb.released.Load() {
		return status.Annotatef(hal.ErrReleased, "faulty: %s of a released command buffer", c)
	}
	cb.dev.plan.holdMu.Lock()
	held := cb.heldBy != nil
	cb.dev.plan.holdMu.Unlock()
	if held {
		return status.Annotatef(hal.ErrInFlight, "faulty: %s of a command buffer whose submission is held", c)
	}
	return nil
}

// forward is device.forward for a command buffer's call, through enter.
func (cb *commandBuffer) forward(c Call, f func() error) error {
	if err := cb.enter(c); err != nil {
		return err
	}
	return f()
}

func (cb *commandBuffer) Begin() error { return cb.forward(Begin, cb.inner.Begin) }

func (cb *commandBuffer) Dispatch(d hal.Dispatch) error {
	if err := cb.enter(Dispatch); err != nil {
		return err
	}
	d.Executable = unwrap(d.Executable)
	d.Bindings = slices.Clone(d.Bindings)
	for i := range d.Bindings {
		b := &d.Bindings[i]
		b.Buffer, b.Image, b.Sampler = unwrap(b.Buffer), unwrap(b.Image), unwrap(b.Sampler)
	}
	return cb.inner.Dispatch(d)
}

func (cb *commandBuffer) Copy(src hal.Buffer, srcOffset int64, dst hal.Buffer, dstOffset int64, size int64) error {
	return cb.forward(Copy, func() error { return cb.inner.Copy(unwrap(src), srcOffset, unwrap(dst), dstOffset, size) })
}

func (cb *commandBuffer) Fill(dst hal.Buffer, offset, size int64, value uint32) error {
	return cb.forward(Fill, func() error { return cb.inner.Fill(unwrap(dst), offset, size, value) })
}

func (cb *commandBuffer) Barrier() error { return cb.forward(Barrier, cb.inner.Barrier) }

func (cb *commandBuffer) Timestamp(pool hal.TimestampPool, index int) error {
	return cb.forward(Timestamp, func() error { return cb.inner.Timestamp(unwrap(pool), index) })
}

func (cb *commandBuffer) End() error { return cb.forward(End, cb.inner.End) }

// Release releases the inner command buffer, which the inner device
// destroys once its submissions are done. One whose submission is held has
// not reached the inner device yet: it is released when the hold ends.
func (cb *commandBuffer) Release() error {
	cb.dev.plan.decide(Release, true)
	if cb.released.Swap(true) {
		return nil
	}
	cb.dev.plan.holdMu.Lock()
	held := cb.heldBy != nil
	cb.releaseLater = held
	cb.dev.plan.holdMu.Unlock()
	if held {
		return nil
	}
	return cb.inner.Release()
}

// unholdLocked ends the hold of cb's submission, and releases the inner
// command buffer if cb was released meanwhile. plan.holdMu must be held.
func (cb *commandBuffer) unholdLocked() {
	cb.heldBy = nil
	if cb.releaseLater {
		cb.releaseLater = false
		if err := cb.inner.Release(); err != nil {
			cb.dev.orphanErrs = append(cb.dev.orphanErrs, err)
		}
	}
}
