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
	"slices"
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
	// releaseWait bounds how long Device.Release waits for work in flight.
	releaseWait = 5 * time.Second
)

// device is a logical device with one compute queue and one timeline
// semaphore: submission n signals n, so the semaphore's counter says how
// far the queue has got, and a fence is just a value to wait for.
type device struct {
	drv    *driver
	pd     *physicalDevice
	info   hal.DeviceInfo
	logger *slog.Logger
	c      *C.vkb_device // C memory: handles and entry points
	// cMu guards c's lifetime against the calls that may run while
	// another goroutine releases the device (waits, polls, submissions):
	// they hold it for reading around their C call, Release for writing
	// while it destroys the device; c is nil after.
	cMu   sync.RWMutex
	cache C.VkPipelineCache

	queueMu   sync.Mutex
	submitted uint64 // the last value signalled; guarded by queueMu
	// completed is the highest timeline value seen reached.
	completed atomic.Uint64

	lost     atomic.Pointer[error] // the sticky loss error, once lost
	lostOnce sync.Once
	lostCh   chan struct{} // closed when lost

	mu       sync.Mutex
	live     map[resource]*atomic.Bool // objects to destroy with the device, and their released flags
	released atomic.Bool

	staging staging
}

// resource is an object the device destroys if it is still alive when the
// device is released.
type resource interface {
	// destroy frees the object's Vulkan objects. It is called once, with
	// device.mu held.
	destroy()
}

func newDevice(drv *driver, pd *physicalDevice, opts hal.DeviceOptions) (*device, error) {
	var c *C.vkb_device
	var failed *C.char
	if r := C.vkb_create_device(drv.inst, pd.handle, pd.c, &c, &failed); r != C.VK_SUCCESS {
		return nil, resultError(C.GoString(failed), int32(r))
	}
	d := &device{
		drv:    drv,
		pd:     pd,
		info:   pd.info,
		logger: drv.logger,
		c:      c,
		lostCh: make(chan struct{}),
		live:   map[resource]*atomic.Bool{},
	}
	d.info.MemoryHeaps = slices.Clone(pd.info.MemoryHeaps)

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
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	return C.vkb_create_pipeline_cache(d.c, p, C.size_t(len(data)), &d.cache)
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

func (d *device) Info() hal.DeviceInfo {
	info := d.info
	info.MemoryHeaps = slices.Clone(d.info.MemoryHeaps)
	return info
}

// usable returns the error that every call on the device or on its
// objects returns first: the loss error once the device is lost, then
// ErrReleased once it is released. It is two atomic loads.
func (d *device) usable(op string) error {
	if p := d.lost.Load(); p != nil {
		return *p
	}
	if d.released.Load() {
		return released(op, "device")
	}
	return nil
}

func (d *device) Err() error {
	if p := d.lost.Load(); p != nil {
		return *p
	}
	return nil
}

// result turns the VkResult of call into an error; VK_ERROR_DEVICE_LOST
// also marks the device lost.
func (d *device) result(call string, r C.VkResult) error {
	if r == C.VK_SUCCESS {
		return nil
	}
	err := resultError(call, int32(r))
	if r == C.VK_ERROR_DEVICE_LOST {
		d.markLost(err)
		return *d.lost.Load()
	}
	return err
}

// markLost makes the device lost, once: the first cause is kept, every
// pending wait returns the loss error at its next slice, and every later
// call returns it at once.
func (d *device) markLost(cause error) {
	d.lostOnce.Do(func() {
		err := lostError(cause)
		d.lost.Store(&err)
		close(d.lostCh)
		d.logger.Error("vk: device lost", "device", d.info.Name, "err", err)
	})
}

// MarkLost makes the device lost with cause, exactly as a
// VK_ERROR_DEVICE_LOST from the driver does.
func (d *device) MarkLost(cause error) { d.markLost(cause) }

// observe records that the timeline has reached v.
func (d *device) observe(v uint64) {
	for {
		c := d.completed.Load()
		if c >= v || d.completed.CompareAndSwap(c, v) {
			return
		}
	}
}

// reached reports whether the timeline has reached v, asking the driver
// only when what was seen before does not say.
func (d *device) reached(op string, v uint64) (bool, error) {
	if d.completed.Load() >= v {
		return true, nil
	}
	d.cMu.RLock()
	if d.c == nil {
		d.cMu.RUnlock()
		return false, released(op, "device")
	}
	c := C.vkb_counter(d.c)
	d.cMu.RUnlock()
	if c.result != C.VK_SUCCESS {
		return false, d.result("vkGetSemaphoreCounterValue", c.result)
	}
	d.observe(uint64(c.value))
	return uint64(c.value) >= v, nil
}

// wait blocks until the timeline reaches v, ctx is done (the work stays
// in flight) or the device is lost. It waits in slices of at most
// waitSlice, and returns as soon as the value is signalled.
func (d *device) wait(ctx context.Context, op string, v uint64) error {
	if d.completed.Load() >= v {
		return nil
	}
	done := ctx.Done()
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
				return ctxError(op, context.DeadlineExceeded)
			}
			slice = min(slice, left)
		}
		d.cMu.RLock()
		if d.c == nil {
			d.cMu.RUnlock()
			return released(op, "device")
		}
		r := C.vkb_wait(d.c, C.uint64_t(v), C.uint64_t(slice))
		d.cMu.RUnlock()
		switch r {
		case C.VK_SUCCESS:
			d.observe(v)
			return nil
		case C.VK_TIMEOUT:
		default:
			return d.result("vkWaitSemaphores", r)
		}
	}
}

// submit queues cb (which may be nil) to run after the timeline reaches
// waitFor (0: no wait), and returns the value it will signal.
func (d *device) submit(cb C.VkCommandBuffer, waitFor uint64) (uint64, error) {
	d.queueMu.Lock()
	defer d.queueMu.Unlock()
	if p := d.lost.Load(); p != nil {
		return 0, *p
	}
	v := d.submitted + 1
	d.cMu.RLock()
	if d.c == nil {
		d.cMu.RUnlock()
		return 0, released("Submit", "device")
	}
	r := C.vkb_submit(d.c, cb, C.uint64_t(waitFor), C.uint64_t(v))
	d.cMu.RUnlock()
	if r != C.VK_SUCCESS {
		return 0, d.result("vkQueueSubmit", r)
	}
	d.submitted = v
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
	d.cMu.RLock()
	if d.c == nil {
		d.cMu.RUnlock()
		return true // destroyed already: nothing runs
	}
	r := C.vkb_wait(d.c, C.uint64_t(v), C.uint64_t(limit))
	d.cMu.RUnlock()
	switch r {
	case C.VK_SUCCESS:
		d.observe(v)
		return true
	case C.VK_ERROR_DEVICE_LOST:
		// The driver says the device is gone: nothing runs any more, and
		// destroying objects is allowed.
		d.markLost(resultError("vkWaitSemaphores", int32(r)))
		return true
	}
	return false
}

// track registers an object to be destroyed with the device. It fails if
// the device was released meanwhile; the caller then destroys the object.
func (d *device) track(r resource, flag *atomic.Bool, op string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released.Load() {
		return released(op, "device")
	}
	d.live[r] = flag
	return nil
}

// releaseObject destroys r unless it (or the device) was released
// already. Releasing twice is not an error: the second call does nothing.
//
// Once the device is lost, the object may still be in use by work that a
// device marked lost by MarkLost goes on running: wait for it, boundedly.
func (d *device) releaseObject(r resource, flag *atomic.Bool) {
	if flag.Load() {
		return
	}
	drained := true
	if d.lost.Load() != nil && !d.released.Load() {
		drained = d.drain(releaseWait)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if flag.Load() {
		return
	}
	if !drained {
		// Destroying an object that running work uses would crash the
		// driver; leaking it is the lesser harm.
		flag.Store(true)
		delete(d.live, r)
		d.logger.Warn("vk: leaking an object that work still running on a lost device may use", "device", d.info.Name, "waited", releaseWait)
		return
	}
	flag.Store(true)
	delete(d.live, r)
	r.destroy()
}

func (d *device) PipelineCacheData() ([]byte, error) {
	if err := d.usable("PipelineCacheData"); err != nil {
		return nil, err
	}
	var n C.size_t
	if r := C.vkb_pipeline_cache_data(d.c, d.cache, &n, nil); r != C.VK_SUCCESS {
		return nil, d.result("vkGetPipelineCacheData", r)
	}
	if n == 0 {
		return nil, nil
	}
	data := make([]byte, n)
	r := C.vkb_pipeline_cache_data(d.c, d.cache, &n, unsafe.Pointer(&data[0]))
	if r != C.VK_SUCCESS && r != C.VK_INCOMPLETE {
		return nil, d.result("vkGetPipelineCacheData", r)
	}
	return data[:n], nil
}

// Release waits (at most releaseWait) for the work in flight, destroys
// every object of the device still alive, then the device. After Release
// every call on the device or its objects returns an error matching
// hal.ErrReleased, except Release, which returns nil. Release must not
// run concurrently with other calls on the device.
func (d *device) Release() error {
	d.mu.Lock()
	if d.released.Load() {
		d.mu.Unlock()
		return nil
	}
	d.released.Store(true)
	d.mu.Unlock()

	if !d.drain(releaseWait) {
		// Destroying a device under running work would crash the driver:
		// leak it, and everything it holds, instead.
		d.logger.Warn("vk: leaking a device whose work has not finished", "device", d.info.Name, "waited", releaseWait)
		d.mu.Lock()
		for _, flag := range d.live {
			flag.Store(true)
		}
		d.live = nil
		d.mu.Unlock()
		d.drv.leak(d)
		return nil
	}
	d.mu.Lock()
	for r, flag := range d.live {
		flag.Store(true)
		r.destroy()
	}
	d.live = nil
	d.mu.Unlock()
	d.staging.destroy(d)
	d.cMu.Lock()
	C.vkb_destroy_pipeline_cache(d.c, d.cache)
	C.vkb_destroy_device(d.c)
	d.c = nil
	d.cMu.Unlock()
	d.drv.forget(d)
	return nil
}

func (d *device) Submit(hcb hal.CommandBuffer, wait ...hal.Fence) (hal.Fence, error) {
	if err := d.usable("Submit"); err != nil {
		return nil, err
	}
	cb, ok := hcb.(*commandBuffer)
	if !ok || cb == nil {
		if hcb == nil {
			return nil, status.New(status.InvalidArgument, "vk: Submit: nil command buffer")
		}
		return nil, foreign("Submit", "command buffer")
	}
	if cb.d != d {
		return nil, foreign("Submit", "command buffer")
	}
	if err := cb.readyToSubmit(); err != nil {
		return nil, err
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
	if done, err := d.reached("Submit", waitFor); err != nil {
		return nil, err
	} else if done {
		waitFor = 0
	}
	v, err := d.submit(cb.cb, waitFor)
	if err != nil {
		return nil, err
	}
	cb.submitted(v)
	return &fence{d: d, value: v}, nil
}
