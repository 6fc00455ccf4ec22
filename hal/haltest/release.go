package haltest

import (
	"slices"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// releaseAll releases k's objects, each of which must return nil, then
// each again, which must be harmless, then the device likewise.
func (e *env) releaseAll(k *kit) {
	e.Helper()
	for _, o := range k.all {
		releaseWithin(e, time.Minute, o.name+".Release", o.r)
	}
	for _, o := range k.all {
		released(e, "second "+o.name+".Release", o.r.Release())
	}
	e.releaseDevice(k)
}

// releaseDevice releases the device, which must return nil, then again,
// which must be harmless; then checks that it, and k's objects, refuse
// to be used.
func (e *env) releaseDevice(k *kit) {
	e.Helper()
	releaseWithin(e, time.Minute, "Device.Release", e.dev)
	released(e, "second Device.Release", e.dev.Release())
	k.refused(e, 10*time.Second, status.FailedPrecondition, hal.ErrReleased, "after Device.Release")
}

// releaseWithin releases r, which must return nil within d; what names
// the call.
func releaseWithin(e *env, d time.Duration, what string, r interface{ Release() error }) {
	e.Helper()
	Within(e, d, what, func() {
		if err := r.Release(); err != nil {
			e.Errorf("%s: %v", what, err)
		}
	})
}

func testReleaseInOrder(e *env) {
	e.releaseAll(e.newKit())
}

func testReleaseReversed(e *env) {
	k := e.newKit()
	slices.Reverse(k.all)
	e.releaseAll(k)
}

// testReleaseDeviceFirst: the device released with its objects alive,
// which are released with it: they refuse to be used, and releasing them
// afterwards is harmless.
func testReleaseDeviceFirst(e *env) {
	k := e.newKit()
	e.releaseDevice(k)
	for _, o := range k.all {
		released(e, o.name+".Release after the device's", o.r.Release())
	}
}

// testReleasePending: releasing a fence does not wait for its submission,
// and releasing the device waits for the work in flight.
func testReleasePending(e *env) {
	k := e.newKit()
	job := e.newSpinJob(300 * time.Millisecond)
	cb := e.recorded(func(cb hal.CommandBuffer) { job.record(e, cb) })
	f := e.submit(cb)
	releaseWithin(e, time.Second, "Fence.Release of a pending submission", f)
	e.releaseDevice(k)
}
