//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"sync"
	"time"
	"unsafe"

	"github.com/goki/vulkan"

	"github.com/vkbench/vkbench/status"
)

// This file gives a hand-written Vulkan loop, on goki/vulkan, what it
// needs to run beside the backend on the same device: the raw handles of
// vk's objects and the timeline-semaphore calls (Vulkan 1.2) that goki
// lacks. The RoundTrip benchmark measures the backend against such a loop.

// gokiInit points goki/vulkan at the loader vk opened (goki's own opens
// "libvulkan.so", which only the development package installs) and at
// the device's instance: done on first use only, so that processes that
// never use goki do not pay for it.
func (d *device) gokiInit() error {
	if err := gokiLoad(); err != nil {
		return status.Wrap(err, status.Unavailable, "vk: goki/vulkan Init")
	}
	if err := vulkan.InitInstance(vulkan.Instance(unsafe.Pointer(d.drv.in.c.instance))); err != nil {
		return status.Wrap(err, status.Unavailable, "vk: goki/vulkan InitInstance")
	}
	return nil
}

var gokiLoad = sync.OnceValue(func() error {
	vulkan.SetGetInstanceProcAddr(C.vkb_get_instance_proc_addr())
	return vulkan.Init()
})

// gokiDevice returns the device's VkDevice, its queue and the queue's family.
func (d *device) gokiDevice() (vulkan.Device, vulkan.Queue, uint32) {
	return vulkan.Device(unsafe.Pointer(d.c.device)), vulkan.Queue(unsafe.Pointer(d.c.queue)), uint32(d.c.queue_family)
}

// gokiPipeline returns the executable's pipeline and layouts.
func (e *executable) gokiPipeline() (vulkan.Pipeline, vulkan.PipelineLayout, vulkan.DescriptorSetLayout) {
	return *(*vulkan.Pipeline)(unsafe.Pointer(&e.p.pipeline)),
		*(*vulkan.PipelineLayout)(unsafe.Pointer(&e.p.layout)),
		*(*vulkan.DescriptorSetLayout)(unsafe.Pointer(&e.p.set_layout))
}

// gokiBuffer returns the buffer's VkBuffer.
func (b *buffer) gokiBuffer() vulkan.Buffer { return *(*vulkan.Buffer)(unsafe.Pointer(&b.handle)) }

// timelineSemaphore is a timeline semaphore of a device, apart from the
// one the device submits with.
type timelineSemaphore struct {
	d *device
	s C.VkSemaphore
}

func (d *device) newTimelineSemaphore() (*timelineSemaphore, error) {
	t := &timelineSemaphore{d: d}
	if r := C.vkb_create_timeline(d.c, &t.s); r != C.VK_SUCCESS {
		return nil, d.result("vkCreateSemaphore", r)
	}
	return t, nil
}

// submit submits cb on the device's queue, signalling value when done.
func (t *timelineSemaphore) submit(cb vulkan.CommandBuffer, value uint64) error {
	t.d.queueMu.Lock()
	defer t.d.queueMu.Unlock()
	return t.d.result("vkQueueSubmit", C.vkb_submit_timeline(t.d.c, C.VkCommandBuffer(unsafe.Pointer(cb)), t.s, C.uint64_t(value)))
}

// wait waits until the semaphore reaches value.
func (t *timelineSemaphore) wait(value uint64, timeout time.Duration) error {
	return t.d.result("vkWaitSemaphores", C.vkb_wait_timeline(t.d.c, t.s, C.uint64_t(value), C.uint64_t(timeout)))
}

func (t *timelineSemaphore) destroy() { C.vkb_destroy_semaphore(t.d.c, t.s) }
