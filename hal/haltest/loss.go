package haltest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/vkbench/vkbench/hal"
)

// lossLatency bounds how long after MarkLost a blocked Wait may return.
const lossLatency = 100 * time.Millisecond

// testDeviceLoss: once a device is marked lost, every pending fence fails
// with ErrDeviceLost within lossLatency, blocked waiters included; every
// later call on the device and its objects fails the same way at once;
// releasing everything still works; other devices are not affected.
func testDeviceLoss(e *env) {
	lm, ok := e.dev.(hal.LossMarker)
	if !ok {
		e.Skip("the device does not implement hal.LossMarker")
	}
	rng := rand.New(rand.NewPCG(19, 20))
	o := e.other()
	oc := o.newAddCase(rng, 300, hal.HostVisible)
	ox := o.executable(kernelAdd)

	var objects []object
	keep := func(name string, r interface{ Release() error }) { objects = append(objects, object{name, r}) }

	// Objects that worked before the loss.
	c := e.newAddCase(rng, 300, hal.HostVisible)
	keep("Buffer a", c.a)
	keep("Buffer b", c.b)
	keep("Buffer c", c.c)
	x := e.executable(kernelAdd)
	keep("Executable", x)
	var pool hal.TimestampPool
	if e.info.Limits.TimestampValidBits > 0 {
		pool = e.timestampPool(2)
		keep("TimestampPool", pool)
	}
	doneCB := e.commandBuffer()
	keep("CommandBuffer (completed)", doneCB)
	e.record(doneCB, func() {
		if pool != nil {
			stamp(e, doneCB, pool, 0)
		}
		e.dispatch(doneCB, c.dispatch(x))
		if pool != nil {
			stamp(e, doneCB, pool, 1)
		}
	})
	doneFence := e.submit(doneCB)
	keep("Fence (completed)", doneFence)
	e.wait(doneFence, "add before the loss")
	c.check(e, "add before the loss")
	ended := e.commandBuffer()
	keep("CommandBuffer (ended)", ended)
	e.record(ended, func() { e.dispatch(ended, c.dispatch(x)) })
	recording := e.commandBuffer()
	keep("CommandBuffer (recording)", recording)
	if err := recording.Begin(); err != nil {
		e.Fatalf("Begin: %v", err)
	}

	// Work in flight: a long job, and submissions behind it, some waiting
	// on it and some on the one before.
	job := e.newSpinJob(time.Second)
	keep("Buffer (spin)", job.out)
	keep("Executable (spin)", job.x)
	first := e.commandBuffer()
	keep("CommandBuffer (long)", first)
	e.record(first, func() { job.record(e, first) })
	fences := []hal.Fence{e.submit(first)}
	keep("Fence (long)", fences[0])
	const behind = 30
	fx := e.executable(kernelFillIota)
	keep("Executable (fill_iota)", fx)
	out := e.buffer(4*behind, hal.HostVisible)
	keep("Buffer (fill_iota)", out)
	for i := range behind {
		cb := e.commandBuffer()
		keep(fmt.Sprintf("CommandBuffer %d", i), cb)
		e.record(cb, func() {
			e.dispatch(cb, hal.Dispatch{
				Executable:    fx,
				Bindings:      []hal.Binding{{Buffer: out, Offset: 0, Size: 0}},
				PushConstants: words(uint32(i), 1),
				Groups:        [3]uint32{1, 1, 1},
			})
		})
		wait := fences[0]
		if i%2 == 1 {
			wait = fences[len(fences)-1]
		}
		f := e.submit(cb, wait)
		keep(fmt.Sprintf("Fence %d", i), f)
		fences = append(fences, f)
	}

	// Waiters blocked on every fence when the loss comes.
	type result struct {
		err error
		at  time.Time
	}
	results := make([]result, len(fences))
	var wg sync.WaitGroup
	for i, f := range fences {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := f.Wait(ctx)
			results[i] = result{err, time.Now()}
		})
	}
	time.Sleep(20 * time.Millisecond)
	for i, f := range fences {
		if done, err := f.Poll(); done {
			e.Fatalf("submission %d of %d completed (%v) before the loss, behind %v: cannot test pending fences", i, len(fences), err, job)
		}
	}
	cause := errors.New("haltest: device marked lost")
	lostAt := time.Now()
	lm.MarkLost(cause)
	within(e, 10*time.Second, "Fence.Wait of fences pending when the device was lost", wg.Wait)
	for i, r := range results {
		what := fmt.Sprintf("Wait of submission %d of %d, pending when the device was lost", i, len(fences))
		wantLost(e, what, r.err)
		if d := r.at.Sub(lostAt); d > lossLatency {
			e.Errorf("%s returned %v after MarkLost, want within %v", what, d, lossLatency)
		}
	}

	lost := func(what string, f func() error) {
		e.Helper()
		var err error
		within(e, time.Second, what+" after the device was lost", func() { err = f() })
		wantLost(e, what, err)
	}
	lost("Device.Err", e.dev.Err)
	for i, f := range append(fences, doneFence) {
		lost(fmt.Sprintf("Wait of fence %d, again", i), func() error { return f.Wait(e.ctx) })
		within(e, time.Second, "Fence.Poll after the device was lost", func() {
			done, err := f.Poll()
			if !done {
				e.Errorf("Poll of fence %d after the device was lost: not done", i)
			}
			wantLost(e, fmt.Sprintf("Poll of fence %d", i), err)
		})
	}
	lost("CreateBuffer", func() error {
		b, err := e.dev.CreateBuffer(hal.BufferDesc{Size: 64, Memory: hal.HostVisible})
		if err == nil {
			keep("Buffer (created after the loss)", b)
		}
		return err
	})
	lost("CreateExecutable", func() error {
		x, err := e.dev.CreateExecutable(hal.ExecutableDesc{SPIRV: kernelEmpty.spirv})
		if err == nil {
			keep("Executable (created after the loss)", x)
		}
		return err
	})
	lost("CreateCommandBuffer", func() error {
		cb, err := e.dev.CreateCommandBuffer()
		if err == nil {
			keep("CommandBuffer (created after the loss)", cb)
		}
		return err
	})
	lost("CreateTimestampPool", func() error {
		p, err := e.dev.CreateTimestampPool(2)
		if err == nil {
			keep("TimestampPool (created after the loss)", p)
		}
		return err
	})
	lost("Submit", func() error {
		f, err := e.dev.Submit(ended)
		if err == nil {
			keep("Fence (submitted after the loss)", f)
		}
		return err
	})
	lost("Buffer.Write", func() error { return c.a.Write(e.ctx, 0, make([]byte, 4)) })
	lost("Buffer.Read", func() error { return c.c.Read(e.ctx, 0, make([]byte, 4)) })
	lost("CommandBuffer.Begin", ended.Begin)
	lost("CommandBuffer.Dispatch", func() error { return recording.Dispatch(c.dispatch(x)) })
	lost("CommandBuffer.Copy", func() error { return recording.Copy(c.a, 0, c.c, 0, 16) })
	lost("CommandBuffer.Fill", func() error { return recording.Fill(c.c, 0, 16, 1) })
	lost("CommandBuffer.Barrier", recording.Barrier)
	if pool != nil {
		lost("CommandBuffer.Timestamp", func() error { return recording.Timestamp(pool, 0) })
		lost("TimestampPool.Elapsed", func() error {
			_, err := pool.Elapsed(0, 1)
			return err
		})
		lost("TimestampPool.Ticks", func() error {
			_, err := pool.Ticks(0, 2)
			return err
		})
	}
	lost("CommandBuffer.End", recording.End)

	// Other devices go on.
	ocb := o.commandBuffer()
	o.record(ocb, func() { o.dispatch(ocb, oc.dispatch(ox)) })
	o.execute(ocb, "add on another device after the loss")
	oc.check(o, "add on another device after the loss")
	if err := o.dev.Err(); err != nil {
		e.Errorf("Err of another device after the loss: %v", err)
	}

	// Releasing everything works.
	for _, obj := range objects {
		within(e, 10*time.Second, obj.name+".Release after the device was lost", func() {
			if err := obj.r.Release(); err != nil {
				e.Errorf("%s.Release after the device was lost: %v", obj.name, err)
			}
		})
	}
	within(e, time.Minute, "Device.Release after the device was lost", func() {
		if err := e.dev.Release(); err != nil {
			e.Errorf("Device.Release after the device was lost: %v", err)
		}
	})
}
