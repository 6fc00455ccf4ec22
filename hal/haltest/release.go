package haltest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/vkbench/vkbench/hal"
)

// object is something to release, named for messages.
type object struct {
	name string
	r    interface{ Release() error }
}

// objects makes some of every kind of object and uses them once, so that
// each holds what use makes it hold.
func (e *env) objects() []object {
	e.Helper()
	var objs []object
	keep := func(r interface{ Release() error }, format string, args ...any) {
		objs = append(objs, object{fmt.Sprintf(format, args...), r})
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for i := range 10 {
		for _, mem := range memoryKinds {
			b := e.buffer(int64(64+4*i), mem)
			e.write(b, 0, randomBytes(rng, int(b.Size())))
			keep(b, "%v Buffer %d", mem, i)
		}
	}
	for _, k := range []kernel{kernelAdd, kernelFillIota, kernelEmpty} {
		keep(e.executable(k), "Executable %s", k.name)
	}
	var pool hal.TimestampPool
	if e.info.Limits.TimestampValidBits > 0 {
		pool = e.timestampPool(4)
		keep(pool, "TimestampPool")
		keep(e.timestampPool(1), "TimestampPool (unused)")
	}
	x := e.executable(kernelAdd)
	keep(x, "Executable add (used)")
	for i := range 5 {
		c := e.newAddCase(rng, 100+i, hal.DeviceLocal)
		keep(c.a, "Buffer a %d", i)
		keep(c.b, "Buffer b %d", i)
		keep(c.c, "Buffer c %d", i)
		cb := e.commandBuffer()
		keep(cb, "CommandBuffer %d", i)
		e.record(cb, func() { e.stamped(cb, pool, c.dispatch(x)) })
		f := e.submit(cb)
		keep(f, "Fence %d", i)
		e.wait(f, "add")
		c.check(e, "add")
	}
	keep(e.commandBuffer(), "CommandBuffer (never recorded)")
	return objs
}

// releaseAll releases objs, each of which must return nil, then each
// again, which must be harmless, then the device likewise.
func (e *env) releaseAll(objs []object) {
	e.Helper()
	for _, o := range objs {
		if err := o.r.Release(); err != nil {
			e.Errorf("%s.Release: %v", o.name, err)
		}
	}
	for _, o := range objs {
		released(e, "second "+o.name+".Release", o.r.Release())
	}
	e.releaseDevice()
}

// releaseDevice releases the device, which must return nil, then again,
// which must be harmless; then checks that it refuses to be used.
func (e *env) releaseDevice() {
	e.Helper()
	within(e, time.Minute, "Device.Release", func() {
		if err := e.dev.Release(); err != nil {
			e.Errorf("Device.Release: %v", err)
		}
	})
	released(e, "second Device.Release", e.dev.Release())

	_, err := e.dev.CreateBuffer(hal.BufferDesc{Size: 64, Memory: hal.HostVisible})
	wantReleased(e, "CreateBuffer of a released device", err)
	_, err = e.dev.CreateExecutable(hal.ExecutableDesc{SPIRV: kernelEmpty.spirv})
	wantReleased(e, "CreateExecutable of a released device", err)
	_, err = e.dev.CreateCommandBuffer()
	wantReleased(e, "CreateCommandBuffer of a released device", err)
	if e.info.Limits.TimestampValidBits > 0 {
		_, err = e.dev.CreateTimestampPool(2)
		wantReleased(e, "CreateTimestampPool of a released device", err)
	}
}

// testReleaseInOrder: objects released in the order they were made, then
// the device.
func testReleaseInOrder(e *env) {
	e.releaseAll(e.objects())
}

// testReleaseReversed: objects released last made first, then the device.
func testReleaseReversed(e *env) {
	objs := e.objects()
	slices.Reverse(objs)
	e.releaseAll(objs)
}

// testReleaseDeviceFirst: the device released with its objects alive,
// which are released with it: they refuse to be used, and releasing them
// afterwards is harmless.
func testReleaseDeviceFirst(e *env) {
	objs := e.objects()
	var buf hal.Buffer
	var cb hal.CommandBuffer
	var f hal.Fence
	for _, o := range objs {
		switch r := o.r.(type) {
		case hal.Buffer:
			buf = r
		case hal.CommandBuffer:
			cb = r
		case hal.Fence:
			f = r
		}
	}
	e.releaseDevice()
	wantReleased(e, "Buffer.Write of an object of a released device", buf.Write(e.ctx, 0, make([]byte, 4)))
	wantReleased(e, "Buffer.Read of an object of a released device", buf.Read(e.ctx, 0, make([]byte, 4)))
	wantReleased(e, "CommandBuffer.Begin of an object of a released device", cb.Begin())
	within(e, 10*time.Second, "Fence.Wait of a fence of a released device", func() {
		wantReleased(e, "Fence.Wait of an object of a released device", f.Wait(e.ctx))
	})
	for _, o := range objs {
		released(e, o.name+".Release after the device's", o.r.Release())
	}
}

// testReleasePending: releasing a fence does not wait for its submission,
// and releasing the device waits for the work in flight.
func testReleasePending(e *env) {
	job := e.newSpinJob(300 * time.Millisecond)
	cb := e.commandBuffer()
	e.record(cb, func() { job.record(e, cb) })
	f, err := e.dev.Submit(cb)
	if err != nil {
		e.Fatalf("Submit: %v", err)
	}
	within(e, time.Second, "Fence.Release of a pending submission", func() {
		if err := f.Release(); err != nil {
			e.Errorf("Fence.Release of a pending submission: %v", err)
		}
	})
	e.releaseDevice()
}
