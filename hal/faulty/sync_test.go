package faulty_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/status"
)

// syncKinds are the calls TestSyncFailure makes fail, each with the code
// its rule gives (0 is the default, Internal).
var syncKinds = map[faulty.Call]status.Code{
	faulty.CreateBuffer:        status.ResourceExhausted,
	faulty.CreateExecutable:    status.InvalidArgument,
	faulty.CreateCommandBuffer: status.Unavailable,
	faulty.CreateTimestampPool: 0,
	faulty.PipelineCacheData:   status.Internal,
	faulty.BufferWrite:         status.Aborted,
	faulty.BufferRead:          status.DeadlineExceeded,
	faulty.Begin:               status.FailedPrecondition,
	faulty.Dispatch:            status.Aborted,
	faulty.Copy:                status.OutOfRange,
	faulty.Fill:                status.Unknown,
	faulty.Barrier:             status.Cancelled,
	faulty.Timestamp:           status.Unimplemented,
	faulty.End:                 status.DataLoss,
	faulty.Submit:              status.ResourceExhausted,
	faulty.Wait:                status.Unavailable,
	faulty.Poll:                status.Aborted,
	faulty.Elapsed:             status.Internal,
	faulty.Ticks:               status.OutOfRange,
	faulty.CreateImage:         status.ResourceExhausted,
	faulty.CreateSampler:       status.Internal,
	faulty.ImageWrite:          status.Aborted,
	faulty.ImageRead:           status.DeadlineExceeded,
	faulty.CopyBufferToImage:   status.OutOfRange,
	faulty.CopyImageToBuffer:   status.Unknown,
}

// TestSyncFailure makes each kind of call fail synchronously, in turn and
// then all at once, with a call whose effect would show if it had reached
// the device (a Fill or a Copy into a canary buffer, a Timestamp into a
// slot nobody else writes, a Begin over a recording that is then submitted
// again, a Submit that would leave the command buffer in flight, a Write
// of other data). The same objects must then do real, verified work.
func TestSyncFailure(t *testing.T) {
	drv := openDriver(t)
	for _, kind := range faulty.Calls() {
		if kind == faulty.Open {
			continue // TestOpenFailure
		}
		if _, ok := syncKinds[kind]; !ok {
			t.Errorf("TestSyncFailure does not make %v fail", kind)
		}
	}
	run := func(name string, fail map[faulty.Call]bool) {
		t.Run(name, func(t *testing.T) {
			plan := faulty.NewPlan()
			s := &syncCase{rig: newRig(t, drv, plan), fail: fail, made: map[faulty.Call]int{}}
			s.run()
			if t.Failed() {
				return
			}
			got := map[faulty.Call]int{}
			for kind := range syncKinds {
				if n := plan.Faults(kind); n > 0 {
					got[kind] = n
				}
			}
			if d := cmp.Diff(s.made, got); d != "" {
				t.Errorf("plan.Faults differs from the faults made (-want +got):\n%s", d)
			}
		})
	}
	all := map[faulty.Call]bool{}
	for _, kind := range faulty.Calls() {
		if _, ok := syncKinds[kind]; ok {
			run(kind.String(), map[faulty.Call]bool{kind: true})
			all[kind] = true
		}
	}
	run("All", all)
}

type syncCase struct {
	*rig
	fail map[faulty.Call]bool
	made map[faulty.Call]int // the faults made, by kind
}

// maybe makes call fail through an injected fault of kind, if kind is one
// to fail, and checks the error.
func (s *syncCase) maybe(kind faulty.Call, call func() error) {
	s.t.Helper()
	if !s.fail[kind] {
		return
	}
	code := syncKinds[kind]
	s.plan.FailNth(kind, 1, code)
	s.made[kind]++
	if code == status.OK {
		code = status.Internal
	}
	wantInjected(s.t, kind.String(), call(), code)
}

// must fails the test at once if err is not nil.
func (s *syncCase) must(what string, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
}

func (s *syncCase) run() {
	t, dev, ctx := s.t, s.dev, s.ctx
	const n = 256
	const size = 4 * n
	const sentinel, fillValue, lastValue = 0xc0ffee00, 0x5a5a5a5a, 0x77777777

	s.maybe(faulty.CreateBuffer, func() error {
		_, err := dev.CreateBuffer(hal.BufferDesc{Size: size})
		return err
	})
	a := s.buffer(n, hal.HostVisible)
	b := s.buffer(n, hal.DeviceLocal)
	out := s.buffer(n, hal.DeviceLocal)
	readback := s.buffer(2*n, hal.HostVisible)
	canary := s.buffer(n, hal.HostVisible)
	s.maybe(faulty.CreateExecutable, func() error {
		_, err := dev.CreateExecutable(addDesc())
		return err
	})
	exe := s.executable()
	s.maybe(faulty.CreateCommandBuffer, func() error {
		_, err := dev.CreateCommandBuffer()
		return err
	})
	cb := s.commandBuffer()
	s.maybe(faulty.CreateTimestampPool, func() error {
		_, err := dev.CreateTimestampPool(4)
		return err
	})
	pool, err := dev.CreateTimestampPool(4)
	s.must("CreateTimestampPool", err)
	s.cleanup("timestamp pool", pool.Release)
	if pc, ok := dev.(hal.PipelineCacher); ok {
		s.maybe(faulty.PipelineCacheData, func() error {
			_, err := pc.PipelineCacheData()
			return err
		})
		_, err := pc.PipelineCacheData()
		s.must("PipelineCacheData", err)
	}

	inA, inB := randomWords(1, n), randomWords(2, n)
	s.write(a, inA)
	s.write(b, inB)
	s.write(canary, filled(n, sentinel))
	s.maybe(faulty.BufferWrite, func() error { return a.Write(ctx, 0, bytesOf(filled(n, 13))) })

	j := &job{a: a, b: b, out: out, n: n}
	intoCanary := j.dispatch(exe)
	intoCanary.Bindings[2].Buffer = canary

	s.maybe(faulty.Begin, cb.Begin)
	s.must("Begin", cb.Begin())
	s.maybe(faulty.Timestamp, func() error { return cb.Timestamp(pool, 3) })
	s.must("Timestamp", cb.Timestamp(pool, 0))
	s.maybe(faulty.Fill, func() error { return cb.Fill(canary, 0, size, 0x11111111) })
	s.must("Fill", cb.Fill(readback, size, size, fillValue))
	s.maybe(faulty.Dispatch, func() error { return cb.Dispatch(intoCanary) })
	s.must("Dispatch", cb.Dispatch(j.dispatch(exe)))
	s.maybe(faulty.Barrier, cb.Barrier)
	s.must("Barrier", cb.Barrier())
	s.maybe(faulty.Copy, func() error { return cb.Copy(out, 0, canary, 0, size) })
	s.must("Copy", cb.Copy(out, 0, readback, 0, size))
	s.must("Timestamp", cb.Timestamp(pool, 1))
	s.must("Barrier", cb.Barrier())
	s.maybe(faulty.End, cb.End)
	// Still recording if End failed without reaching the device.
	s.must("Fill after End failed", cb.Fill(readback, size, 4, lastValue))
	s.must("End", cb.End())

	execute := func(round string) {
		s.t.Helper()
		s.maybe(faulty.Submit, func() error {
			f, err := dev.Submit(cb)
			if f != nil {
				t.Errorf("Submit that failed returned a fence")
			}
			return err
		})
		f, err := dev.Submit(cb) // in flight already if the failed Submit reached the device
		s.must(round+": Submit", err)
		s.cleanup("fence", f.Release)
		s.maybe(faulty.Wait, func() error { return f.Wait(ctx) })
		s.must(round+": Wait", s.wait(f))
		s.maybe(faulty.Poll, func() error {
			done, err := f.Poll()
			if done {
				t.Errorf("Poll that failed by injection says the submission is done")
			}
			return err
		})
		done, err := f.Poll()
		if !done || err != nil {
			t.Errorf("%s: Poll = %v, %v after Wait, want true, nil", round, done, err)
		}

		dst := bytesOf(filled(2*n, 0xeeeeeeee))
		s.maybe(faulty.BufferRead, func() error {
			err := readback.Read(ctx, 0, dst)
			if d := wordsDiff(filled(2*n, 0xeeeeeeee), wordsOf(dst)); d != "" {
				t.Errorf("Read that failed by injection wrote into its destination (-want +got):\n%s", d)
			}
			return err
		})
		s.must(round+": Read", readback.Read(ctx, 0, dst))
		want := append(expected(inA, inB, 0), lastValue)
		want = append(want, filled(n-1, fillValue)...)
		if d := wordsDiff(want, wordsOf(dst)); d != "" {
			t.Errorf("%s: results differ (-want +got):\n%s", round, d)
		}
		if d := cmp.Diff(filled(n, sentinel), s.read(canary)); d != "" {
			t.Errorf("%s: a call that failed by injection wrote into the canary buffer (-want +got):\n%s", round, d)
		}

		s.maybe(faulty.Elapsed, func() error { _, err := pool.Elapsed(0, 1); return err })
		if _, err := pool.Elapsed(0, 1); err != nil {
			t.Errorf("%s: Elapsed(0, 1): %v", round, err)
		}
		s.maybe(faulty.Ticks, func() error { _, err := pool.Ticks(0, 2); return err })
		ticks, err := pool.Ticks(0, 2)
		if err != nil || len(ticks) != 2 || ticks[1] < ticks[0] {
			t.Errorf("%s: Ticks(0, 2) = %v, %v", round, ticks, err)
		}
		// Slot 3 was only written by a Timestamp that failed, which would
		// have been before slot 1.
		if _, err := pool.Elapsed(3, 1); err == nil {
			t.Errorf("%s: Elapsed(3, 1) of a slot only a failed Timestamp wrote: no error", round)
		}
		if ticks, err := pool.Ticks(3, 1); err == nil {
			t.Errorf("%s: Ticks(3, 1) of a slot only a failed Timestamp wrote = %v, no error", round, ticks)
		}
	}
	execute("first round")

	// The same recording again on new inputs, after a Begin that failed:
	// had it reached the device, the recording would be gone.
	inA = randomWords(3, n)
	s.write(a, inA)
	s.maybe(faulty.Begin, cb.Begin)
	execute("second round, same recording")
	s.runImages()
}

// runImages makes the calls of images and samplers fail: a Write of other
// texels, a Read into a destination, copies into a canary buffer and from
// it into the image; none may show in the results.
func (s *syncCase) runImages() {
	t, dev, ctx := s.t, s.dev, s.ctx
	const w, h, sentinel = 8, 4, 0xc0ffee00
	desc := hal.ImageDesc{Format: hal.R32Uint, Width: w, Height: h, Usage: hal.ImageStorage, Label: "sync"}
	s.maybe(faulty.CreateImage, func() error { _, err := dev.CreateImage(desc); return err })
	img, err := dev.CreateImage(desc)
	s.must("CreateImage", err)
	s.cleanup("image", img.Release)
	s.maybe(faulty.CreateSampler, func() error { _, err := dev.CreateSampler(hal.SamplerDesc{}); return err })
	smp, err := dev.CreateSampler(hal.SamplerDesc{})
	s.must("CreateSampler", err)
	s.cleanup("sampler", smp.Release)

	texels := randomWords(4, w*h)
	s.must("Image.Write", img.Write(ctx, bytesOf(texels)))
	s.maybe(faulty.ImageWrite, func() error { return img.Write(ctx, bytesOf(filled(w*h, 13))) })
	dst := bytesOf(filled(w*h, 0xeeeeeeee))
	s.maybe(faulty.ImageRead, func() error {
		err := img.Read(ctx, dst)
		if d := wordsDiff(filled(w*h, 0xeeeeeeee), wordsOf(dst)); d != "" {
			t.Errorf("Image.Read that failed by injection wrote into its destination (-want +got):\n%s", d)
		}
		return err
	})
	s.must("Image.Read", img.Read(ctx, dst))
	if d := wordsDiff(texels, wordsOf(dst)); d != "" {
		t.Errorf("the image's texels (-want +got):\n%s", d)
	}

	out := s.buffer(w*h, hal.HostVisible)
	canary := s.buffer(w*h, hal.HostVisible)
	s.write(canary, filled(w*h, sentinel))
	cb := s.commandBuffer()
	s.must("Begin", cb.Begin())
	s.maybe(faulty.CopyImageToBuffer, func() error { return cb.CopyImageToBuffer(img, canary, 0) })
	s.must("CopyImageToBuffer", cb.CopyImageToBuffer(img, out, 0))
	s.must("Barrier", cb.Barrier())
	s.maybe(faulty.CopyBufferToImage, func() error { return cb.CopyBufferToImage(canary, 0, img) })
	s.must("End", cb.End())
	f, err := dev.Submit(cb)
	s.must("Submit of the image copies", err)
	s.cleanup("fence", f.Release)
	s.must("Wait of the image copies", s.wait(f))
	if d := wordsDiff(texels, s.read(out)); d != "" {
		t.Errorf("the image copied into a buffer (-want +got):\n%s", d)
	}
	if d := wordsDiff(filled(w*h, sentinel), s.read(canary)); d != "" {
		t.Errorf("a copy that failed by injection wrote into the canary buffer (-want +got):\n%s", d)
	}
	s.must("Image.Read after the copies", img.Read(ctx, dst))
	if d := wordsDiff(texels, wordsOf(dst)); d != "" {
		t.Errorf("a copy that failed by injection changed the image (-want +got):\n%s", d)
	}
}
