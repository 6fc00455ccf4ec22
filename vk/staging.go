//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"context"
	"sync"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
)

// stagingChunk is the most one staged copy moves; larger transfers go in
// several. 32 MiB moved 256 MiB 1.08 (write) and 1.28 (read) times as
// fast as 16 MiB on an H100, with fewer submissions to wait on; 64 MiB
// was no faster, and a third slot did not help (bench/RESULTS.md).
const stagingChunk = 32 << 20

// staging moves bytes between the host and device-local buffers through
// host-visible buffers of the device's own: copy into one, submit a copy,
// and so on. It has two slots, each a staging buffer and a command buffer,
// so that the host copies one chunk while the GPU copies the next: a large
// transfer takes about the longer of the two copies, not their sum. One
// transfer at a time per device.
type staging struct {
	mu    sync.Mutex
	slots [2]stagingSlot
}

// stagingSlot is one staging buffer and the command buffer of its copies.
type stagingSlot struct {
	buf  *buffer // created on first use, grown up to stagingChunk
	pool C.VkCommandPool
	cb   C.VkCommandBuffer
	// last is the timeline value of the slot's last copy: its memory and
	// command buffer are busy until the timeline reaches it (a transfer
	// whose context ended may have left its copy running).
	last uint64
}

// chunks moves data between the host and holder, step bytes at a time
// (at most stagingChunk), chunk i through slot i mod 2: it waits for the
// slot's previous copy, fills its buffer (toDevice), has record record
// the copy of the chunk at byte at of data, n bytes long, and submits it;
// reading, it then reads the previous chunk back while the GPU copies
// this one. Once ctx has ended it returns before the next chunk, leaving
// the copies submitted queued and the destination part written. Buffers'
// and images' transfers and an image's first clear (no data) use it. The
// gate must not be held: it is entered for the host's work on each chunk.
func (s *staging) chunks(ctx context.Context, op string, d *device, holder resource, data []byte, step int, toDevice bool,
	record func(cb C.VkCommandBuffer, staging C.VkBuffer, at, n int)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var unread *stagingSlot // reading: the slot whose copy is not read yet
	var unreadChunk []byte
	readBack := func() error {
		if err := d.wait(ctx, op, unread.last); err != nil {
			return err
		}
		if err := d.enter(op); err != nil {
			return err
		}
		parallelCopy(unreadChunk, unread.buf.mapped)
		d.leave()
		return nil
	}
	var last uint64
	for i, at := 0, 0; at == 0 || at < len(data); i, at = i+1, at+step {
		// The slot's wait sees the context only when it has to block.
		if err := ctx.Err(); err != nil {
			return ctxError(op, err)
		}
		slot := &s.slots[i%2]
		if err := d.wait(ctx, op, slot.last); err != nil {
			return err
		}
		chunk := data[at:min(at+step, len(data))]
		v, err := slot.copyChunk(op, d, holder, chunk, toDevice, func(cb C.VkCommandBuffer, staging C.VkBuffer) {
			record(cb, staging, at, len(chunk))
		})
		if err != nil {
			return err
		}
		slot.last, last = v, v
		if !toDevice {
			if unread != nil {
				if err := readBack(); err != nil {
					return err
				}
			}
			unread, unreadChunk = slot, chunk
		}
	}
	if unread != nil {
		return readBack()
	}
	return d.wait(ctx, op, last)
}

// copyChunk records and submits the copy of one chunk between the slot's
// staging buffer (filled from chunk first, toDevice) and the object
// holder, which copy records, and returns the value the copy signals. The
// submission holds holder. The slot is idle.
func (s *stagingSlot) copyChunk(op string, d *device, holder resource, chunk []byte, toDevice bool, copy func(cb C.VkCommandBuffer, staging C.VkBuffer)) (uint64, error) {
	if err := d.enter(op); err != nil {
		return 0, err
	}
	defer d.leave()
	if err := s.ensure(d, len(chunk)); err != nil {
		return 0, err
	}
	if toDevice {
		parallelCopy(s.buf.mapped, chunk)
	}
	if c := C.vkb_begin(d.c, s.pool, s.cb, 0, nil); c.result != C.VK_SUCCESS {
		return 0, d.result(C.GoString(c.call), c.result)
	}
	// Barriers before and after order the copy after earlier work on the
	// queue and before later work; they cover every submission.
	C.vkb_cmd_barrier(d.c, s.cb)
	copy(s.cb, s.buf.handle)
	C.vkb_cmd_barrier(d.c, s.cb)
	if r := C.vkb_end(d.c, s.cb, boolInt(!toDevice)); r != C.VK_SUCCESS {
		return 0, d.result("vkEndCommandBuffer", r)
	}
	return d.submit(op, s.cb, 0, holder, nil)
}

// parallelCopy copies src into dst as copy does, split among the
// processors when there are megabytes to move: one core's memcpy was the
// slowest part of reading a gigabyte back.
func parallelCopy(dst, src []byte) {
	n := min(len(dst), len(src))
	par.Range(n, 1<<20, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// ensure makes the slot's staging buffer at least n bytes long. The slot
// is idle and the gate held when it is called.
func (s *stagingSlot) ensure(d *device, n int) error {
	if s.cb == nil {
		var failed *C.char
		if r := C.vkb_create_command_buffer(d.c, &s.pool, &s.cb, &failed); r != C.VK_SUCCESS {
			return d.result(C.GoString(failed), r)
		}
	}
	if s.buf != nil && s.buf.size >= int64(n) {
		return nil
	}
	size := int64(64 << 10)
	for size < int64(n) {
		size *= 2
	}
	size = min(size, stagingChunk)
	buf, err := d.newBuffer(hal.BufferDesc{Size: size, Memory: hal.HostVisible, Label: "vk-staging"})
	if err != nil {
		return err
	}
	if s.buf != nil {
		s.buf.destroy()
	}
	s.buf = buf
	return nil
}

// destroy frees the staging objects; the device is idle or lost, and
// Release holds the gate for writing. It does not take s.mu: a transfer
// may hold that while it waits to enter the gate, and it touches the
// staging objects only inside the gate.
func (s *staging) destroy(d *device) {
	for i := range s.slots {
		slot := &s.slots[i]
		if slot.buf != nil {
			slot.buf.destroy()
			slot.buf = nil
		}
		if slot.cb != nil {
			C.vkb_destroy_command_pool(d.c, slot.pool)
			slot.cb = nil
		}
	}
}
