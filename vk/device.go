//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

var (
	_ hal.Device         = (*device)(nil)
	_ hal.PipelineCacher = (*device)(nil)
	_ hal.LossMarker     = (*device)(nil)
)

const (
	// waitSlice bounds one vkWaitSemaphores, so that a waiter notices a
	// cancelled context or a device lost by another goroutine in time.
	waitSlice = 5 * time.Millisecond
	// spinWait is how long a Wait polls before it blocks on a GPU: longer
	// than an empty submission's round trip, short beside a timed kernel.
	spinWait = 100 * time.Microsecond
)

// device is a logical device, as the package doc's How it works says; who
// may destroy which object, and when, is described in lifetime.go.
type device struct {
	drv    *driver
	pd     *physicalDevice
	info   hal.DeviceInfo
	logger *slog.Logger
	// c is C memory: the handles and entry points. gate guards its life:
	// calls that use it hold gate for reading (enter, leave), Release
	// holds it for writing while it destroys the device; c is nil after.
	c     *C.vkb_device
	gate  sync.RWMutex
	cache C.VkPipelineCache

	queueMu   sync.Mutex
	submitted uint64 // the last value signalled; guarded by queueMu
	// completed is the highest timeline value seen reached.
	completed atomic.Uint64

	lost     atomic.Pointer[error] // the sticky loss error, once lost
	lostOnce sync.Once
	lostCh   chan struct{} // closed when lost

	// released is set once, by Release: every later call fails.
	released atomic.Bool

	// mu guards the objects' lives: live, inflight, and every object's
	// lifetime.holds and lifetime.dead.
	mu sync.Mutex
	// live are the objects not destroyed yet; the device's Release
	// destroys those left.
	live map[resource]struct{}
	// inflight are the holds of the submissions not yet seen complete, in
	// the order of their values.
	inflight []inflight
	// progressed is when the device was last seen to progress (hung).
	progressed time.Time

	staging staging
	// releaseWait bounds Release's wait for the work in flight;
	// hangTimeout, how long a submission may run (see hung).
	releaseWait, hangTimeout time.Duration
	// spin is how long a wait polls the timeline before it blocks, in its
	// first slice only: 0 on CPU devices, whose work needs every core.
	spin time.Duration
	// buildsAtDispatch is set on CPU devices: lavapipe builds a kernel
	// (LLVM) at its first dispatch, on the queue, not at
	// vkCreateComputePipelines (commandBuffer.buildEvents).
	buildsAtDispatch bool
	// overran is set when a submission ran past hangTimeout (hung): its
	// work is taken for a hang, which Release does not wait for.
	overran atomic.Bool
}

func newDevice(drv *driver, pd *physicalDevice, opts hal.DeviceOptions) (*device, error) {
	wait, hang, err := opts.Bounds()
	if err != nil {
		return nil, err
	}
	var c *C.vkb_device
	var failed *C.char
	if r := C.vkb_create_device(drv.in.c, pd.handle, pd.c, C.uintptr_t(drv.route), &c, &failed); r != C.VK_SUCCESS {
		return nil, resultError(C.GoString(failed), int32(r))
	}
	d := &device{
		drv:    drv,
		pd:     pd,
		info:   pd.info.Clone(),
		logger: drv.logger,
		c:      c,
		lostCh: make(chan struct{}),
		live:   map[resource]struct{}{},

		releaseWait: wait,
		hangTimeout: hang,
	}
	if d.info.Type != hal.CPU {
		d.spin = spinWait
	}
	d.buildsAtDispatch = d.info.Type == hal.CPU

	data := opts.PipelineCache
	if len(data) > 0 && !d.acceptsCache(data) {
		d.logger.Debug("vk: ignoring a pipeline cache made for other hardware", "device", d.info.Name)
		data = nil
	}
	r := d.createCache(data)
	if r != C.VK_SUCCESS && data != nil {
		d.logger.Debug("vk: the driver refused the pipeline cache; starting empty", "device", d.info.Name, "result", resultName(int32(r)))
		r = d.createCache(nil)
	}
	if r != C.VK_SUCCESS {
		C.vkb_destroy_device(c)
		return nil, resultError("vkCreatePipelineCache", int32(r))
	}
	return d, nil
}

func (d *device) createCache(data []byte) C.VkResult {
	return C.vkb_create_pipeline_cache(d.c, unsafe.Pointer(first(data)), C.size_t(len(data)), &d.cache)
}

// acceptsCache reports whether data has the header of a pipeline cache of
// this device (VK_PIPELINE_CACHE_HEADER_VERSION_ONE): drivers are meant to
// ignore others, but a check costs nothing and spares trusting them.
func (d *device) acceptsCache(data []byte) bool {
	if len(data) < 32 {
		return false
	}
	le := binary.LittleEndian
	return le.Uint32(data[0:]) >= 32 &&
		le.Uint32(data[4:]) == C.VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
		le.Uint32(data[8:]) == d.info.VendorID &&
		le.Uint32(data[12:]) == d.info.DeviceID &&
		bytes.Equal(data[16:32], d.info.PipelineCacheUUID[:])
}

func (d *device) Info() hal.DeviceInfo { return d.info.Clone() }

// usable returns the error that every call on the device or on its
// objects returns first: ErrReleased once the device is released, else
// the loss error once it is lost. It is two atomic loads.
func (d *device) usable(op string) error {
	if d.released.Load() {
		return released(op, "device")
	}
	if p := d.lost.Load(); p != nil {
		return *p
	}
	return nil
}

func (d *device) Err() error { return d.usable("Device.Err") }

// result turns the VkResult of call into an error. VK_ERROR_DEVICE_LOST
// also marks the device lost and ends the holds of every submission: the
// driver has given up on them, and their objects may be destroyed.
func (d *device) result(call string, r C.VkResult) error {
	if r == C.VK_SUCCESS {
		return nil
	}
	err := resultError(call, int32(r))
	if r == C.VK_ERROR_DEVICE_LOST {
		d.MarkLost(err)
		d.retire(math.MaxUint64) // nothing runs any more: destroying is allowed
		return *d.lost.Load()
	}
	return err
}

// setLost makes the device lost with cause, once: the first cause is
// kept, and waits and calls return the loss error from then on. It logs
// the loss if log says so (callers that say it in words of their own
// do not).
func (d *device) setLost(cause error, log bool) {
	d.lostOnce.Do(func() {
		err := lostError(cause)
		d.lost.Store(&err)
		close(d.lostCh)
		if log {
			d.logger.Error("vk: device lost", "device", d.info.Name, "err", err)
		}
	})
}

// MarkLost makes the device lost with cause, exactly as a
// VK_ERROR_DEVICE_LOST from the driver does, except that the work in
// flight may go on running: its objects stay held until the timeline
// passes it, or the device's Release has drained it.
func (d *device) MarkLost(cause error) { d.setLost(cause, true) }

// observe records that the timeline has reached v, and retires the
// submissions that this completes.
func (d *device) observe(v uint64) {
	for {
		c := d.completed.Load()
		if c >= v {
			return
		}
		if d.completed.CompareAndSwap(c, v) {
			d.retire(v)
			return
		}
	}
}

// reached reports whether the timeline has reached v, asking the driver
// only when what was seen before does not say. The gate must be held.
func (d *device) reached(v uint64) (bool, error) {
	if d.completed.Load() >= v {
		return true, nil
	}
	c := C.vkb_counter(d.c)
	if c.result != C.VK_SUCCESS {
		return false, d.result("vkGetSemaphoreCounterValue", c.result)
	}
	d.observe(uint64(c.value))
	return uint64(c.value) >= v, nil
}

// wait blocks until the timeline reaches v, ctx is done (the work stays
// in flight) or the device is lost. It waits in slices of at most
// waitSlice, entering the gate for each, and returns as soon as the value
// is signalled. The gate must not be held.
func (d *device) wait(ctx context.Context, op string, v uint64) error {
	if d.completed.Load() >= v {
		return nil
	}
	done := ctx.Done()
	spin := d.spin
	for {
		select {
		case <-d.lostCh:
			return *d.lost.Load()
		case <-done:
			return ctxError(op, ctx.Err())
		default:
		}
		slice := waitSlice
		if deadline, ok := ctx.Deadline(); ok {
			left := time.Until(deadline)
			if left <= 0 {
				// The context's timer fires at its deadline; wait for it, so
				// that the error is the context's own and ctx.Err() says so
				// when Wait returns.
				select {
				case <-done:
					return ctxError(op, ctx.Err())
				case <-d.lostCh:
					return *d.lost.Load()
				}
			}
			slice = min(slice, left)
		}
		if err := d.enter(op); err != nil {
			return err
		}
		r := C.vkb_wait(d.c, C.uint64_t(v), C.uint64_t(slice), C.uint64_t(spin))
		spin = 0 // a wait longer than a slice is no short submission
		var err error
		switch r {
		case C.VK_SUCCESS:
			d.observe(v)
		case C.VK_TIMEOUT:
			err = d.hung()
		default:
			err = d.result("vkWaitSemaphores", r)
		}
		d.leave()
		if r != C.VK_TIMEOUT || err != nil {
			return err
		}
	}
}

// hung reads the timeline and, if the oldest submission not done has
// run for longer than d.hangTimeout (hal.DeviceOptions says why), makes
// the device lost and returns the loss to the waiter, who says it. A run
// counts from when the submission was made or the device last seen to
// progress, whichever is later: the timeline advancing, or the
// submission building a kernel at its first dispatch, or done building
// it (commandBuffer.buildEvents): that is the driver's work, not a kernel
// running, and does not count however long it takes. The gate must be
// held.
func (d *device) hung() error {
	if _, err := d.reached(math.MaxUint64); err != nil {
		return err
	}
	d.mu.Lock()
	var ran time.Duration
	if len(d.inflight) > 0 {
		if m := d.inflight[0].builds; m != nil && m.building(d) {
			d.progressed = time.Now()
		}
		ran = min(time.Since(d.inflight[0].made), time.Since(d.progressed))
	}
	d.mu.Unlock()
	if ran <= d.hangTimeout {
		return nil
	}
	d.overran.Store(true)
	d.setLost(status.Newf(status.DeadlineExceeded, "vk: a submission has run for %v without finishing, past the hang timeout of %v: a kernel that never ends? The GPU cannot stop it, so nothing queued after it can run", ran.Round(time.Millisecond), d.hangTimeout), false)
	return *d.lost.Load()
}

// submit queues cb to run after the timeline reaches waitFor (0: no wait),
// and returns the value it will signal. The submission holds holder until
// the timeline reaches that value; the caller's own hold of it stays the
// caller's; builds marks its builds (commandBuffer.marks). The gate must
// be held; op names the call, in its errors.
func (d *device) submit(op string, cb C.VkCommandBuffer, waitFor uint64, holder resource, builds *buildMarks) (uint64, error) {
	d.queueMu.Lock()
	defer d.queueMu.Unlock()
	// Checked under queueMu: Release sets released before it reads the
	// last value submitted under queueMu, so it drains every submission
	// that gets past this.
	if err := d.usable(op); err != nil {
		return 0, err
	}
	v := d.submitted + 1
	if r := C.vkb_submit(d.c, cb, C.uint64_t(waitFor), C.uint64_t(v)); r != C.VK_SUCCESS {
		return 0, d.result("vkQueueSubmit", r)
	}
	d.submitted = v
	// Under queueMu, so inflight stays in the order of the values.
	d.mu.Lock()
	holder.life().holds++
	d.inflight = append(d.inflight, inflight{v, holder, time.Now(), builds})
	d.mu.Unlock()
	return v, nil
}

// drain waits, for at most limit, until every submission has finished,
// and reports whether the queue is idle. It waits on a lost device too:
// one lost for real answers at once, and one marked lost by MarkLost may
// still be running work that uses the objects about to be destroyed.
func (d *device) drain(limit time.Duration) bool {
	d.queueMu.Lock()
	v := d.submitted
	d.queueMu.Unlock()
	if d.completed.Load() >= v {
		return true
	}
	if d.enter("Device.Release") != nil {
		return true // destroyed already: nothing runs
	}
	defer d.leave()
	r := C.vkb_wait(d.c, C.uint64_t(v), C.uint64_t(limit), 0)
	switch r {
	case C.VK_SUCCESS:
		d.observe(v)
		return true
	case C.VK_ERROR_DEVICE_LOST:
		// The driver says the device is gone: nothing runs any more, and
		// destroying objects is allowed.
		_ = d.result("vkWaitSemaphores", r)
		return true
	}
	return false
}

func (d *device) PipelineCacheData() ([]byte, error) {
	if err := d.call("PipelineCacheData"); err != nil {
		return nil, err
	}
	defer d.leave()
	data, r := enumerate(func(n *C.size_t, out *byte) C.VkResult {
		return C.vkb_pipeline_cache_data(d.c, d.cache, n, unsafe.Pointer(out))
	})
	return data, d.result("vkGetPipelineCacheData", r)
}

// Release refuses every later call, waits (at most d.releaseWait, not at
// all past a hang) for the work in flight, waits for the calls in
// progress to leave Vulkan, then destroys every object of the device
// still alive and the device, or, with work still running, leaves them
// to the driver as hal.DeviceOptions says.
func (d *device) Release() error {
	if !d.released.CompareAndSwap(false, true) {
		return nil
	}
	wait := d.releaseWait
	if d.overran.Load() {
		wait = 0 // only what has finished since
	}
	idle := d.drain(wait)
	d.gate.Lock()
	defer d.gate.Unlock()
	if d.c == nil {
		return nil
	}
	d.mu.Lock()
	for r := range d.live {
		r.life().dead = true
	}
	var err error
	if idle {
		// A driver may still be finishing its bookkeeping of the last
		// submissions on a thread of its own: lavapipe's submit thread
		// releases a submission's timeline points after it signals, and
		// destroying the timeline under it crashed that thread (1 run in 5
		// of the vk tests on a loaded machine).
		if r := C.vkb_wait_idle(d.c); r != C.VK_SUCCESS && r != C.VK_ERROR_DEVICE_LOST {
			d.logger.Warn("vk: Device.Release: vkDeviceWaitIdle failed; destroying the device all the same", "device", d.info.Name, "result", resultName(int32(r)))
		}
		for r := range d.live {
			r.destroy()
		}
		d.staging.destroy(d)
		C.vkb_destroy_pipeline_cache(d.c, d.cache)
		C.vkb_destroy_device(d.c)
	} else if d.overran.Load() {
		err = status.Newf(status.DeadlineExceeded, "vk: Device.Release: %s still runs a submission that ran past the hang timeout of %v; the device and its objects are left to the driver, which frees them when the process exits", d.info.Name, d.hangTimeout)
	} else {
		d.setLost(status.Newf(status.DeadlineExceeded, "vk: Device.Release: the GPU did not finish its work within %v", d.releaseWait), false)
		d.logger.Warn("vk: the GPU did not finish its work in time: leaving the device and its objects to the driver, which frees them when the process exits",
			"device", d.info.Name, "waited", d.releaseWait)
		err = status.Newf(status.DeadlineExceeded, "vk: Device.Release: %s did not finish its work within %v; the device and its objects are left to the driver, which frees them when the process exits", d.info.Name, d.releaseWait)
	}
	d.live, d.inflight = nil, nil
	d.mu.Unlock()
	d.c = nil
	d.drv.mu.Lock()
	delete(d.drv.devices, d)
	d.drv.mu.Unlock()
	return err
}

func (d *device) Submit(hcb hal.CommandBuffer, wait ...hal.Fence) (hal.Fence, error) {
	if err := d.usable("Submit"); err != nil {
		return nil, err
	}
	cb, err := objectOf[*commandBuffer](d, "Submit", "command buffer", -1, hcb)
	if err != nil {
		return nil, err
	}
	if err := cb.enter("Submit"); err != nil {
		return nil, err
	}
	defer cb.leave()
	if cb.state != cbExecutable {
		return nil, status.New(status.FailedPrecondition, "vk: Submit: command buffer is not ended (call Begin, record, then End)")
	}
	var waitFor uint64
	var failed *fence
	for i, hf := range wait {
		f, ok := hf.(*fence)
		if !ok || f == nil || f.d != d {
			if hf == nil {
				return nil, status.Newf(status.InvalidArgument, "vk: Submit: wait fence %d is nil", i)
			}
			return nil, foreign("Submit", "wait fence")
		}
		if f.released.Load() {
			return nil, released("Submit", "wait fence")
		}
		if f.err != nil && failed == nil {
			failed = f
		}
		waitFor = max(waitFor, f.value)
	}
	if failed != nil {
		// What the failed submission should have written is invalid, so
		// this one does not run; its fence fails naming the first failure.
		cause := failed.cause
		return &fence{d: d, err: status.Wrap(cause, status.CodeOf(cause), "vk: submission waited on a failed submission"), cause: cause}, nil
	}
	if done, err := d.reached(waitFor); err != nil {
		return nil, err
	} else if done {
		waitFor = 0
	}
	v, err := d.submit("Submit", cb.cb, waitFor, cb, cb.marks())
	if err != nil {
		return nil, err
	}
	cb.pending.Store(v)
	return &fence{d: d, value: v}, nil
}
