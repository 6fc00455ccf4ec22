//go:build cgo

package vk

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/goki/vulkan"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
)

// openDefault opens the default device, with validation when asked (and
// the layer is there; where testenv.Strict, it must be), failing tb for
// every validation message. Without Vulkan or a device it ends tb through
// testenv.Unavailable.
func openDefault(tb testing.TB, validation bool) *device {
	tb.Helper()
	var mu sync.Mutex
	var msgs []hal.Message
	opts := hal.DriverOptions{Validation: validation, OnMessage: func(m hal.Message) {
		mu.Lock()
		msgs = append(msgs, m)
		mu.Unlock()
	}}
	drv, err := hal.OpenDriver(DriverName, opts)
	if validation && status.CodeOf(err) == status.FailedPrecondition && !testenv.Strict() {
		drv, err = hal.OpenDriver(DriverName, hal.DriverOptions{})
	}
	if err != nil {
		testenv.Unavailable(tb, "no usable Vulkan: %v", err)
	}
	tb.Cleanup(func() {
		release(tb, drv)
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			tb.Errorf("validation %s [%s]: %s", m.Severity, m.ID, m.Text)
		}
	})
	infos, err := drv.Enumerate()
	if err != nil {
		tb.Fatalf("Enumerate: %v", err)
	}
	if len(infos) == 0 {
		testenv.Unavailable(tb, "Vulkan lists no devices")
	}
	dev, err := drv.Open(context.Background(), hal.DefaultDevice(infos), hal.DeviceOptions{})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { release(tb, dev) })
	return dev.(*device)
}

func release(tb testing.TB, r interface{ Release() error }) {
	tb.Helper()
	if err := r.Release(); err != nil {
		tb.Errorf("Release: %v", err)
	}
}

// roundTrip is what both sides of BenchmarkRoundTrip run: one dispatch of
// an empty kernel over one workgroup, submitted and waited for.
type roundTrip struct {
	exe *executable
	buf *buffer
}

func newRoundTrip(tb testing.TB, d *device) *roundTrip {
	tb.Helper()
	code, err := os.ReadFile("testdata/empty.spv")
	if err != nil {
		tb.Fatal(err)
	}
	exe, err := d.CreateExecutable(hal.ExecutableDesc{Label: "empty", SPIRV: code, Bindings: 1})
	if err != nil {
		tb.Fatalf("CreateExecutable: %v", err)
	}
	buf, err := d.CreateBuffer(hal.BufferDesc{Size: 256, Label: "empty"})
	if err != nil {
		tb.Fatalf("CreateBuffer: %v", err)
	}
	return &roundTrip{exe: exe.(*executable), buf: buf.(*buffer)}
}

// halLoop runs round trips through the HAL while loop says so.
func (rt *roundTrip) halLoop(tb testing.TB, d *device, loop func() bool) {
	tb.Helper()
	cb, err := d.CreateCommandBuffer()
	if err != nil {
		tb.Fatal(err)
	}
	defer release(tb, cb)
	ctx := context.Background()
	dispatch := hal.Dispatch{Executable: rt.exe, Bindings: []hal.Binding{{Buffer: rt.buf}}, Groups: [3]uint32{1, 1, 1}}
	for loop() {
		if err := cb.Begin(); err != nil {
			tb.Fatal(err)
		}
		if err := cb.Dispatch(dispatch); err != nil {
			tb.Fatal(err)
		}
		if err := cb.End(); err != nil {
			tb.Fatal(err)
		}
		f, err := d.Submit(cb)
		if err != nil {
			tb.Fatal(err)
		}
		if err := f.Wait(ctx); err != nil {
			tb.Fatal(err)
		}
	}
}

// directLoop is the same round trip written on goki/vulkan, with vk's C
// helpers only for the timeline semaphore (Vulkan 1.2, which goki lacks).
type directLoop struct {
	dev      vulkan.Device
	pool     vulkan.CommandPool
	cb       vulkan.CommandBuffer
	descPool vulkan.DescriptorPool
	set      vulkan.DescriptorSet
	pipeline vulkan.Pipeline
	layout   vulkan.PipelineLayout
	begin    vulkan.CommandBufferBeginInfo
	sets     []vulkan.DescriptorSet
	timeline *timelineSemaphore
	value    uint64
}

func newDirectLoop(tb testing.TB, d *device, rt *roundTrip) *directLoop {
	tb.Helper()
	check := func(r vulkan.Result, call string) {
		tb.Helper()
		if err := resultError(call, int32(r)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := d.gokiInit(); err != nil {
		tb.Fatal(err)
	}
	dev, _, family := d.gokiDevice()
	pipeline, layout, setLayout := rt.exe.gokiPipeline()
	l := &directLoop{dev: dev, pipeline: pipeline, layout: layout}
	check(vulkan.CreateCommandPool(dev, &vulkan.CommandPoolCreateInfo{
		SType:            vulkan.StructureTypeCommandPoolCreateInfo,
		QueueFamilyIndex: family,
	}, nil, &l.pool), "vkCreateCommandPool")
	cbs := make([]vulkan.CommandBuffer, 1)
	check(vulkan.AllocateCommandBuffers(dev, &vulkan.CommandBufferAllocateInfo{
		SType:              vulkan.StructureTypeCommandBufferAllocateInfo,
		CommandPool:        l.pool,
		Level:              vulkan.CommandBufferLevelPrimary,
		CommandBufferCount: 1,
	}, cbs), "vkAllocateCommandBuffers")
	l.cb = cbs[0]
	check(vulkan.CreateDescriptorPool(dev, &vulkan.DescriptorPoolCreateInfo{
		SType:         vulkan.StructureTypeDescriptorPoolCreateInfo,
		MaxSets:       1,
		PoolSizeCount: 1,
		PPoolSizes:    []vulkan.DescriptorPoolSize{{Type: vulkan.DescriptorTypeStorageBuffer, DescriptorCount: 1}},
	}, nil, &l.descPool), "vkCreateDescriptorPool")
	check(vulkan.AllocateDescriptorSets(dev, &vulkan.DescriptorSetAllocateInfo{
		SType:              vulkan.StructureTypeDescriptorSetAllocateInfo,
		DescriptorPool:     l.descPool,
		DescriptorSetCount: 1,
		PSetLayouts:        []vulkan.DescriptorSetLayout{setLayout},
	}, &l.set), "vkAllocateDescriptorSets")
	vulkan.UpdateDescriptorSets(dev, 1, []vulkan.WriteDescriptorSet{{
		SType:           vulkan.StructureTypeWriteDescriptorSet,
		DstSet:          l.set,
		DescriptorCount: 1,
		DescriptorType:  vulkan.DescriptorTypeStorageBuffer,
		PBufferInfo:     []vulkan.DescriptorBufferInfo{{Buffer: rt.buf.gokiBuffer(), Range: vulkan.DeviceSize(vulkan.WholeSize)}},
	}}, 0, nil)
	l.begin = vulkan.CommandBufferBeginInfo{SType: vulkan.StructureTypeCommandBufferBeginInfo}
	l.sets = []vulkan.DescriptorSet{l.set}
	var err error
	if l.timeline, err = d.newTimelineSemaphore(); err != nil {
		tb.Fatal(err)
	}
	return l
}

// roundTrip records, submits and waits for one dispatch.
func (l *directLoop) roundTrip() error {
	if err := l.record(); err != nil {
		return err
	}
	l.value++
	if err := l.timeline.submit(l.cb, l.value); err != nil {
		return err
	}
	return l.timeline.wait(l.value, time.Minute)
}

// record records one dispatch.
func (l *directLoop) record() error {
	if r := vulkan.ResetCommandPool(l.dev, l.pool, 0); r != vulkan.Success {
		return resultError("vkResetCommandPool", int32(r))
	}
	if r := vulkan.BeginCommandBuffer(l.cb, &l.begin); r != vulkan.Success {
		return resultError("vkBeginCommandBuffer", int32(r))
	}
	vulkan.CmdBindPipeline(l.cb, vulkan.PipelineBindPointCompute, l.pipeline)
	vulkan.CmdBindDescriptorSets(l.cb, vulkan.PipelineBindPointCompute, l.layout, 0, 1, l.sets, 0, nil)
	vulkan.CmdDispatch(l.cb, 1, 1, 1)
	if r := vulkan.EndCommandBuffer(l.cb); r != vulkan.Success {
		return resultError("vkEndCommandBuffer", int32(r))
	}
	return nil
}

func (l *directLoop) release(tb testing.TB) {
	if err := l.timeline.wait(l.value, time.Minute); err != nil {
		tb.Error(err)
	}
	l.timeline.destroy()
	vulkan.DestroyDescriptorPool(l.dev, l.descPool, nil)
	vulkan.DestroyCommandPool(l.dev, l.pool, nil)
}

// BenchmarkRoundTrip measures one empty dispatch recorded, submitted and
// waited for, through the HAL (hal) and written directly on goki/vulkan
// (direct), on the same device in one process, without validation.
func BenchmarkRoundTrip(b *testing.B) {
	d := openDefault(b, false)
	rt := newRoundTrip(b, d)
	b.Logf("device: %s (%s)", d.info.Name, d.info.DriverInfo)
	b.Run("hal", func(b *testing.B) {
		b.ReportAllocs()
		rt.halLoop(b, d, b.Loop)
	})
	b.Run("direct", func(b *testing.B) {
		l := newDirectLoop(b, d, rt)
		defer l.release(b)
		b.ReportAllocs()
		for b.Loop() {
			if err := l.roundTrip(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRecord measures the host side alone: recording one dispatch
// (Begin, Dispatch, End) through the HAL and directly on goki/vulkan. The
// HAL allocates and writes a descriptor set per dispatch; the direct loop
// binds one written beforehand. Unlike BenchmarkRoundTrip it does not
// depend on how fast the device wakes a waiting thread. hal-sets records
// the same kernel with its bindings in two descriptor sets, one binding
// each (vkb_cmd_dispatch with sets).
func BenchmarkRecord(b *testing.B) {
	d := openDefault(b, false)
	rt := newRoundTrip(b, d)
	b.Run("hal", func(b *testing.B) {
		recordLoop(b, d, hal.Dispatch{Executable: rt.exe, Bindings: []hal.Binding{{Buffer: rt.buf}}, Groups: [3]uint32{1, 1, 1}})
	})
	b.Run("hal-sets", func(b *testing.B) {
		code, err := os.ReadFile("testdata/empty.spv")
		if err != nil {
			b.Fatal(err)
		}
		exe, err := d.CreateExecutable(hal.ExecutableDesc{Label: "empty-sets", SPIRV: code, Bindings: 2, Sets: []int{1, 1}})
		if err != nil {
			b.Fatal(err)
		}
		defer release(b, exe)
		recordLoop(b, d, hal.Dispatch{Executable: exe, Bindings: []hal.Binding{{Buffer: rt.buf}, {Buffer: rt.buf}}, Groups: [3]uint32{1, 1, 1}})
	})
	b.Run("direct", func(b *testing.B) {
		l := newDirectLoop(b, d, rt)
		defer l.release(b)
		b.ReportAllocs()
		for b.Loop() {
			if err := l.record(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// recordLoop records dispatch into one command buffer for as long as b
// says.
func recordLoop(b *testing.B, d *device, dispatch hal.Dispatch) {
	cb, err := d.CreateCommandBuffer()
	if err != nil {
		b.Fatal(err)
	}
	defer release(b, cb)
	b.ReportAllocs()
	for b.Loop() {
		if err := cb.Begin(); err != nil {
			b.Fatal(err)
		}
		if err := cb.Dispatch(dispatch); err != nil {
			b.Fatal(err)
		}
		if err := cb.End(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRoundTripLoops runs both sides of BenchmarkRoundTrip a few times
// under validation: the baseline must be correct Vulkan too.
func TestRoundTripLoops(t *testing.T) {
	d := openDefault(t, true)
	rt := newRoundTrip(t, d)
	n := 0
	rt.halLoop(t, d, func() bool { n++; return n <= 10 })
	l := newDirectLoop(t, d, rt)
	defer l.release(t)
	for range 10 {
		if err := l.roundTrip(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSpinningWait: a wait that polls before it blocks (as on GPUs; here
// on whatever device there is, polling for up to a second) still sees
// each submission end, and still ends at its context's deadline, long
// before the second of polling would.
func TestSpinningWait(t *testing.T) {
	d := openDefault(t, true)
	d.spin = time.Second
	rt := newRoundTrip(t, d)
	n := 0
	rt.halLoop(t, d, func() bool { n++; return n <= 20 })
	never := &fence{d: d, value: 1 << 40}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := never.Wait(ctx)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took >= time.Second {
		t.Errorf("Wait for a value never signalled, 20 ms deadline: %v after %v; want DeadlineExceeded well within the second of polling", err, took)
	}
}

// TestFailedWaitPropagates: a submission that waits on a failed one does
// not run, and its fence fails naming the first failure as its cause.
func TestFailedWaitPropagates(t *testing.T) {
	d := openDefault(t, true)
	cause := status.New(status.Aborted, "injected execution failure")
	failed := &fence{d: d, err: cause, cause: cause}
	cb, err := d.CreateCommandBuffer()
	if err != nil {
		t.Fatal(err)
	}
	defer release(t, cb)
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	f, err := d.Submit(cb, failed)
	if err != nil {
		t.Fatalf("Submit: %v (a failed wait fails the fence, not the call)", err)
	}
	second, err := d.Submit(cb, f)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	for i, f := range []hal.Fence{f, second} {
		err := f.Wait(context.Background())
		if !errors.Is(err, cause) || status.CodeOf(err) != status.Aborted {
			t.Errorf("fence %d: Wait = %v; want ABORTED caused by %v", i, err, cause)
		}
		if done, perr := f.Poll(); !done || perr == nil {
			t.Errorf("fence %d: Poll = %v, %v", i, done, perr)
		}
		var st *status.Status
		if errors.As(err, &st) && st.Unwrap() != cause {
			t.Errorf("fence %d: cause is %v, want the first failure %v", i, st.Unwrap(), cause)
		}
	}
}
