//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"context"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

var _ hal.Buffer = (*buffer)(nil)

// Memory property bits (VkMemoryPropertyFlagBits).
const (
	memDeviceLocal  = C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
	memHostVisible  = C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
	memHostCoherent = C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
	memHostCached   = C.VK_MEMORY_PROPERTY_HOST_CACHED_BIT
)

// buffer is a VkBuffer with a VkDeviceMemory of its own, mapped for its
// life if host-visible.
type buffer struct {
	label  string
	size   int64
	kind   hal.MemoryKind
	handle C.VkBuffer
	mem    C.VkDeviceMemory
	mapped []byte // the mapping of host-visible memory; nil otherwise
	lifetime
}

func (d *device) CreateBuffer(desc hal.BufferDesc) (hal.Buffer, error) {
	return create[hal.Buffer](d, "CreateBuffer", func() (resource, error) { return d.newBuffer(desc) })
}

// newBuffer creates a buffer that the device does not track (the staging
// buffer is one). The gate must be held.
func (d *device) newBuffer(desc hal.BufferDesc) (*buffer, error) {
	if desc.Size <= 0 {
		return nil, status.Newf(status.InvalidArgument, "vk: CreateBuffer %q: size %d is not positive", desc.Label, desc.Size)
	}
	if desc.Memory != hal.DeviceLocal && desc.Memory != hal.HostVisible {
		return nil, status.Newf(status.InvalidArgument, "vk: CreateBuffer %q: unknown memory kind %d", desc.Label, desc.Memory)
	}
	size := uint64(desc.Size)
	if err := d.fits("CreateBuffer", desc, size, ^uint32(0)); err != nil {
		return nil, err
	}
	b := &buffer{lifetime: lifetime{d: d}, label: desc.Label, size: desc.Size, kind: desc.Memory}
	var req C.VkMemoryRequirements
	if r := C.vkb_create_buffer(d.c, C.VkDeviceSize(size), &b.handle, &req); r != C.VK_SUCCESS {
		return nil, status.Annotatef(d.result("vkCreateBuffer", r), "vk: CreateBuffer %q of %d bytes", desc.Label, size)
	}
	typ, err := d.memoryType("CreateBuffer", desc, uint64(req.size), uint32(req.memoryTypeBits))
	if err != nil {
		b.destroy()
		return nil, err
	}
	var ptr unsafe.Pointer
	var failed *C.char
	if r := C.vkb_bind_memory(d.c, b.handle, req.size, C.uint32_t(typ), boolInt(desc.Memory == hal.HostVisible), &b.mem, &ptr, &failed); r != C.VK_SUCCESS {
		b.destroy()
		return nil, status.Annotatef(d.result(C.GoString(failed), r), "vk: CreateBuffer %q of %d bytes", desc.Label, size)
	}
	if ptr != nil {
		b.mapped = unsafe.Slice((*byte)(ptr), desc.Size)
	}
	return b, nil
}

// fits checks size against the limits of one buffer and one allocation,
// and against the heaps of the memory types it could use, so that what
// cannot fit fails with ResourceExhausted before Vulkan is asked (asking
// may be a validation error, or succeed on the CPU by overcommitting).
func (d *device) fits(op string, desc hal.BufferDesc, size uint64, typeBits uint32) error {
	exhausted := func(what string, limit uint64) error {
		return status.Newf(status.ResourceExhausted, "vk: %s %q: %d bytes exceed the device's %s of %d bytes", op, desc.Label, size, what, limit)
	}
	if m := d.pd.maxBuffer; m > 0 && size > m {
		return exhausted("largest buffer (maxBufferSize)", m)
	}
	if m := d.pd.maxAlloc; m > 0 && size > m {
		return exhausted("largest allocation (maxMemoryAllocationSize)", m)
	}
	var heap uint64
	for i, t := range d.pd.types {
		if typeBits&(1<<i) != 0 && kindMatches(desc.Memory, t.flags) {
			heap = max(heap, t.heapSize)
		}
	}
	if heap > 0 && size > heap {
		return exhausted(desc.Memory.String()+" memory heap", heap)
	}
	return nil
}

func kindMatches(kind hal.MemoryKind, flags uint32) bool {
	if kind == hal.HostVisible {
		return flags&(memHostVisible|memHostCoherent) == memHostVisible|memHostCoherent
	}
	return flags&memDeviceLocal != 0
}

// memoryType chooses the memory type of a buffer: device-local memory for
// DeviceLocal; for HostVisible, host-visible coherent memory, cached if
// there is such (reading back uncached memory is slow).
func (d *device) memoryType(op string, desc hal.BufferDesc, size uint64, typeBits uint32) (int, error) {
	best, bestScore := -1, -1
	for i, t := range d.pd.types {
		if typeBits&(1<<i) == 0 || !kindMatches(desc.Memory, t.flags) || size > t.heapSize {
			continue
		}
		score := 0
		if desc.Memory == hal.HostVisible && t.flags&memHostCached != 0 {
			score = 1
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		if err := d.fits(op, desc, size, typeBits); err != nil {
			return 0, err
		}
		return 0, status.Newf(status.Unimplemented, "vk: %s %q: the device has no %s memory type for it", op, desc.Label, desc.Memory)
	}
	return best, nil
}

// destroy frees the buffer (and unmaps it). mapped is left as it was, set
// once at creation: nothing reads it after, since every access holds the
// buffer inside the gate (lifetime.go).
func (b *buffer) destroy() {
	C.vkb_destroy_buffer(b.d.c, b.handle, b.mem)
}

func (b *buffer) Size() int64            { return b.size }
func (b *buffer) Memory() hal.MemoryKind { return b.kind }

// span checks that [offset, offset+n) lies inside the buffer.
func (b *buffer) span(op string, offset, n int64) error {
	if offset < 0 || n < 0 || offset > b.size || n > b.size-offset {
		return status.Newf(status.InvalidArgument, "vk: %s: range [%d, %d+%d) is outside buffer %q of %d bytes", op, offset, offset, n, b.label, b.size)
	}
	return nil
}

func (b *buffer) Write(ctx context.Context, offset int64, data []byte) error {
	return b.transfer(ctx, "Buffer.Write", offset, data, true)
}

func (b *buffer) Read(ctx context.Context, offset int64, dst []byte) error {
	return b.transfer(ctx, "Buffer.Read", offset, dst, false)
}

// transfer is Write (toDevice) and Read. The call holds the buffer, and
// a mapped copy the gate too, so that no Release unmaps the memory under
// it; a staged copy holds the buffer until the timeline passes it.
func (b *buffer) transfer(ctx context.Context, op string, offset int64, data []byte, toDevice bool) error {
	if err := b.d.hold(b, op); err != nil {
		return err
	}
	defer b.d.drop(b)
	if err := b.span(op, offset, int64(len(data))); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return ctxError(op, err)
	}
	if len(data) == 0 {
		return nil
	}
	if b.mapped == nil {
		return b.d.staging.chunks(ctx, op, b.d, b, data, stagingChunk, toDevice, func(cb C.VkCommandBuffer, staging C.VkBuffer, at, n int) {
			off := C.VkDeviceSize(offset + int64(at))
			if toDevice {
				C.vkb_cmd_copy(b.d.c, cb, staging, 0, b.handle, off, C.VkDeviceSize(n))
			} else {
				C.vkb_cmd_copy(b.d.c, cb, b.handle, off, staging, 0, C.VkDeviceSize(n))
			}
		})
	}
	if err := b.d.enter(op); err != nil {
		return err
	}
	defer b.d.leave()
	if toDevice {
		copy(b.mapped[offset:], data)
	} else {
		copy(data, b.mapped[offset:])
	}
	return nil
}
