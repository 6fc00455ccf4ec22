//go:build cgo

package vk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

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
	d, cb, dispatch := recording(t)
	// What CPU devices do; the recording is the same on any device.
	d.buildsAtDispatch = true
	d.failAllocation(vkErrorOutOfHostMemory, 0)
	err := cb.Dispatch(dispatch)
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
	submitWait(t, d, cb)
}

// TestDispatchFullPool has the descriptor pool report itself full, as a
// GPU's does (lavapipe's never is): the dispatch goes to a new pool of
// twice the sets and runs, and the next recording starts on one pool as
// large as both.
func TestDispatchFullPool(t *testing.T) {
	d, cb, dispatch := recording(t)
	d.failAllocation(vkErrorOutOfPoolMemory, 0)
	if err := cb.Dispatch(dispatch); err != nil {
		t.Fatalf("Dispatch with its first pool full: %v", err)
	}
	if len(cb.descPools) != 2 || cb.poolSets != 2*descriptorSets {
		t.Errorf("after a full pool: %d pools, the last of %d sets; want 2, the last of %d", len(cb.descPools), cb.poolSets, 2*descriptorSets)
	}
	submitWait(t, d, cb)
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	if len(cb.descPools) != 1 || cb.poolSets != 4*descriptorSets {
		t.Errorf("recording again: %d pools, the last of %d sets; want 1 of %d", len(cb.descPools), cb.poolSets, 4*descriptorSets)
	}
	if err := cb.Dispatch(dispatch); err != nil {
		t.Fatalf("Dispatch in the merged pool: %v", err)
	}
	// The merged pool is past poolCap, but not fresh: full, it is left
	// for a new one.
	d.failAllocation(vkErrorOutOfPoolMemory, 0)
	if err := cb.Dispatch(dispatch); err != nil {
		t.Fatalf("Dispatch with the merged pool full: %v", err)
	}
	if len(cb.descPools) != 2 || cb.poolSets != 8*descriptorSets {
		t.Errorf("after the merged pool was full: %d pools, the last of %d sets; want 2, the last of %d", len(cb.descPools), cb.poolSets, 8*descriptorSets)
	}
	submitWait(t, d, cb)
}

// TestPoolCap checks the most sets a fresh pool is grown to: twice the
// first pool, or twice the room of an executable's bindings, a pool
// having a quarter as many of each other kind as storage buffers.
func TestPoolCap(t *testing.T) {
	kinds := func(k hal.BindingKind, n int) []hal.BindingKind { return slices.Repeat([]hal.BindingKind{k}, n) }
	for _, c := range []struct {
		bindings int
		kinds    []hal.BindingKind
		want     uint32
	}{
		{1, nil, 2 * descriptorSets},
		{300, nil, 2 * 38},
		{100, kinds(hal.StorageImageBinding, 100), 100},
		{130, kinds(hal.UniformBufferBinding, 130), 130},
		{2, []hal.BindingKind{hal.StorageBufferBinding, hal.SampledImageBinding}, 2 * descriptorSets},
	} {
		e := &executable{bindings: c.bindings, kinds: c.kinds}
		if got := e.poolCap(); got != c.want {
			t.Errorf("poolCap of %d bindings (kinds %v) = %d; want %d", c.bindings, c.kinds, got, c.want)
		}
	}
}

// TestDispatchPoolNeverFits has every descriptor-set allocation report
// the pool full: the dispatch grows its pool while fresh to poolCap (64
// sets here, twice the first pool) and no further, fails with
// RESOURCE_EXHAUSTED naming the pool's figures, and holds nothing new;
// the recording goes on once allocations succeed. Before, it grew pools
// without end (their sets wrapping past 2³² to none); the test waits 10 s
// for the dispatch, then lets allocations reach the driver and fails.
func TestDispatchPoolNeverFits(t *testing.T) {
	d, cb, dispatch := recording(t)
	d.failAllocation(vkErrorOutOfPoolMemory, 1)
	done := make(chan error, 1)
	go func() { done <- cb.Dispatch(dispatch) }()
	var err error
	select {
	case err = <-done:
		d.failAllocation(0, -1)
	case <-time.After(10 * time.Second):
		d.failAllocation(0, -1)
		err = <-done
		t.Fatalf("Dispatch with every allocation failing was still growing its pools after 10 s: %d pools, the last of %d sets (once allocations succeeded, it returned %v)", len(cb.descPools), cb.poolSets, err)
	}
	const want = "a fresh descriptor pool of 64 sets, 512 storage buffers and 128 each of images and uniform buffers, the most it is grown to, ran out: vk: vkAllocateDescriptorSets: VK_ERROR_OUT_OF_POOL_MEMORY"
	if status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(fmt.Sprint(err), want) {
		t.Fatalf("Dispatch with every allocation failing = %v; want RESOURCE_EXHAUSTED ending %q", err, want)
	}
	if len(cb.descPools) != 2 || cb.poolSets != 2*descriptorSets {
		t.Errorf("after the failed Dispatch: %d pools, the last of %d sets; want 2, the last of %d", len(cb.descPools), cb.poolSets, 2*descriptorSets)
	}
	if n := len(cb.uses); n != 0 {
		t.Errorf("after the failed Dispatch the recording holds %d objects; want none", n)
	}
	if err := cb.Dispatch(dispatch); err != nil {
		t.Fatalf("Dispatch once allocations succeed: %v", err)
	}
	submitWait(t, d, cb)
}

// recording opens a device and begins a command buffer for the returned
// dispatch of an empty kernel.
func recording(t *testing.T) (*device, *commandBuffer, hal.Dispatch) {
	d := openDefault(t, true)
	rt := newRoundTrip(t, d)
	t.Cleanup(func() { release(t, rt.buf); release(t, rt.exe) })
	cb, err := d.CreateCommandBuffer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(t, cb) })
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	return d, cb.(*commandBuffer), hal.Dispatch{Executable: rt.exe, Bindings: []hal.Binding{{Buffer: rt.buf}}, Groups: [3]uint32{1, 1, 1}}
}

// submitWait ends cb's recording, submits it and waits for it.
func submitWait(t *testing.T, d *device, cb *commandBuffer) {
	t.Helper()
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
