package haltest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// OpenFunc opens a fresh device for one subtest; the suite releases it. It
// reports a failure to open through t (t.Fatal or t.Skip). Every call must
// open a new logical device of the same physical device.
type OpenFunc func(t testing.TB) hal.Device

// Options adjust TestDeviceOptions. The zero Options is TestDevice's.
type Options struct {
	// Messages, if not nil, returns how many validation and driver
	// messages the backend has reported so far. A subtest during which the
	// count grows fails.
	Messages func() int
}

// TestDevice runs the conformance suite on the devices that open returns:
// one subtest per property, each on a fresh device. See the package
// documentation for the properties.
func TestDevice(t *testing.T, open OpenFunc) {
	TestDeviceOptions(t, open, Options{})
}

// TestDeviceOptions is TestDevice with options.
func TestDeviceOptions(t *testing.T, open OpenFunc, opts Options) {
	if opts.Messages == nil {
		opts.Messages = func() int { return 0 }
	}
	s := &suite{open: open, opts: opts}
	s.run(t, "Info", testInfo)
	s.run(t, "BufferReadWrite", testBufferReadWrite)
	s.run(t, "Dispatch", testDispatch)
	s.run(t, "DescriptorSets", testDispatchSets)
	s.run(t, "Specialization", testSpecialization)
	s.run(t, "PushConstants", testPushConstants)
	s.run(t, "CopyFillBarrier", testCopyFillBarrier)
	s.run(t, "Timestamps", testTimestamps)
	s.run(t, "ImageReadWrite", testImageReadWrite)
	s.run(t, "ImageDispatch", testImageDispatch)
	t.Run("SyncErrors", func(t *testing.T) {
		s.run(t, "BufferSize", testErrBufferSize)
		s.run(t, "Executable", testErrExecutable)
		s.run(t, "Record", testErrRecord)
		s.run(t, "Foreign", testErrForeign)
		s.run(t, "Released", testErrReleased)
		s.run(t, "Submit", testErrSubmit)
		s.run(t, "Images", testErrImages)
	})
	s.run(t, "WaitContext", testWaitContext)
	s.run(t, "ManySubmissions", testManySubmissions)
	s.run(t, "SubmissionChain", testSubmissionChain)
	s.run(t, "DeviceLoss", testDeviceLoss)
	t.Run("Release", func(t *testing.T) {
		s.run(t, "InOrder", testReleaseInOrder)
		s.run(t, "Reversed", testReleaseReversed)
		s.run(t, "DeviceFirst", testReleaseDeviceFirst)
		s.run(t, "PendingWork", testReleasePending)
	})
	t.Run("Ownership", func(t *testing.T) {
		s.run(t, "ReleaseAfterSubmit", testReleaseAfterSubmit)
		s.run(t, "ReleaseWhileWaiting", testReleaseWhileWaiting)
		s.run(t, "WaitInterrupted", testWaitInterrupted)
		s.run(t, "CloseRacing", testCloseRacing)
		s.run(t, "ImageReleaseAfterSubmit", testImageReleaseAfterSubmit)
	})
	s.run(t, "Concurrency", testConcurrency)
}

// waitTimeout bounds every wait of the suite, so that a hang fails the
// subtest that hung instead of the whole test binary.
const waitTimeout = 2 * time.Minute

// suite is one run of TestDevice.
type suite struct {
	open OpenFunc
	opts Options

	mu sync.Mutex
	// spinNanos is how long one iteration of a kernelSpin dispatch takes
	// on this device, measured once.
	spinNanos float64
}

// run runs f as the subtest name, on a fresh device, and checks, after
// everything else the subtest cleans up, that no goroutine it started is
// left and that no validation message came.
func (s *suite) run(t *testing.T, name string, f func(e *env)) {
	t.Run(name, func(t *testing.T) {
		ignore := goleak.IgnoreCurrent()
		before := s.opts.Messages()
		t.Cleanup(func() {
			if n := s.opts.Messages() - before; n > 0 {
				t.Errorf("the backend reported %d validation or driver messages during this subtest", n)
			}
			if err := goleak.Find(ignore); err != nil {
				t.Errorf("goroutines left behind after every device was released: %v", err)
			}
		})
		f(s.env(t))
	})
}

// env is what a property works with: its test, its device and helpers
// that fail the test on unexpected errors.
type env struct {
	*testing.T
	s    *suite
	dev  hal.Device
	info hal.DeviceInfo
	// ctx bounds the subtest's waits by waitTimeout.
	ctx context.Context
}

// env opens a device that t releases when it ends.
func (s *suite) env(t *testing.T) *env {
	t.Helper()
	dev := s.open(t)
	if dev == nil {
		t.Fatal("haltest: the OpenFunc returned a nil device")
	}
	t.Cleanup(func() { released(t, "Device.Release", dev.Release()) })
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	t.Cleanup(cancel)
	return &env{T: t, s: s, dev: dev, info: dev.Info(), ctx: ctx}
}

// other returns an env for a second device, opened through the same
// OpenFunc.
func (e *env) other() *env {
	e.Helper()
	return e.s.env(e.T)
}

// released checks the result of a Release in a cleanup: the object may
// already have been released by the test, which is harmless.
func released(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, hal.ErrReleased) {
		t.Errorf("%s: %v", what, err)
	}
}

func (e *env) must(what string, err error) {
	e.Helper()
	if err != nil {
		e.Fatalf("%s: %v", what, err)
	}
}

// owned returns x, which the call named what made unless it failed with
// err, and releases it (a kind of object, such as "Buffer") when the test
// ends; a failure fails the test at once.
func owned[T interface{ Release() error }](e *env, kind string, x T, err error, what string) T {
	e.Helper()
	e.must(what, err)
	e.Cleanup(func() { released(e, kind+".Release", x.Release()) })
	return x
}

// refused checks that the call named what failed with code, and releases
// (a kind of object, such as "Buffer") the x it made if it did not.
func refused[T interface{ Release() error }](e *env, kind string, x T, err error, what string, code status.Code) {
	e.Helper()
	wantCode(e, what, err, code, nil)
	if err == nil {
		released(e, kind+".Release", x.Release())
	}
}

func (e *env) buffer(size int64, mem hal.MemoryKind) hal.Buffer {
	e.Helper()
	b, err := e.dev.CreateBuffer(hal.BufferDesc{Size: size, Memory: mem, Label: "haltest"})
	return owned(e, "Buffer", b, err, fmt.Sprintf("CreateBuffer(%d bytes, %v)", size, mem))
}

func (e *env) bufferOf(mem hal.MemoryKind, v []uint32) hal.Buffer {
	e.Helper()
	b := e.buffer(int64(4*len(v)), mem)
	e.write(b, 0, words(v...))
	return b
}

func (e *env) executable(k kernel, constants ...hal.Constant) hal.Executable {
	e.Helper()
	x, err := e.dev.CreateExecutable(k.desc(constants...))
	return owned(e, "Executable", x, err, "CreateExecutable("+k.name+")")
}

func (e *env) commandBuffer() hal.CommandBuffer {
	e.Helper()
	cb, err := e.dev.CreateCommandBuffer()
	return owned(e, "CommandBuffer", cb, err, "CreateCommandBuffer")
}

// timestampPool creates a pool of n timestamps, or skips the test if the
// device has none.
func (e *env) timestampPool(n int) hal.TimestampPool {
	e.Helper()
	if e.info.Limits.TimestampValidBits == 0 {
		e.Skip("the device has no timestamps (TimestampValidBits is 0)")
	}
	p, err := e.dev.CreateTimestampPool(n)
	return owned(e, "TimestampPool", p, err, fmt.Sprintf("CreateTimestampPool(%d)", n))
}

// recorded returns a new command buffer, which f has recorded into.
func (e *env) recorded(f func(cb hal.CommandBuffer)) hal.CommandBuffer {
	e.Helper()
	cb := e.commandBuffer()
	e.record(cb, func() { f(cb) })
	return cb
}

func (e *env) record(cb hal.CommandBuffer, f func()) {
	e.Helper()
	e.must("CommandBuffer.Begin", cb.Begin())
	f()
	e.must("CommandBuffer.End", cb.End())
}

func (e *env) dispatch(cb hal.CommandBuffer, d hal.Dispatch) {
	e.Helper()
	e.must("CommandBuffer.Dispatch", cb.Dispatch(d))
}

// stamped records d between timestamps 0 and 1 of pool, or alone if pool
// is nil.
func (e *env) stamped(cb hal.CommandBuffer, pool hal.TimestampPool, d hal.Dispatch) {
	e.Helper()
	if pool != nil {
		stamp(e, cb, pool, 0)
	}
	e.dispatch(cb, d)
	if pool != nil {
		stamp(e, cb, pool, 1)
	}
}

// edited returns d changed by edit, its bindings and push constants
// copied first so that d is left as it was.
func edited(d hal.Dispatch, edit func(d *hal.Dispatch)) hal.Dispatch {
	d.Bindings = slices.Clone(d.Bindings)
	d.PushConstants = slices.Clone(d.PushConstants)
	edit(&d)
	return d
}

func (e *env) barrier(cb hal.CommandBuffer) {
	e.Helper()
	e.must("CommandBuffer.Barrier", cb.Barrier())
}

// submit submits cb after wait and returns its fence, released when the
// test ends.
func (e *env) submit(cb hal.CommandBuffer, wait ...hal.Fence) hal.Fence {
	e.Helper()
	f, err := e.dev.Submit(cb, wait...)
	e.must("Device.Submit", err)
	if f == nil {
		e.Fatal("Device.Submit returned a nil fence and no error")
	}
	e.Cleanup(func() { released(e, "Fence.Release", f.Release()) })
	return f
}

func (e *env) wait(f hal.Fence, what string) {
	e.Helper()
	if err := f.Wait(e.ctx); err != nil {
		e.Fatalf("%s: Fence.Wait: %v", what, err)
	}
}

func (e *env) execute(cb hal.CommandBuffer, what string) {
	e.Helper()
	e.wait(e.submit(cb), what)
}

func (e *env) write(b hal.Buffer, offset int64, data []byte) {
	e.Helper()
	if err := b.Write(e.ctx, offset, data); err != nil {
		e.Fatalf("Buffer.Write(offset %d, %d bytes) of a %v buffer of %d bytes: %v", offset, len(data), b.Memory(), b.Size(), err)
	}
}

func (e *env) read(b hal.Buffer, offset, n int64) []byte {
	e.Helper()
	dst := make([]byte, n)
	if err := b.Read(e.ctx, offset, dst); err != nil {
		e.Fatalf("Buffer.Read(offset %d, %d bytes) of a %v buffer of %d bytes: %v", offset, n, b.Memory(), b.Size(), err)
	}
	return dst
}

func (e *env) readWords(b hal.Buffer) []uint32 {
	e.Helper()
	return unpack[uint32](e.read(b, 0, b.Size()))
}
