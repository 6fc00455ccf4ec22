//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

var _ hal.CommandBuffer = (*commandBuffer)(nil)

// Recording states.
const (
	cbInitial    = iota // never begun, or a recording that failed
	cbRecording         // between Begin and End
	cbExecutable        // ended: can be submitted
)

// Descriptor pools start with room for this many sets of up to
// descriptorsPerSet buffers each, and double when they run out.
const (
	descriptorSets    = 32
	descriptorsPerSet = 8
)

// commandBuffer is a VkCommandBuffer with a command pool and descriptor
// pools of its own, all reset at Begin. One goroutine records it at a
// time.
type commandBuffer struct {
	d     *device
	pool  C.VkCommandPool
	cb    C.VkCommandBuffer
	state int
	// pending is the timeline value of its last submission: it is in
	// flight until the timeline reaches it (0: never submitted).
	pending atomic.Uint64

	// descPools are reset at Begin; dispatches allocate from
	// descPools[cur], moving on (and growing) when one is full.
	descPools []C.VkDescriptorPool
	cur       int
	poolSets  uint32 // sets of the last pool made

	// hostBarrier is set when the recording writes host-visible memory,
	// which then needs a barrier to the host at End.
	hostBarrier bool
	// refs are the released flags of the objects the recording uses, so
	// that Submit refuses a recording whose objects were released.
	refs []*atomic.Bool

	// Scratch for Dispatch, kept to spare allocations.
	bufs    []C.VkBuffer
	offsets []C.VkDeviceSize
	ranges  []C.VkDeviceSize

	released atomic.Bool
}

func (d *device) CreateCommandBuffer() (hal.CommandBuffer, error) {
	if err := d.usable("CreateCommandBuffer"); err != nil {
		return nil, err
	}
	cb := &commandBuffer{d: d}
	var failed *C.char
	if r := C.vkb_create_command_buffer(d.c, &cb.pool, &cb.cb, &failed); r != C.VK_SUCCESS {
		return nil, d.result(C.GoString(failed), r)
	}
	if err := d.track(cb, &cb.released, "CreateCommandBuffer"); err != nil {
		cb.destroy()
		return nil, err
	}
	return cb, nil
}

func (cb *commandBuffer) destroy() {
	for _, p := range cb.descPools {
		C.vkb_destroy_descriptor_pool(cb.d.c, p)
	}
	cb.descPools = nil
	C.vkb_destroy_command_pool(cb.d.c, cb.pool)
}

// inFlight reports whether the last submission has not finished.
func (cb *commandBuffer) inFlight(op string) (bool, error) {
	v := cb.pending.Load()
	if v == 0 {
		return false, nil
	}
	done, err := cb.d.reached(op, v)
	if err != nil {
		return false, err
	}
	if done {
		cb.pending.CompareAndSwap(v, 0)
	}
	return !done, nil
}

// usable checks the device, the command buffer and that it is not in
// flight: what every call but Release checks first.
func (cb *commandBuffer) usable(op string) error {
	if err := cb.d.usable(op); err != nil {
		return err
	}
	if cb.released.Load() {
		return released(op, "command buffer")
	}
	busy, err := cb.inFlight(op)
	if err != nil {
		return err
	}
	if busy {
		return inFlight(op)
	}
	return nil
}

// recording is usable plus the state check of the recording calls.
func (cb *commandBuffer) recording(op string) error {
	if err := cb.usable(op); err != nil {
		return err
	}
	if cb.state != cbRecording {
		return status.Newf(status.FailedPrecondition, "vk: %s: command buffer is not recording (call Begin first)", op)
	}
	return nil
}

func (cb *commandBuffer) Begin() error {
	if err := cb.usable("Begin"); err != nil {
		return err
	}
	d := cb.d
	// Descriptor pools that grew during the last recording are merged
	// into one, so a command buffer recorded again and again settles on a
	// single pool.
	if len(cb.descPools) > 1 {
		for _, p := range cb.descPools {
			C.vkb_destroy_descriptor_pool(d.c, p)
		}
		cb.descPools = cb.descPools[:0]
		if err := cb.addDescriptorPool(2 * cb.poolSets); err != nil {
			cb.state = cbInitial
			return err
		}
	}
	cb.cur = 0
	cb.hostBarrier = false
	clear(cb.refs)
	cb.refs = cb.refs[:0]
	var pools *C.VkDescriptorPool
	if len(cb.descPools) > 0 {
		pools = &cb.descPools[0]
	}
	if c := C.vkb_begin(d.c, cb.pool, cb.cb, C.uint32_t(len(cb.descPools)), pools); c.result != C.VK_SUCCESS {
		cb.state = cbInitial
		return d.result(C.GoString(c.call), c.result)
	}
	cb.state = cbRecording
	return nil
}

func (cb *commandBuffer) addDescriptorPool(sets uint32) error {
	var p C.VkDescriptorPool
	if r := C.vkb_create_descriptor_pool(cb.d.c, C.uint32_t(sets), C.uint32_t(sets*descriptorsPerSet), &p); r != C.VK_SUCCESS {
		return cb.d.result("vkCreateDescriptorPool", r)
	}
	cb.descPools = append(cb.descPools, p)
	cb.poolSets = sets
	return nil
}

// bufferOf returns the *buffer of this device behind hb. what names it
// in errors: "binding" is followed by index.
func (cb *commandBuffer) bufferOf(op, what string, index int, hb hal.Buffer) (*buffer, error) {
	b, ok := hb.(*buffer)
	if !ok || b == nil || b.d != cb.d || b.released.Load() {
		if what == "binding" {
			what += " " + strconv.Itoa(index)
		}
	}
	if !ok || b == nil {
		if hb == nil {
			return nil, status.Newf(status.InvalidArgument, "vk: %s: %s is nil", op, what)
		}
		return nil, foreign(op, what)
	}
	if b.d != cb.d {
		return nil, foreign(op, what)
	}
	if b.released.Load() {
		return nil, released(op, what+" "+quote(b.label))
	}
	return b, nil
}

// Dispatch checks everything before it records anything: a call that
// fails leaves the recording as it was.
func (cb *commandBuffer) Dispatch(dp hal.Dispatch) error {
	const op = "Dispatch"
	if err := cb.recording(op); err != nil {
		return err
	}
	d := cb.d
	e, ok := dp.Executable.(*executable)
	if !ok || e == nil {
		if dp.Executable == nil {
			return status.New(status.InvalidArgument, "vk: Dispatch: no executable")
		}
		return foreign(op, "executable")
	}
	if e.d != d {
		return foreign(op, "executable")
	}
	if e.released.Load() {
		return released(op, "executable "+quote(e.label))
	}
	if len(dp.Bindings) != e.bindings {
		return status.Newf(status.InvalidArgument, "vk: Dispatch: %d bindings for executable %q, which has %d", len(dp.Bindings), e.label, e.bindings)
	}
	if len(dp.PushConstants) != e.pushSize {
		return status.Newf(status.InvalidArgument, "vk: Dispatch: %d bytes of push constants for executable %q, which takes %d", len(dp.PushConstants), e.label, e.pushSize)
	}
	limits := &d.info.Limits
	for i, n := range dp.Groups {
		if n == 0 || n > limits.MaxWorkgroupCount[i] {
			return status.Newf(status.InvalidArgument, "vk: Dispatch: %d workgroups in %c; the device allows 1 to %d", n, "xyz"[i], limits.MaxWorkgroupCount[i])
		}
	}
	if cap(cb.bufs) < len(dp.Bindings) {
		cb.bufs = make([]C.VkBuffer, len(dp.Bindings))
		cb.offsets = make([]C.VkDeviceSize, len(dp.Bindings))
		cb.ranges = make([]C.VkDeviceSize, len(dp.Bindings))
	}
	hostBarrier := false
	for i, bd := range dp.Bindings {
		b, err := cb.bufferOf(op, "binding", i, bd.Buffer)
		if err != nil {
			return err
		}
		size := bd.Size
		if size == 0 && bd.Offset >= 0 {
			size = b.size - bd.Offset
		}
		if bd.Offset < 0 || size <= 0 || bd.Offset > b.size || size > b.size-bd.Offset {
			return status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d: range [%d, %d+%d) is not inside buffer %q of %d bytes", i, bd.Offset, bd.Offset, bd.Size, b.label, b.size)
		}
		if uint64(bd.Offset)%limits.MinStorageBufferAlign != 0 {
			return status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d: offset %d is not a multiple of the device's storage-buffer alignment %d", i, bd.Offset, limits.MinStorageBufferAlign)
		}
		if uint64(size) > limits.MaxStorageBufferRange {
			return status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d: range of %d bytes exceeds the device's %d", i, size, limits.MaxStorageBufferRange)
		}
		cb.bufs[i], cb.offsets[i], cb.ranges[i] = b.handle, C.VkDeviceSize(bd.Offset), C.VkDeviceSize(size)
		hostBarrier = hostBarrier || b.kind == hal.HostVisible
	}

	var bufs *C.VkBuffer
	var offsets, ranges *C.VkDeviceSize
	if len(dp.Bindings) > 0 {
		bufs, offsets, ranges = &cb.bufs[0], &cb.offsets[0], &cb.ranges[0]
		if len(cb.descPools) == 0 {
			if err := cb.addDescriptorPool(descriptorSets); err != nil {
				return err
			}
		}
	}
	var push unsafe.Pointer
	if len(dp.PushConstants) > 0 {
		push = unsafe.Pointer(&dp.PushConstants[0])
	}
	for {
		var pool C.VkDescriptorPool
		if len(cb.descPools) > 0 {
			pool = cb.descPools[cb.cur]
		}
		r := C.vkb_cmd_dispatch(d.c, cb.cb, pool, e.p, C.uint32_t(len(dp.Bindings)), bufs, offsets, ranges,
			push, C.uint32_t(len(dp.PushConstants)), C.uint32_t(dp.Groups[0]), C.uint32_t(dp.Groups[1]), C.uint32_t(dp.Groups[2]))
		if r == C.VK_SUCCESS {
			break
		}
		if r != vkErrorOutOfPoolMemory && r != vkErrorFragmentedPool {
			return d.result("vkAllocateDescriptorSets", r)
		}
		// The pool is full: move on to the next, making it if need be.
		if cb.cur+1 == len(cb.descPools) {
			if err := cb.addDescriptorPool(2 * cb.poolSets); err != nil {
				return err
			}
		}
		cb.cur++
	}
	cb.hostBarrier = cb.hostBarrier || hostBarrier
	cb.refs = append(cb.refs, &e.released)
	for i := range dp.Bindings {
		cb.refs = append(cb.refs, &dp.Bindings[i].Buffer.(*buffer).released)
	}
	return nil
}

func (cb *commandBuffer) Copy(src hal.Buffer, srcOffset int64, dst hal.Buffer, dstOffset int64, size int64) error {
	const op = "Copy"
	if err := cb.recording(op); err != nil {
		return err
	}
	s, err := cb.bufferOf(op, "source", 0, src)
	if err != nil {
		return err
	}
	t, err := cb.bufferOf(op, "destination", 0, dst)
	if err != nil {
		return err
	}
	if size <= 0 {
		return status.Newf(status.InvalidArgument, "vk: Copy: size %d is not positive", size)
	}
	if err := s.span(op, srcOffset, size); err != nil {
		return err
	}
	if err := t.span(op, dstOffset, size); err != nil {
		return err
	}
	if s == t && srcOffset < dstOffset+size && dstOffset < srcOffset+size {
		return status.Newf(status.InvalidArgument, "vk: Copy: source [%d, %d+%d) and destination [%d, %d+%d) overlap in buffer %q", srcOffset, srcOffset, size, dstOffset, dstOffset, size, s.label)
	}
	C.vkb_cmd_copy(cb.d.c, cb.cb, s.handle, C.VkDeviceSize(srcOffset), t.handle, C.VkDeviceSize(dstOffset), C.VkDeviceSize(size))
	cb.hostBarrier = cb.hostBarrier || t.kind == hal.HostVisible
	cb.refs = append(cb.refs, &s.released, &t.released)
	return nil
}

func (cb *commandBuffer) Fill(dst hal.Buffer, offset, size int64, value uint32) error {
	const op = "Fill"
	if err := cb.recording(op); err != nil {
		return err
	}
	t, err := cb.bufferOf(op, "destination", 0, dst)
	if err != nil {
		return err
	}
	if size <= 0 || size%4 != 0 || offset%4 != 0 {
		return status.Newf(status.InvalidArgument, "vk: Fill: offset %d and size %d must be multiples of 4 and the size positive", offset, size)
	}
	if err := t.span(op, offset, size); err != nil {
		return err
	}
	C.vkb_cmd_fill(cb.d.c, cb.cb, t.handle, C.VkDeviceSize(offset), C.VkDeviceSize(size), C.uint32_t(value))
	cb.hostBarrier = cb.hostBarrier || t.kind == hal.HostVisible
	cb.refs = append(cb.refs, &t.released)
	return nil
}

func (cb *commandBuffer) Barrier() error {
	if err := cb.recording("Barrier"); err != nil {
		return err
	}
	C.vkb_cmd_barrier(cb.d.c, cb.cb)
	return nil
}

func (cb *commandBuffer) Timestamp(hp hal.TimestampPool, index int) error {
	const op = "Timestamp"
	if err := cb.recording(op); err != nil {
		return err
	}
	p, ok := hp.(*timestampPool)
	if !ok || p == nil {
		if hp == nil {
			return status.New(status.InvalidArgument, "vk: Timestamp: pool is nil")
		}
		return foreign(op, "timestamp pool")
	}
	if p.d != cb.d {
		return foreign(op, "timestamp pool")
	}
	if p.released.Load() {
		return released(op, "timestamp pool")
	}
	if cb.d.info.Limits.TimestampValidBits == 0 {
		return status.Wrapf(hal.ErrUnsupported, status.OK, "vk: Timestamp: the compute queue of %s has no timestamps", cb.d.info.Name)
	}
	if index < 0 || index >= p.count {
		return status.Newf(status.InvalidArgument, "vk: Timestamp: slot %d is outside the pool of %d", index, p.count)
	}
	C.vkb_cmd_timestamp(cb.d.c, cb.cb, p.handle, C.uint32_t(index))
	cb.refs = append(cb.refs, &p.released)
	return nil
}

func (cb *commandBuffer) End() error {
	if err := cb.recording("End"); err != nil {
		return err
	}
	host := C.int(0)
	if cb.hostBarrier {
		host = 1
	}
	if r := C.vkb_end(cb.d.c, cb.cb, host); r != C.VK_SUCCESS {
		cb.state = cbInitial
		return cb.d.result("vkEndCommandBuffer", r)
	}
	cb.state = cbExecutable
	return nil
}

// readyToSubmit checks what Submit needs of the command buffer.
func (cb *commandBuffer) readyToSubmit() error {
	const op = "Submit"
	if err := cb.usable(op); err != nil {
		return err
	}
	if cb.state != cbExecutable {
		return status.New(status.FailedPrecondition, "vk: Submit: command buffer is not ended (call Begin, record, then End)")
	}
	for _, r := range cb.refs {
		if r.Load() {
			return released(op, "an object the command buffer uses")
		}
	}
	return nil
}

// submitted records that the command buffer is in flight until the
// timeline reaches v.
func (cb *commandBuffer) submitted(v uint64) { cb.pending.Store(v) }

// Release frees the command buffer; releasing one in flight is
// hal.ErrInFlight. Once the device is lost, Release waits (boundedly) for
// work the device may still be running, then frees it. A second Release
// returns nil.
func (cb *commandBuffer) Release() error {
	if cb.released.Load() || cb.d.released.Load() {
		return nil
	}
	if cb.d.lost.Load() == nil {
		if busy, err := cb.inFlight("CommandBuffer.Release"); err != nil {
			return err
		} else if busy {
			return inFlight("CommandBuffer.Release")
		}
	}
	cb.d.releaseObject(cb, &cb.released)
	return nil
}
