package haltest

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// object is something to release, named for messages.
type object struct {
	name string
	r    interface{ Release() error }
}

// kit is some of every kind of object of a device, each used once, so
// that each holds what use makes it hold: what the properties that
// release or lose the device release, and call through afterwards.
type kit struct {
	all       []object
	add       *addCase          // the last of the adds run
	x         hal.Executable    // kernelAdd's, used
	pool      hal.TimestampPool // nil without timestamps
	img       hal.Image         // nil without r32f storage images
	done      hal.Fence         // of a completed submission
	ended     hal.CommandBuffer // recorded, never submitted
	recording hal.CommandBuffer // begun, not ended
}

func (k *kit) keep(r interface{ Release() error }, format string, args ...any) {
	k.all = append(k.all, object{fmt.Sprintf(format, args...), r})
}

func (e *env) newKit() *kit {
	e.Helper()
	k := &kit{}
	rng := rand.New(rand.NewPCG(21, 22))
	for i := range 10 {
		for _, mem := range memoryKinds {
			b := e.buffer(int64(64+4*i), mem)
			e.write(b, 0, random[byte](rng, int(b.Size())))
			k.keep(b, "%v Buffer %d", mem, i)
		}
	}
	for _, kern := range []kernel{kernelAdd, kernelFillIota, kernelEmpty} {
		k.keep(e.executable(kern), "Executable %s", kern.name)
	}
	if e.info.Limits.TimestampValidBits > 0 {
		k.pool = e.timestampPool(4)
		k.keep(k.pool, "TimestampPool")
		k.keep(e.timestampPool(1), "TimestampPool (unused)")
	}
	if e.info.ImageFormats.Of(hal.R32Float).Has(hal.FormatStorage) {
		k.img = e.image(hal.ImageDesc{Format: hal.R32Float, Width: 4, Height: 4, Usage: hal.ImageStorage, Label: "kit"})
		k.keep(k.img, "Image")
	}
	k.x = e.executable(kernelAdd)
	k.keep(k.x, "Executable add (used)")
	for i := range 5 {
		k.add = e.newAddCase(rng, 100+i, memoryKinds[i%2])
		k.keep(k.add.a, "Buffer a %d", i)
		k.keep(k.add.b, "Buffer b %d", i)
		k.keep(k.add.c, "Buffer c %d", i)
		cb := e.commandBuffer()
		k.keep(cb, "CommandBuffer %d", i)
		e.record(cb, func() { e.stamped(cb, k.pool, k.add.dispatch(k.x)) })
		k.done = e.submit(cb)
		k.keep(k.done, "Fence %d", i)
		e.wait(k.done, "add")
		k.add.check(e, "add")
	}
	k.ended = e.commandBuffer()
	k.keep(k.ended, "CommandBuffer (ended)")
	e.record(k.ended, func() { e.dispatch(k.ended, k.add.dispatch(k.x)) })
	k.recording = e.commandBuffer()
	k.keep(k.recording, "CommandBuffer (recording)")
	e.must("Begin", k.recording.Begin())
	k.keep(e.commandBuffer(), "CommandBuffer (never recorded)")
	return k
}

// call is one call through a device or its objects, named for messages.
type call struct {
	name string
	f    func() error
}

// refused makes a call of every kind through e's device and k's objects,
// good arguments or bad, each of which must fail within d with code and
// match is: the device is lost, or released (when says which).
func (k *kit) refused(e *env, d time.Duration, code status.Code, is error, when string) {
	e.Helper()
	made := func(r interface{ Release() error }, err error) error {
		if err == nil {
			e.Cleanup(func() { released(e, "Release of an object made after all", r.Release()) })
		}
		return err
	}
	c, rec, pool, img := k.add, k.recording, k.pool, k.img
	calls := []call{
		{"Device.Err", e.dev.Err},
		{"CreateBuffer", func() error { return made(e.dev.CreateBuffer(hal.BufferDesc{Size: 64, Memory: hal.HostVisible})) }},
		{"CreateExecutable", func() error { return made(e.dev.CreateExecutable(hal.ExecutableDesc{SPIRV: kernelEmpty.spirv})) }},
		{"CreateCommandBuffer", func() error { return made(e.dev.CreateCommandBuffer()) }},
		{"CreateTimestampPool", func() error { return made(e.dev.CreateTimestampPool(2)) }},
		{"CreateImage", func() error {
			return made(e.dev.CreateImage(hal.ImageDesc{Format: hal.R32Float, Width: 4, Height: 4, Usage: hal.ImageStorage}))
		}},
		{"CreateImage with a bad description", func() error { return made(e.dev.CreateImage(hal.ImageDesc{})) }},
		{"CreateSampler", func() error { return made(e.dev.CreateSampler(hal.SamplerDesc{Filter: hal.Linear})) }},
		{"Submit", func() error { return made(e.dev.Submit(k.ended)) }},
		{"Fence.Wait", func() error { return k.done.Wait(e.ctx) }},
		{"Buffer.Write", func() error { return c.a.Write(e.ctx, 0, make([]byte, 4)) }},
		{"Buffer.Read", func() error { return c.c.Read(e.ctx, 0, make([]byte, 4)) }},
		{"CommandBuffer.Begin", k.ended.Begin},
		{"CommandBuffer.Dispatch", func() error { return rec.Dispatch(c.dispatch(k.x)) }},
		{"CommandBuffer.Copy", func() error { return rec.Copy(c.a, 0, c.c, 0, 16) }},
		{"CommandBuffer.Fill", func() error { return rec.Fill(c.c, 0, 16, 1) }},
		{"CommandBuffer.Barrier", rec.Barrier},
	}
	if pool != nil {
		calls = append(calls,
			call{"CommandBuffer.Timestamp", func() error { return rec.Timestamp(pool, 0) }},
			call{"TimestampPool.Elapsed", func() error { return errOf(pool.Elapsed(0, 1)) }},
			call{"TimestampPool.Ticks", func() error { return errOf(pool.Ticks(0, 2)) }})
	}
	if img != nil {
		calls = append(calls,
			call{"Image.Write", func() error { return img.Write(e.ctx, make([]byte, img.Desc().Bytes())) }},
			call{"Image.Read", func() error { return img.Read(e.ctx, make([]byte, img.Desc().Bytes())) }},
			call{"CommandBuffer.CopyBufferToImage", func() error { return rec.CopyBufferToImage(c.c, 0, img) }},
			call{"CommandBuffer.CopyImageToBuffer", func() error { return rec.CopyImageToBuffer(img, c.c, 0) }})
	}
	for _, call := range append(calls, call{"CommandBuffer.End", rec.End}) {
		var err error
		Within(e, d, call.name+" "+when, func() { err = call.f() })
		wantCode(e, call.name+" "+when, err, code, is)
	}
}
