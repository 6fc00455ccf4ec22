package haltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// testErrBufferSize: a size that is not positive is InvalidArgument; one
// larger than any heap is ResourceExhausted; neither stops the device.
func testErrBufferSize(e *env) {
	var largest uint64
	for _, h := range e.info.MemoryHeaps {
		largest = max(largest, h.Size)
	}
	huge := int64(math.MaxInt64)
	if largest < 1<<62 {
		huge = int64(largest) + 1<<20
	}
	for _, mem := range memoryKinds {
		for _, size := range []int64{0, -1, -4096, math.MinInt64} {
			b, err := e.dev.CreateBuffer(hal.BufferDesc{Size: size, Memory: mem})
			refused(e, "Buffer", b, err, fmt.Sprintf("CreateBuffer(%d bytes, %v)", size, mem), status.InvalidArgument)
		}
		for _, size := range []int64{huge, 1 << 62} {
			b, err := e.dev.CreateBuffer(hal.BufferDesc{Size: size, Memory: mem})
			refused(e, "Buffer", b, err, fmt.Sprintf("CreateBuffer(%d bytes, %v), more than the largest heap (%d bytes)", size, mem, largest),
				status.ResourceExhausted)
		}
	}
	b, err := e.dev.CreateBuffer(hal.BufferDesc{Size: 64, Memory: hal.MemoryKind(200)})
	refused(e, "Buffer", b, err, "CreateBuffer of an unknown memory kind", status.InvalidArgument)

	e.newAddCase(rand.New(rand.NewPCG(7, 8)), 1000, hal.DeviceLocal).run(e, e.executable(kernelAdd), "add after failed allocations")
}

// addDesc describes kernelAdd's bindings and push constants, with code
// that may not be kernelAdd's.
func addDesc(code []byte, entryPoint string) hal.ExecutableDesc {
	return hal.ExecutableDesc{
		SPIRV:            code,
		EntryPoint:       entryPoint,
		Bindings:         kernelAdd.bindings,
		PushConstantSize: kernelAdd.push,
	}
}

// testErrExecutable: malformed SPIR-V, a missing entry point and a
// description that does not fit the module are InvalidArgument, and the
// device goes on building good executables.
func testErrExecutable(e *env) {
	good := kernelAdd.spirv
	wrongMagic := append([]byte(nil), good...)
	wrongMagic[0] ^= 0xff
	garbage := random[byte](rand.New(rand.NewPCG(9, 10)), 256)
	for _, c := range []struct {
		name string
		desc hal.ExecutableDesc
	}{
		// Modules with one defect, described correctly otherwise.
		{"no SPIR-V", addDesc(nil, "")},
		{"garbage", addDesc(garbage, "")},
		{"header only", addDesc(good[:20], "")},
		{"truncated to half", addDesc(good[:len(good)/8*4], "")},
		{"truncated by a byte", addDesc(good[:len(good)-1], "")},
		{"truncated by a word", addDesc(good[:len(good)-4], "")},
		{"wrong magic", addDesc(wrongMagic, "")},
		{"missing entry point", addDesc(good, "nope")},
		// A good module, described wrongly.
		{"negative bindings", hal.ExecutableDesc{SPIRV: good, Bindings: -1, PushConstantSize: 4}},
		{"fewer bindings than the module uses", hal.ExecutableDesc{SPIRV: good, Bindings: 2, PushConstantSize: 4}},
		{"no push constants for a module that has them", hal.ExecutableDesc{SPIRV: good, Bindings: 3}},
		{"negative push-constant size", hal.ExecutableDesc{SPIRV: good, Bindings: 3, PushConstantSize: -4}},
		{"push-constant size not a multiple of 4", hal.ExecutableDesc{SPIRV: good, Bindings: 3, PushConstantSize: 6}},
		{"push-constant size over the limit", hal.ExecutableDesc{SPIRV: good, Bindings: 3,
			PushConstantSize: int(e.info.Limits.MaxPushConstantsSize) + 4}},
	} {
		c.desc.Label = c.name
		x, err := e.dev.CreateExecutable(c.desc)
		refused(e, "Executable", x, err, "CreateExecutable with "+c.name, status.InvalidArgument)
	}

	// The entry point defaults to "main", and may be named.
	x, err := e.dev.CreateExecutable(addDesc(good, "main"))
	owned(e, "Executable", x, err, `CreateExecutable of add with entry point "main"`)
	e.newAddCase(rand.New(rand.NewPCG(11, 12)), 999, hal.HostVisible).run(e, x, "add after failed CreateExecutable")
}

// testErrRecord: every bad argument to a recording call is InvalidArgument
// and records nothing: the same command buffer then records a correct
// dispatch, and the buffers the bad calls named are untouched.
func testErrRecord(e *env) {
	rng := rand.New(rand.NewPCG(13, 14))
	c := e.newAddCase(rng, 1000, hal.DeviceLocal)
	x := e.executable(kernelAdd)
	victimWords := random[uint32](rng, 256)
	victim := e.bufferOf(hal.HostVisible, victimWords)
	lim := e.info.Limits
	align := int64(lim.MinStorageBufferAlign)

	cb := e.commandBuffer()
	e.must("Begin", cb.Begin())
	good := c.dispatch(x)
	bad := func(name string, edit func(d *hal.Dispatch)) {
		wantCode(e, "Dispatch with "+name, cb.Dispatch(edited(good, edit)), status.InvalidArgument, nil)
	}
	bad("no executable", func(d *hal.Dispatch) { d.Executable = nil })
	bad("2 of 3 bindings", func(d *hal.Dispatch) { d.Bindings = d.Bindings[:2] })
	bad("no bindings", func(d *hal.Dispatch) { d.Bindings = nil })
	bad("4 of 3 bindings", func(d *hal.Dispatch) { d.Bindings = append(d.Bindings, hal.Binding{Buffer: victim}) })
	bad("no push constants", func(d *hal.Dispatch) { d.PushConstants = nil })
	bad("2 of 4 bytes of push constants", func(d *hal.Dispatch) { d.PushConstants = d.PushConstants[:2] })
	bad("8 of 4 bytes of push constants", func(d *hal.Dispatch) { d.PushConstants = words(1000, 1000) })
	for i := range 3 {
		bad(fmt.Sprintf("0 groups in dimension %d", i), func(d *hal.Dispatch) { d.Groups[i] = 0 })
		if n := lim.MaxWorkgroupCount[i]; n < math.MaxUint32 {
			bad(fmt.Sprintf("%d groups in dimension %d, over the limit", n+1, i), func(d *hal.Dispatch) { d.Groups[i] = n + 1 })
		}
	}
	bad("a nil buffer", func(d *hal.Dispatch) { d.Bindings[0].Buffer = nil })
	if align > 1 {
		bad(fmt.Sprintf("an offset not a multiple of %d", align), func(d *hal.Dispatch) { d.Bindings[1].Offset += align / 2 })
	}
	bad("a negative offset", func(d *hal.Dispatch) { d.Bindings[0].Offset = -align })
	bad("a negative size", func(d *hal.Dispatch) { d.Bindings[0].Size = -4 })
	bad("a range past the buffer's end", func(d *hal.Dispatch) { d.Bindings[1].Size = c.b.Size() - c.bOffset + 4 })
	bad("an offset at the buffer's end", func(d *hal.Dispatch) { d.Bindings[2].Offset = alignUp(c.c.Size(), align) })
	bad("an offset past the buffer's end", func(d *hal.Dispatch) {
		d.Bindings[2].Offset = alignUp(c.c.Size()+1, align)
		d.Bindings[2].Size = 4
	})

	vs := victim.Size()
	for _, cp := range []struct {
		name                string
		src                 hal.Buffer
		srcOff, dstOff, len int64
		dst                 hal.Buffer
	}{
		{"past the destination's end", c.a, 0, 0, vs + 4, victim},
		{"ending past the destination's end", c.a, 0, vs - 8, 12, victim},
		{"past the source's end", c.a, c.a.Size() - 8, 0, 16, victim},
		{"at a negative source offset", c.a, -4, 0, 8, victim},
		{"at a negative destination offset", c.a, 0, -4, 8, victim},
		{"of a negative size", c.a, 0, 0, -4, victim},
		{"from a nil buffer", nil, 0, 0, 4, victim},
		{"to a nil buffer", c.a, 0, 0, 4, nil},
	} {
		wantCode(e, "Copy "+cp.name, cb.Copy(cp.src, cp.srcOff, cp.dst, cp.dstOff, cp.len), status.InvalidArgument, nil)
	}
	for _, f := range []struct {
		name      string
		dst       hal.Buffer
		off, size int64
	}{
		{"at an offset not a multiple of 4", victim, 2, 8},
		{"of a size not a multiple of 4", victim, 0, 6},
		{"past the end", victim, 0, vs + 4},
		{"ending past the end", victim, vs - 4, 8},
		{"at a negative offset", victim, -4, 8},
		{"of a negative size", victim, 0, -4},
		{"of a nil buffer", nil, 0, 4},
	} {
		wantCode(e, "Fill "+f.name, cb.Fill(f.dst, f.off, f.size, 0x5a5a5a5a), status.InvalidArgument, nil)
	}
	if lim.TimestampValidBits > 0 {
		pool := e.timestampPool(2)
		for _, i := range []int{-1, 2} {
			wantCode(e, fmt.Sprintf("Timestamp(slot %d of 2)", i), cb.Timestamp(pool, i), status.InvalidArgument, nil)
		}
		wantCode(e, "Timestamp of a nil pool", cb.Timestamp(nil, 0), status.InvalidArgument, nil)
	}

	e.dispatch(cb, good)
	e.must("End after failed recording calls", cb.End())
	e.execute(cb, "add after failed recording calls")
	c.check(e, "add recorded after failed recording calls")
	check(e, "buffer named by failed copies and fills", e.readWords(victim), victimWords, 0)
}

// Objects of no device: the wrappers hide the backend's own type.
type (
	alienBuffer        struct{ hal.Buffer }
	alienExecutable    struct{ hal.Executable }
	alienCommandBuffer struct{ hal.CommandBuffer }
	alienFence         struct{ hal.Fence }
	alienPool          struct{ hal.TimestampPool }
)

// testErrForeign: objects of another device, and objects that no device
// made, are InvalidArgument wherever they are passed.
func testErrForeign(e *env) {
	rng := rand.New(rand.NewPCG(15, 16))
	o := e.other()
	oc := o.newAddCase(rng, 500, hal.DeviceLocal)
	ox := o.executable(kernelAdd)
	ocb := o.commandBuffer()
	o.record(ocb, func() { o.dispatch(ocb, oc.dispatch(ox)) })
	of := o.submit(ocb)
	o.wait(of, "add on the other device")

	c := e.newAddCase(rng, 500, hal.DeviceLocal)
	x := e.executable(kernelAdd)
	victimWords := random[uint32](rng, 64)
	victim := e.bufferOf(hal.HostVisible, victimWords)
	cb := e.commandBuffer()
	e.must("Begin", cb.Begin())
	foreign := func(what string, err error) {
		e.Helper()
		wantCode(e, what+" of another device", err, status.InvalidArgument, hal.ErrForeignObject)
	}
	alien := func(what string, err error) {
		e.Helper()
		wantCode(e, what+" that no device made", err, status.InvalidArgument, nil)
	}
	foreign("Dispatch of an executable", cb.Dispatch(edited(c.dispatch(x), func(d *hal.Dispatch) { d.Executable = ox })))
	foreign("Dispatch with a buffer", cb.Dispatch(edited(c.dispatch(x), func(d *hal.Dispatch) { d.Bindings[0].Buffer = oc.a })))
	foreign("Dispatch writing a buffer", cb.Dispatch(edited(c.dispatch(x), func(d *hal.Dispatch) { d.Bindings[2].Buffer = oc.c })))
	foreign("Copy from a buffer", cb.Copy(oc.a, 0, victim, 0, 16))
	foreign("Copy to a buffer", cb.Copy(c.a, 0, oc.c, 0, 16))
	foreign("Fill of a buffer", cb.Fill(oc.c, 0, 16, 1))
	alien("Dispatch of an executable", cb.Dispatch(edited(c.dispatch(x), func(d *hal.Dispatch) { d.Executable = alienExecutable{x} })))
	alien("Dispatch with a buffer", cb.Dispatch(edited(c.dispatch(x), func(d *hal.Dispatch) { d.Bindings[0].Buffer = alienBuffer{c.a} })))
	alien("Copy from a buffer", cb.Copy(alienBuffer{c.a}, 0, victim, 0, 16))
	alien("Copy to a buffer", cb.Copy(c.a, 0, alienBuffer{victim}, 0, 16))
	alien("Fill of a buffer", cb.Fill(alienBuffer{victim}, 0, 16, 1))
	if e.info.Limits.TimestampValidBits > 0 {
		op := o.timestampPool(2)
		foreign("Timestamp into a pool", cb.Timestamp(op, 0))
		alien("Timestamp into a pool", cb.Timestamp(alienPool{e.timestampPool(2)}, 0))
	}
	e.dispatch(cb, c.dispatch(x))
	e.must("End", cb.End())

	foreign("Submit of a command buffer", errOf(e.dev.Submit(ocb)))
	alien("Submit of a command buffer", errOf(e.dev.Submit(alienCommandBuffer{cb})))
	wantCode(e, "Submit(nil)", errOf(e.dev.Submit(nil)), status.InvalidArgument, nil)
	foreign("Submit waiting on a fence", errOf(e.dev.Submit(cb, of)))
	alien("Submit waiting on a fence", errOf(e.dev.Submit(cb, alienFence{of})))
	wantCode(e, "Submit waiting on a nil fence", errOf(e.dev.Submit(cb, nil)), status.InvalidArgument, nil)

	e.execute(cb, "add after foreign objects were refused")
	c.check(e, "add recorded after foreign objects were refused")
	check(e, "buffer named by refused copies and fills", e.readWords(victim), victimWords, 0)

	// The other device is untouched, and runs its own work again.
	o.write(oc.c, 0, words(repeat(sentinel, oc.n+17)...))
	o.execute(ocb, "add on the other device, again")
	oc.check(o, "add on the other device")
}

// testErrReleased: a released object is FailedPrecondition (ErrReleased)
// when called or passed, and releasing it again is harmless.
func testErrReleased(e *env) {
	rng := rand.New(rand.NewPCG(17, 18))
	c := e.newAddCase(rng, 600, hal.HostVisible)
	x := e.executable(kernelAdd)

	gone := e.buffer(c.c.Size(), hal.HostVisible)
	goneX := e.executable(kernelAdd)
	goneCB := e.recorded(func(goneCB hal.CommandBuffer) { e.dispatch(goneCB, c.dispatch(x)) })
	goneFence := e.submit(goneCB)
	e.wait(goneFence, "add")
	objs := []object{{"Buffer", gone}, {"Executable", goneX}, {"CommandBuffer", goneCB}, {"Fence", goneFence}}
	var gonePool hal.TimestampPool
	if e.info.Limits.TimestampValidBits > 0 {
		gonePool = e.timestampPool(2)
		objs = append(objs, object{"TimestampPool", gonePool})
	}
	for _, o := range objs {
		e.must(o.name+".Release", o.r.Release())
	}

	wantReleased(e, "Write to a released buffer", gone.Write(e.ctx, 0, []byte{1, 2, 3, 4}))
	wantReleased(e, "Read of a released buffer", gone.Read(e.ctx, 0, make([]byte, 4)))

	cb := e.commandBuffer()
	e.must("Begin", cb.Begin())
	wantReleased(e, "Dispatch of a released executable", cb.Dispatch(edited(c.dispatch(x), func(d *hal.Dispatch) { d.Executable = goneX })))
	wantReleased(e, "Dispatch writing a released buffer", cb.Dispatch(edited(c.dispatch(x), func(d *hal.Dispatch) { d.Bindings[2].Buffer = gone })))
	wantReleased(e, "Copy from a released buffer", cb.Copy(gone, 0, c.c, 0, 16))
	wantReleased(e, "Copy to a released buffer", cb.Copy(c.a, 0, gone, 0, 16))
	wantReleased(e, "Fill of a released buffer", cb.Fill(gone, 0, 16, 1))
	if gonePool != nil {
		wantReleased(e, "Timestamp into a released pool", cb.Timestamp(gonePool, 0))
		wantReleased(e, "Elapsed of a released pool", errOf(gonePool.Elapsed(0, 1)))
		wantReleased(e, "Ticks of a released pool", errOf(gonePool.Ticks(0, 1)))
	}
	e.dispatch(cb, c.dispatch(x))
	e.must("End", cb.End())

	wantReleased(e, "Begin of a released command buffer", goneCB.Begin())
	wantReleased(e, "Dispatch into a released command buffer", goneCB.Dispatch(c.dispatch(x)))
	wantReleased(e, "End of a released command buffer", goneCB.End())
	wantReleased(e, "Submit of a released command buffer", errOf(e.dev.Submit(goneCB)))
	wantReleased(e, "Wait on a released fence", goneFence.Wait(e.ctx))
	wantReleased(e, "Poll of a released fence", errOf(goneFence.Poll()))
	wantReleased(e, "Submit waiting on a released fence", errOf(e.dev.Submit(cb, goneFence)))

	e.write(c.c, 0, words(repeat(sentinel, c.n+17)...))
	e.execute(cb, "add after released objects were refused")
	c.check(e, "add recorded after released objects were refused")

	// Twice is harmless: nil or ErrReleased, nothing else.
	for _, o := range objs {
		released(e, "second "+o.name+".Release", o.r.Release())
	}
}

// testErrSubmit: submitting a command buffer that is in flight, or not
// ended, and recording into one that is in flight or ended, are
// FailedPrecondition and change nothing: the first submission completes
// correctly and the command buffer can be submitted again once done.
func testErrSubmit(e *env) {
	job := e.newSpinJob(300 * time.Millisecond)
	const local = 32
	xf := e.executable(kernelFillIota, hal.Constant{ID: 0, Value: local}, hal.Constant{ID: 1, Value: 3})
	fc := e.newFillCase(777, local)
	cb := e.recorded(func(cb hal.CommandBuffer) {
		job.record(e, cb)
		e.barrier(cb)
		e.dispatch(cb, fc.dispatch(xf, 5))
	})
	f := e.submit(cb)
	if done, err := f.Poll(); done {
		e.Fatalf("Poll right after submitting %v = done (%v), want not done", job, err)
	}

	wantCode(e, "Submit of a command buffer in flight", errOf(e.dev.Submit(cb)), status.FailedPrecondition, hal.ErrInFlight)
	wantCode(e, "Begin of a command buffer in flight", cb.Begin(), status.FailedPrecondition, hal.ErrInFlight)
	if done, err := f.Poll(); done {
		e.Logf("warning: %v completed (%v) before the in-flight checks ended; they may not have tested what they meant to", job, err)
	}

	fc2 := e.newFillCase(100, local)
	cb2 := e.commandBuffer()
	wantCode(e, "Submit of a command buffer never recorded", errOf(e.dev.Submit(cb2)), status.FailedPrecondition, nil)
	wantCode(e, "Dispatch into a command buffer never begun", cb2.Dispatch(fc2.dispatch(xf, 1)), status.FailedPrecondition, nil)
	wantCode(e, "End of a command buffer never begun", cb2.End(), status.FailedPrecondition, nil)
	e.must("Begin", cb2.Begin())
	e.dispatch(cb2, fc2.dispatch(xf, 9))
	wantCode(e, "Submit of a command buffer not ended", errOf(e.dev.Submit(cb2)), status.FailedPrecondition, nil)
	e.must("End", cb2.End())
	wantCode(e, "End of an ended command buffer", cb2.End(), status.FailedPrecondition, nil)
	wantCode(e, "Dispatch into an ended command buffer", cb2.Dispatch(fc2.dispatch(xf, 1)), status.FailedPrecondition, nil)
	wantCode(e, "Barrier in an ended command buffer", cb2.Barrier(), status.FailedPrecondition, nil)
	e.execute(cb2, "fill_iota recorded around failed calls")
	check(e, "fill_iota recorded around failed calls", e.readWords(fc2.out), fc2.want(3, 9), 0)

	e.wait(f, "the first submission")
	wantDone(e, "the first submission, waited for", f)
	checkSpin(e, job.out, job.iters)
	check(e, "fill_iota after the spin job", e.readWords(fc.out), fc.want(3, 5), 0)

	// Done, it can be submitted again as it is.
	e.write(fc.out, 0, words(repeat(sentinel, int(fc.out.Size()/4))...))
	e.execute(cb, "the same command buffer, submitted again")
	check(e, "fill_iota submitted again", e.readWords(fc.out), fc.want(3, 5), 0)

	// An empty command buffer is fine too.
	e.record(cb2, func() {})
	e.execute(cb2, "an empty command buffer")
}
