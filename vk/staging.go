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
// several.
const stagingChunk = 16 << 20

// staging moves bytes between the host and device-local buffers through a
// host-visible buffer of the device's own: copy into it, submit a copy,
// wait. One transfer at a time per device.
type staging struct {
	mu   sync.Mutex
	buf  *buffer // created on first use, grown up to stagingChunk
	pool C.VkCommandPool
	cb   C.VkCommandBuffer
	// last is the timeline value of the last copy: the staging memory and
	// command buffer are busy until the timeline reaches it (a transfer
	// whose context ended may have left its copy running).
	last uint64
}

// chunks moves data between the host and holder through the staging
// buffer, step bytes at a time (at most stagingChunk): for each chunk it
// waits for the previous copy, fills the staging buffer (toDevice),
// records the copy that record makes of the chunk at byte at of data, n
// bytes long, submits it, waits, and reads the staging buffer back
// (!toDevice). The one protocol of buffers' and images' staged transfers,
// and of an image's first clear, a copy of no data. The gate must not be
// held: it is entered for the host's work on each chunk and left while
// the GPU copies.
func (s *staging) chunks(ctx context.Context, op string, d *device, holder resource, data []byte, step int, toDevice bool,
	record func(cb C.VkCommandBuffer, staging C.VkBuffer, at, n int)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for at := 0; at == 0 || at < len(data); at += step {
		if err := d.wait(ctx, op, s.last); err != nil {
			return err
		}
		chunk := data[at:min(at+step, len(data))]
		v, err := s.copyChunk(op, d, holder, chunk, toDevice, func(cb C.VkCommandBuffer, staging C.VkBuffer) {
			record(cb, staging, at, len(chunk))
		})
		if err != nil {
			return err
		}
		s.last = v
		if err := d.wait(ctx, op, v); err != nil {
			return err
		}
		if !toDevice { // read what the copy brought back
			if err := d.enter(op); err != nil {
				return err
			}
			parallelCopy(chunk, s.buf.mapped)
			d.leave()
		}
	}
	return nil
}

// copyChunk records and submits the copy of one chunk between the staging
// buffer (filled from chunk first, toDevice) and the object holder, which
// copy records, and returns the value the copy signals. The submission
// holds holder. The staging memory is idle.
func (s *staging) copyChunk(op string, d *device, holder resource, chunk []byte, toDevice bool, copy func(cb C.VkCommandBuffer, staging C.VkBuffer)) (uint64, error) {
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
	return d.submit(s.cb, 0, holder)
}

// parallelCopy copies src into dst as copy does, split among the
// processors when there are megabytes to move: one core's memcpy was the
// slowest part of reading a gigabyte back.
func parallelCopy(dst, src []byte) {
	n := min(len(dst), len(src))
	par.Range(n, 1<<20, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// ensure makes the staging buffer at least n bytes long. The staging
// memory is idle and the gate held when it is called.
func (s *staging) ensure(d *device, n int) error {
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
	if s.buf != nil {
		s.buf.destroy()
		s.buf = nil
	}
	if s.cb != nil {
		C.vkb_destroy_command_pool(d.c, s.pool)
		s.cb = nil
	}
}
