//go:build cgo

package vk

import (
	"context"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// TestDispatchFailingToRecord fails a dispatch's descriptor-set
// allocation, after every check has passed: the Dispatch fails and
// leaves the recording as it was, holding nothing new, so that the
// executable's next dispatch in the same recording is its first and has
// the build events around it (buildEvents). Before, the failed Dispatch
// kept its holds, the next one took the executable for built and had
// none: the driver's build counted toward the hang timeout.
func TestDispatchFailingToRecord(t *testing.T) {
	d := openDefault(t, true)
	// What CPU devices do; the recording is the same on any device.
	d.buildsAtDispatch = true
	rt := newRoundTrip(t, d)
	defer release(t, rt.exe)
	defer release(t, rt.buf)
	hcb, err := d.CreateCommandBuffer()
	if err != nil {
		t.Fatal(err)
	}
	defer release(t, hcb)
	cb := hcb.(*commandBuffer)
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	dispatch := hal.Dispatch{Executable: rt.exe, Bindings: []hal.Binding{{Buffer: rt.buf}}, Groups: [3]uint32{1, 1, 1}}
	d.failNextAllocation(vkErrorOutOfHostMemory)
	err = cb.Dispatch(dispatch)
	if status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), "vkAllocateDescriptorSets: VK_ERROR_OUT_OF_HOST_MEMORY") {
		t.Fatalf("Dispatch with its descriptor set failing to allocate = %v; want RESOURCE_EXHAUSTED naming vkAllocateDescriptorSets", err)
	}
	if n := len(cb.uses); n != 0 {
		t.Errorf("after the failed Dispatch the recording holds %d objects; want none", n)
	}
	if err := cb.Dispatch(dispatch); err != nil {
		t.Fatalf("Dispatch after the failed one: %v", err)
	}
	if cb.nbuilds != 2 {
		t.Errorf("the executable's first recorded dispatch has %d build events; want 2", cb.nbuilds)
	}
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	f, err := d.Submit(cb)
	if err != nil {
		t.Fatal(err)
	}
	defer release(t, f)
	if err := f.Wait(context.Background()); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}
