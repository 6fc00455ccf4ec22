//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"slices"
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
// descriptorsPerSet storage buffers each, and imagesPerSet each of storage
// images, sampled images and uniform buffers (rarer: a quarter as many),
// and double when they run out, up to poolCap for a pool that runs out at
// its first dispatch.
const (
	descriptorSets    = 32
	descriptorsPerSet = 8
	imagesPerSet      = descriptorsPerSet / 4
)

// commandBuffer is a VkCommandBuffer with a command pool and descriptor
// pools of its own, all reset at Begin.
type commandBuffer struct {
	pool  C.VkCommandPool
	cb    C.VkCommandBuffer
	state int
	// pending is the timeline value of its last submission: it is in
	// flight until the timeline reaches it (0: never submitted).
	pending atomic.Uint64

	// descPools are reset at Begin; dispatches allocate from the last,
	// moving on to a new one, twice as large, when it is full.
	descPools []C.VkDescriptorPool
	poolSets  uint32 // sets of the last pool made
	fresh     bool   // no set allocated from the last since made or reset

	// hostBarrier is set when the recording writes host-visible memory,
	// which then needs a barrier to the host at End.
	hostBarrier bool
	// uses are the objects the recording holds (lifetime.go), each once,
	// until the next Begin or the command buffer's destruction; guarded by
	// device.mu.
	uses map[resource]struct{}

	// builds are the events that mark a recording's builds, two for each
	// (buildEvents): the recording sets builds[:nbuilds], in order. Made
	// as needed, kept until the command buffer's destruction.
	builds  []C.VkEvent
	nbuilds int

	// Scratch for Dispatch, kept to spare allocations.
	scratch []resource
	binds   []C.vkb_binding

	lifetime
}

func (d *device) CreateCommandBuffer() (hal.CommandBuffer, error) {
	return create[hal.CommandBuffer](d, "CreateCommandBuffer", func() (resource, error) {
		cb := &commandBuffer{lifetime: lifetime{d: d}, uses: map[resource]struct{}{}}
		var failed *C.char
		if r := C.vkb_create_command_buffer(d.c, &cb.pool, &cb.cb, &failed); r != C.VK_SUCCESS {
			return nil, d.result(C.GoString(failed), r)
		}
		return cb, nil
	})
}

// destroy frees the command buffer and ends its recording's holds.
func (cb *commandBuffer) destroy() {
	cb.unuseLocked()
	for _, p := range cb.descPools {
		C.vkb_destroy_descriptor_pool(cb.d.c, p)
	}
	cb.descPools = nil
	for _, e := range cb.builds {
		C.vkb_destroy_event(cb.d.c, e)
	}
	C.vkb_destroy_command_pool(cb.d.c, cb.pool)
}

// enter is what every call but Release does first: check the device and
// the command buffer, enter the gate, hold the command buffer (so that a
// Release from another goroutine waits for the call to end), and check
// that its last submission, if any, has finished. leave undoes it.
func (cb *commandBuffer) enter(op string) error {
	if err := cb.d.enterHolding(op, cb); err != nil {
		return err
	}
	if v := cb.pending.Load(); v != 0 {
		done, err := cb.d.reached(v)
		if err == nil && !done {
			err = inFlight(op)
		}
		if err != nil {
			cb.leave()
			return err
		}
		cb.pending.CompareAndSwap(v, 0)
	}
	return nil
}

func (cb *commandBuffer) leave() { cb.d.leaveHolding(cb) }

// record is every recording call: enter, check that the command buffer
// is recording, rec, leave.
func (cb *commandBuffer) record(op string, rec func() error) error {
	if err := cb.enter(op); err != nil {
		return err
	}
	defer cb.leave()
	if cb.state != cbRecording {
		return status.Newf(status.FailedPrecondition, "vk: %s: command buffer is not recording (call Begin first)", op)
	}
	return rec()
}

// use makes the recording hold rs, checking first that none was released,
// so that a call that fails holds nothing new. It moves those it holds
// anew to the front of rs and returns how many they are: a call that
// fails after it gives them back (unuse).
func (cb *commandBuffer) use(op string, rs ...resource) (int, error) {
	d := cb.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range rs {
		if l := r.life(); l.released.Load() || l.dead {
			return 0, released(op, describe(r))
		}
	}
	fresh := 0
	for i, r := range rs {
		if _, ok := cb.uses[r]; !ok {
			cb.uses[r] = struct{}{}
			r.life().holds++
			rs[fresh], rs[i] = r, rs[fresh]
			fresh++
		}
	}
	return fresh, nil
}

// unuse ends the holds of rs that use took anew.
func (cb *commandBuffer) unuse(rs []resource) {
	cb.d.mu.Lock()
	defer cb.d.mu.Unlock()
	for _, r := range rs {
		delete(cb.uses, r)
		cb.d.dropLocked(r)
	}
}

// unuseLocked ends the recording's holds. device.mu must be held.
func (cb *commandBuffer) unuseLocked() {
	for r := range cb.uses {
		cb.d.dropLocked(r)
	}
	clear(cb.uses)
}

// describe names an object in errors.
func describe(r resource) string {
	switch r := r.(type) {
	case *buffer:
		return "buffer " + strconv.Quote(r.label)
	case *executable:
		return "executable " + strconv.Quote(r.label)
	case *timestampPool:
		return "timestamp pool"
	case *image:
		return "image " + strconv.Quote(r.desc.Label)
	case *sampler:
		return "sampler " + strconv.Quote(r.desc.Label)
	}
	return "command buffer"
}

func (cb *commandBuffer) Begin() error {
	if err := cb.enter("Begin"); err != nil {
		return err
	}
	defer cb.leave()
	d := cb.d
	d.mu.Lock()
	cb.unuseLocked()
	d.mu.Unlock()
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
	cb.fresh, cb.nbuilds = true, 0
	cb.hostBarrier = false
	if c := C.vkb_begin(d.c, cb.pool, cb.cb, C.uint32_t(len(cb.descPools)), first(cb.descPools)); c.result != C.VK_SUCCESS {
		cb.state = cbInitial
		return d.result(C.GoString(c.call), c.result)
	}
	cb.state = cbRecording
	return nil
}

func (cb *commandBuffer) addDescriptorPool(sets uint32) error {
	var p C.VkDescriptorPool
	if r := C.vkb_create_descriptor_pool(cb.d.c, C.uint32_t(sets), C.uint32_t(sets*descriptorsPerSet), C.uint32_t(sets*imagesPerSet), &p); r != C.VK_SUCCESS {
		return cb.d.result("vkCreateDescriptorPool", r)
	}
	cb.descPools = append(cb.descPools, p)
	cb.poolSets, cb.fresh = sets, true
	return nil
}

// poolCap is the most sets a pool that a dispatch of e finds full while
// still fresh is grown to: twice the first pool, or twice the room e's
// sets and bindings need, whichever is more. CreateExecutable kept e's
// sets within the device's maxBoundDescriptorSets and its bindings within
// the per-set and per-stage limits of each kind, and so the cap; a fresh
// pool of it that is full is full for another reason than its size.
func (e *executable) poolCap() uint32 {
	var count [4]uint32
	for i := range e.bindings {
		k := hal.StorageBufferBinding
		if e.kinds != nil {
			k = e.kinds[i]
		}
		count[k]++
	}
	sets := uint32(1)
	if e.sets != nil {
		sets = uint32(e.sets.n)
	}
	images := max(count[hal.StorageImageBinding], count[hal.SampledImageBinding], count[hal.UniformBufferBinding])
	need := max(descriptorSets, sets, (count[hal.StorageBufferBinding]+descriptorsPerSet-1)/descriptorsPerSet, (images+imagesPerSet-1)/imagesPerSet)
	return 2 * need
}

// Dispatch checks everything before it records anything: a call that
// fails leaves the recording as it was, holding nothing new, so that the
// executable's next dispatch is still its first (buildEvents).
func (cb *commandBuffer) Dispatch(dp hal.Dispatch) error {
	const op = "Dispatch"
	return cb.record(op, func() error {
		e, err := cb.checkDispatch(dp)
		if err != nil {
			return err
		}
		build, err := cb.buildEvents(e)
		if err != nil {
			return err
		}
		fresh, err := cb.use(op, cb.scratch...)
		if err != nil {
			return err
		}
		if err := cb.recordDispatch(e, dp, build); err != nil {
			cb.unuse(cb.scratch[:fresh])
			return err
		}
		if build != nil {
			cb.nbuilds += 2
		}
		for _, r := range cb.scratch {
			if b, ok := r.(*buffer); ok {
				cb.hostBarrier = cb.hostBarrier || b.kind == hal.HostVisible
			}
		}
		return nil
	})
}

// checkDispatch checks a dispatch against its executable, its bindings
// and the device's limits, fills the scratch arrays with its bindings and
// the objects it uses, and returns its executable.
func (cb *commandBuffer) checkDispatch(dp hal.Dispatch) (*executable, error) {
	const op = "Dispatch"
	d := cb.d
	e, err := objectOf[*executable](d, op, "executable", -1, dp.Executable)
	if err != nil {
		return nil, err
	}
	if len(dp.Bindings) != e.bindings {
		return nil, status.Newf(status.InvalidArgument, "vk: Dispatch: %d bindings for executable %q, which has %d", len(dp.Bindings), e.label, e.bindings)
	}
	if len(dp.PushConstants) != e.pushSize {
		return nil, status.Newf(status.InvalidArgument, "vk: Dispatch: %d bytes of push constants for executable %q, which takes %d", len(dp.PushConstants), e.label, e.pushSize)
	}
	limits := &d.info.Limits
	for i, n := range dp.Groups {
		if n == 0 || n > limits.MaxWorkgroupCount[i] {
			return nil, status.Newf(status.InvalidArgument, "vk: Dispatch: %d workgroups in %c; the device allows 1 to %d", n, "xyz"[i], limits.MaxWorkgroupCount[i])
		}
	}
	if n := len(dp.Bindings); len(cb.binds) < n {
		cb.binds = make([]C.vkb_binding, n)
	}
	cb.scratch = append(cb.scratch[:0], e)
	for i, bd := range dp.Bindings {
		kind := hal.StorageBufferBinding
		if e.kinds != nil {
			kind = e.kinds[i]
		}
		if !kind.IsBuffer() {
			if err := cb.checkImageBinding(e, i, bd); err != nil {
				return nil, err
			}
			continue
		}
		b, err := objectOf[*buffer](d, op, "binding", i, bd.Buffer)
		if err != nil {
			return nil, err
		}
		if bd.Image != nil || bd.Sampler != nil {
			return nil, status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d is a %s of executable %q, but has an image or a sampler", i, kind, e.label)
		}
		size := bd.Size
		if size == 0 && bd.Offset >= 0 {
			size = b.size - bd.Offset
		}
		if bd.Offset < 0 || size <= 0 || bd.Offset > b.size || size > b.size-bd.Offset {
			return nil, status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d: range [%d, %d+%d) is not inside buffer %q of %d bytes", i, bd.Offset, bd.Offset, bd.Size, b.label, b.size)
		}
		align, maxRange := limits.MinStorageBufferAlign, limits.MaxStorageBufferRange
		if kind == hal.UniformBufferBinding {
			align, maxRange = limits.MinUniformBufferAlign, limits.MaxUniformBufferRange
		}
		if uint64(bd.Offset)%align != 0 {
			return nil, status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d: offset %d is not a multiple of the device's %s alignment %d", i, bd.Offset, kind, align)
		}
		if uint64(size) > maxRange {
			return nil, status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d: range of %d bytes exceeds the device's %d for a %s", i, size, maxRange, kind)
		}
		cb.binds[i] = C.vkb_binding{
			buffer: C.VkDescriptorBufferInfo{buffer: b.handle, offset: C.VkDeviceSize(bd.Offset), _range: C.VkDeviceSize(size)},
			_type:  descriptorTypes[kind],
		}
		cb.scratch = append(cb.scratch, b)
	}
	return e, nil
}

// buildEvents returns, on a device that builds a kernel at its first
// dispatch (device.buildsAtDispatch), two events for the recording's
// first dispatch of e to set around the build, which it makes happen
// apart from the dispatch (vkb_cmd_dispatch): a submission's run counts
// from when the device was last seen to progress (device.hung), and a
// build is the driver's work, not a kernel running. Nil on other
// devices, and for e's later dispatches. Asked before the recording
// holds e.
func (cb *commandBuffer) buildEvents(e *executable) (*C.VkEvent, error) {
	d := cb.d
	if !d.buildsAtDispatch {
		return nil, nil
	}
	d.mu.Lock()
	_, recorded := cb.uses[e]
	d.mu.Unlock()
	if recorded {
		return nil, nil
	}
	for len(cb.builds) < cb.nbuilds+2 {
		var ev C.VkEvent
		if r := C.vkb_create_event(d.c, &ev); r != C.VK_SUCCESS {
			return nil, d.result("vkCreateEvent", r)
		}
		cb.builds = append(cb.builds, ev)
	}
	return &cb.builds[cb.nbuilds], nil
}

// buildMarks are the build events that a submission in flight sets, in
// order, of which it was last seen to have set the first seen. Its own
// copy: the command buffer may be recorded again once the submission is
// done, before the device has retired it.
type buildMarks struct {
	events []C.VkEvent
	seen   int
}

// marks resets the build events of cb's recording, which an earlier run
// of it left set, for a submission of it, and returns them (nil if none).
func (cb *commandBuffer) marks() *buildMarks {
	if cb.nbuilds == 0 {
		return nil
	}
	C.vkb_reset_events(cb.d.c, C.uint32_t(cb.nbuilds), &cb.builds[0])
	return &buildMarks{events: slices.Clone(cb.builds[:cb.nbuilds])}
}

// building reports whether the submission is building a kernel, or has
// finished building one since last asked. device.mu must be held, and
// the gate.
func (m *buildMarks) building(d *device) bool {
	was := m.seen
	for m.seen < len(m.events) && C.vkb_event_set(d.c, m.events[m.seen]) == C.VK_EVENT_SET {
		m.seen++
	}
	return m.seen%2 == 1 || m.seen/2 > was/2
}

// recordDispatch records a checked dispatch whose bindings are in the
// scratch arrays, allocating its descriptor set from the pools (and
// growing them when they are full, to poolCap for a fresh one); build as
// buildEvents returns.
func (cb *commandBuffer) recordDispatch(e *executable, dp hal.Dispatch, build *C.VkEvent) error {
	d := cb.d
	if len(dp.Bindings) > 0 && len(cb.descPools) == 0 {
		if err := cb.addDescriptorPool(descriptorSets); err != nil {
			return err
		}
	}
	for {
		var pool C.VkDescriptorPool
		if n := len(cb.descPools); n > 0 {
			pool = cb.descPools[n-1]
		}
		r := C.vkb_cmd_dispatch(d.c, cb.cb, pool, e.p, e.sets, C.uint32_t(len(dp.Bindings)), first(cb.binds[:len(dp.Bindings)]), boolInt(e.kinds != nil),
			unsafe.Pointer(first(dp.PushConstants)), C.uint32_t(len(dp.PushConstants)), build, C.uint32_t(dp.Groups[0]), C.uint32_t(dp.Groups[1]), C.uint32_t(dp.Groups[2]))
		if r == C.VK_SUCCESS {
			cb.fresh = cb.fresh && len(dp.Bindings) == 0
			return nil
		}
		if r != vkErrorOutOfPoolMemory && r != vkErrorFragmentedPool {
			return d.result("vkAllocateDescriptorSets", r)
		}
		if cb.fresh && cb.poolSets >= e.poolCap() {
			return status.Annotatef(d.result("vkAllocateDescriptorSets", r),
				"vk: Dispatch: executable %q (%d bindings): a fresh descriptor pool of %d sets, %d storage buffers and %d each of images and uniform buffers, the most it is grown to, ran out",
				e.label, e.bindings, cb.poolSets, cb.poolSets*descriptorsPerSet, cb.poolSets*imagesPerSet)
		}
		if err := cb.addDescriptorPool(2 * cb.poolSets); err != nil {
			return err
		}
	}
}

// failAllocation makes the device's next descriptor-set allocation
// (always 0), or every one (1), fail with r, and none again (-1, from any
// goroutine): test support, for a dispatch that fails once checked.
func (d *device) failAllocation(r int32, always int) {
	C.vkb_test_fail_allocation(d.c, C.VkResult(r), C.int(always))
}

func (cb *commandBuffer) Copy(src hal.Buffer, srcOffset int64, dst hal.Buffer, dstOffset int64, size int64) error {
	const op = "Copy"
	return cb.record(op, func() error {
		s, err := objectOf[*buffer](cb.d, op, "source", -1, src)
		if err != nil {
			return err
		}
		t, err := objectOf[*buffer](cb.d, op, "destination", -1, dst)
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
		if _, err := cb.use(op, s, t); err != nil {
			return err
		}
		C.vkb_cmd_copy(cb.d.c, cb.cb, s.handle, C.VkDeviceSize(srcOffset), t.handle, C.VkDeviceSize(dstOffset), C.VkDeviceSize(size))
		cb.hostBarrier = cb.hostBarrier || t.kind == hal.HostVisible
		return nil
	})
}

func (cb *commandBuffer) Fill(dst hal.Buffer, offset, size int64, value uint32) error {
	const op = "Fill"
	return cb.record(op, func() error {
		t, err := objectOf[*buffer](cb.d, op, "destination", -1, dst)
		if err != nil {
			return err
		}
		if size <= 0 || size%4 != 0 || offset%4 != 0 {
			return status.Newf(status.InvalidArgument, "vk: Fill: offset %d and size %d must be multiples of 4 and the size positive", offset, size)
		}
		if err := t.span(op, offset, size); err != nil {
			return err
		}
		if _, err := cb.use(op, t); err != nil {
			return err
		}
		C.vkb_cmd_fill(cb.d.c, cb.cb, t.handle, C.VkDeviceSize(offset), C.VkDeviceSize(size), C.uint32_t(value))
		cb.hostBarrier = cb.hostBarrier || t.kind == hal.HostVisible
		return nil
	})
}

func (cb *commandBuffer) Barrier() error {
	return cb.record("Barrier", func() error {
		C.vkb_cmd_barrier(cb.d.c, cb.cb)
		return nil
	})
}

func (cb *commandBuffer) Timestamp(hp hal.TimestampPool, index int) error {
	const op = "Timestamp"
	return cb.record(op, func() error {
		p, err := objectOf[*timestampPool](cb.d, op, "timestamp pool", -1, hp)
		if err != nil {
			return err
		}
		if index < 0 || index >= p.count {
			return status.Newf(status.InvalidArgument, "vk: Timestamp: slot %d is outside the pool of %d", index, p.count)
		}
		if _, err := cb.use(op, p); err != nil {
			return err
		}
		C.vkb_cmd_timestamp(cb.d.c, cb.cb, p.handle, C.uint32_t(index))
		return nil
	})
}

func (cb *commandBuffer) End() error {
	return cb.record("End", func() error {
		if r := C.vkb_end(cb.d.c, cb.cb, boolInt(cb.hostBarrier)); r != C.VK_SUCCESS {
			cb.state = cbInitial
			return cb.d.result("vkEndCommandBuffer", r)
		}
		cb.state = cbExecutable
		return nil
	})
}
