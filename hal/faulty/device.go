package faulty

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

var (
	_ hal.LossMarker     = (*device)(nil)
	_ hal.PipelineCacher = cachingDevice{}
	_ hal.LossMarker     = cachingDevice{}
)

type device struct {
	inner  hal.Device
	plan   *Plan
	marker hal.LossMarker // nil when the inner device cannot be told it is lost

	// lossMu serializes losing the device with releasing it, so that the
	// inner device is never marked lost while it is being released.
	lossMu   sync.Mutex
	released atomic.Bool // set under lossMu
	// emulated is the loss error when the wrapper emulates the loss
	// itself; nil otherwise. lost is cancelled when it is set, to wake the
	// waits of fences that the inner device knows nothing about; it holds
	// no goroutine, so it need not be cancelled otherwise.
	emulated   atomic.Pointer[error]
	lost       context.Context
	cancelLost context.CancelFunc

	// Guarded by plan.holdMu.
	held   []*heldSubmission
	closed bool // lost or released: no more holding
	// orphanErrs are the errors of releasing the inner fences of fences
	// released while held, for Release to report.
	orphanErrs []error
}

// cachingDevice is a device whose inner device is a hal.PipelineCacher.
type cachingDevice struct{ *device }

// Wrap returns dev wrapped so that plan's faults are injected into it and
// into every object it creates. A nil plan is an empty one. The wrapped
// device implements hal.LossMarker, and hal.PipelineCacher when dev does.
// Releasing it releases dev.
func Wrap(dev hal.Device, plan *Plan) hal.Device {
	plan = cmp.Or(plan, NewPlan())
	d := &device{inner: dev, plan: plan}
	d.lost, d.cancelLost = context.WithCancel(context.Background())
	d.marker, _ = dev.(hal.LossMarker)
	plan.holdMu.Lock()
	plan.devices = append(plan.devices, d)
	plan.holdMu.Unlock()
	if _, ok := dev.(hal.PipelineCacher); ok {
		return cachingDevice{d}
	}
	return d
}

// enter counts a call of kind c and applies its fault. A non-nil error is
// what the call must return without reaching the inner object. The fault
// is for the calls that carry it out later (Submit's FailAsync, Elapsed's
// Slow) or need their number.
func (d *device) enter(c Call) (fault, error) {
	// Nothing is injected into a device that is lost or released: its
	// calls fail as the inner device says.
	f := d.plan.decide(c, d.released.Load() || d.lossErr() != nil)
	if e := d.emulated.Load(); e != nil {
		return f, *e
	}
	if f.lost != nil {
		d.lose(f.lost)
		if e := d.lossErr(); e != nil {
			return f, e
		}
		return f, lostError(f.lost)
	}
	return f, f.err
}

// lostError makes the error of an emulated loss.
func lostError(cause error) error {
	return status.Join(status.Annotate(hal.ErrDeviceLost, "faulty: device lost"), cause)
}

// lossErr returns the error of the device's loss, or nil if it is not
// lost.
func (d *device) lossErr() error {
	if e := d.emulated.Load(); e != nil {
		return *e
	}
	err := d.inner.Err()
	if err != nil && !errors.Is(err, hal.ErrDeviceLost) {
		// Err should report only losses; whatever else it says is not ours
		// to judge.
		return nil
	}
	return err
}

// lose makes the device lost with cause, through the inner device's own
// loss path if it has one, and fails the held submissions.
func (d *device) lose(cause error) {
	d.lossMu.Lock()
	if d.released.Load() {
		d.lossMu.Unlock()
		return
	}
	if d.marker != nil {
		d.marker.MarkLost(cause)
	}
	if d.lossErr() == nil {
		// No loss path underneath (or one that did not take): emulate.
		err := lostError(cause)
		d.emulated.CompareAndSwap(nil, &err)
		d.cancelLost()
	}
	d.lossMu.Unlock()
	d.failHeld(d.lossErr())
}

// failHeld fails every held submission of d with err and stops holding.
func (d *device) failHeld(err error) {
	err = cmp.Or(err, status.New(status.Internal, "faulty: held submission failed for no reason"))
	d.plan.holdMu.Lock()
	defer d.plan.holdMu.Unlock()
	d.closed = true
	subs := d.held
	d.held = nil
	for _, s := range subs {
		s.fence.resolveLocked(nil, err)
		if s.cb != nil {
			s.cb.unholdLocked()
		}
	}
}

// MarkLost makes the device lost with cause, as an injected loss does.
func (d *device) MarkLost(cause error) {
	d.lose(cmp.Or(cause, status.New(status.DataLoss, "faulty: MarkLost without a cause")))
}

// Info is the inner device's, but for the timestamp period that
// Plan.ScaleTimestamps changes.
func (d *device) Info() hal.DeviceInfo {
	info := d.inner.Info()
	if m := d.plan.ticks.Load(); m > 1 {
		info.Limits.TimestampPeriod /= float64(m)
	}
	return info
}

// Err is an error matching hal.ErrReleased once the device is released,
// else the loss error once it is lost.
func (d *device) Err() error {
	if d.released.Load() {
		return status.Annotate(hal.ErrReleased, "faulty: device released")
	}
	return d.lossErr()
}

func (d *device) CreateBuffer(desc hal.BufferDesc) (hal.Buffer, error) {
	return create(d, CreateBuffer, func() (hal.Buffer, error) { return d.inner.CreateBuffer(desc) },
		func(w wrapped[hal.Buffer]) hal.Buffer { return &buffer{w} })
}

func (d *device) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	return create(d, CreateExecutable, func() (hal.Executable, error) { return d.inner.CreateExecutable(desc) },
		func(w wrapped[hal.Executable]) hal.Executable { return &executable{w} })
}

func (d *device) CreateCommandBuffer() (hal.CommandBuffer, error) {
	return create(d, CreateCommandBuffer, d.inner.CreateCommandBuffer,
		func(w wrapped[hal.CommandBuffer]) hal.CommandBuffer { return &commandBuffer{wrapped: w} })
}

func (d *device) CreateTimestampPool(count int) (hal.TimestampPool, error) {
	return create(d, CreateTimestampPool, func() (hal.TimestampPool, error) { return d.inner.CreateTimestampPool(count) },
		func(w wrapped[hal.TimestampPool]) hal.TimestampPool { return &timestampPool{w} })
}

// heldSubmission is a submission kept in the wrapper by Plan.Hold.
type heldSubmission struct {
	fence *fence
	cb    *commandBuffer // nil when cb is not of this device
	rawCB hal.CommandBuffer
	waits []hal.Fence
	async error
}

func (d *device) Submit(cb hal.CommandBuffer, wait ...hal.Fence) (hal.Fence, error) {
	f, err := d.enter(Submit)
	if err != nil {
		return nil, err
	}
	wcb, _ := cb.(*commandBuffer)
	if wcb != nil && wcb.dev != d {
		wcb = nil // another device's: the inner device refuses it
	}
	s := &heldSubmission{
		fence: &fence{dev: d, n: f.n, ready: make(chan struct{})},
		cb:    wcb,
		rawCB: cb,
		waits: append([]hal.Fence(nil), wait...),
		async: f.async,
	}
	d.plan.holdMu.Lock()
	if wcb != nil && wcb.heldBy != nil {
		d.plan.holdMu.Unlock()
		return nil, status.Annotate(hal.ErrInFlight, "faulty: Submit of a command buffer whose submission is held")
	}
	// While the plan holds, nothing of this device is let through, so a
	// fence of this device in wait is held only if this submission is.
	if !d.closed && d.plan.holding {
		d.held = append(d.held, s)
		if wcb != nil {
			wcb.heldBy = s.fence
		}
		d.plan.holdMu.Unlock()
		return s.fence, nil
	}
	// Forwarded under holdMu, so that no submission overtakes another of
	// this device on its way to the inner queue, nor a Plan.Release.
	d.forwardLocked(s)
	d.plan.holdMu.Unlock()
	if s.fence.fail != nil {
		return nil, s.fence.fail
	}
	return s.fence, nil
}

// forwardLocked submits s to the inner device and resolves its fence: an
// error of the inner Submit is its fence's fail. plan.holdMu must be held.
func (d *device) forwardLocked(s *heldSubmission) {
	innerWaits := make([]hal.Fence, 0, len(s.waits))
	var cause error
	for _, w := range s.waits {
		f, ok := w.(*fence)
		if !ok || !f.resolved() {
			// Not ours, or held by another device: the inner device judges
			// (it is another device's object).
			innerWaits = append(innerWaits, w)
			continue
		}
		// The first failure waited on is the cause; a submission that
		// never reached the inner device is not waited on there.
		cause = cmp.Or(cause, f.fail, f.root)
		if f.fail == nil {
			innerWaits = append(innerWaits, f.inner)
		}
	}
	inner, err := d.inner.Submit(unwrap(s.rawCB), innerWaits...)
	if s.cb != nil {
		s.cb.unholdLocked()
	}
	if err != nil {
		s.fence.resolveLocked(nil, err)
		return
	}
	switch {
	case cause != nil:
		s.fence.root = cause
		s.fence.injected = status.Wrapf(cause, status.OK, "faulty: submission %d waited on a submission that failed", s.fence.n)
	case s.async != nil:
		s.fence.root = s.async
		s.fence.injected = s.async
	}
	s.fence.resolveLocked(inner, nil)
}

func (d *device) Release() error {
	d.plan.decide(Release, true)
	d.plan.holdMu.Lock()
	d.plan.detachLocked(d)
	d.plan.holdMu.Unlock()
	d.failHeld(status.Annotate(hal.ErrReleased, "faulty: device released while the submission was held"))
	d.lossMu.Lock()
	d.released.Store(true)
	d.lossMu.Unlock()
	d.plan.holdMu.Lock()
	errs := d.orphanErrs
	d.orphanErrs = nil
	d.plan.holdMu.Unlock()
	return status.Join(append(errs, d.inner.Release())...)
}

func (d cachingDevice) PipelineCacheData() ([]byte, error) {
	if _, err := d.enter(PipelineCacheData); err != nil {
		return nil, err
	}
	return d.inner.(hal.PipelineCacher).PipelineCacheData()
}
