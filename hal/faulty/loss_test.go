package faulty_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/hal/haltest"
)

// lossLatency is how soon after a loss every pending fence must fail,
// beyond what the host adds: at once, not when its work ends nor at its
// waiter's timeout. The host's share is measured beside the fences, by as
// many Waits on them whose context is cancelled at the loss
// (haltest.WaitControl), because on a busy runner it alone reached 670 ms.
// 200 ms more still fails a fence that waits for its work to end (the
// first submission, 300 ms of work begun some 60 ms before the loss) or
// for its waiter's timeout (10 s).
const lossLatency = 200 * time.Millisecond

// noMarker hides the wrapped device's hal.LossMarker, so that the wrapper
// must emulate a loss.
type noMarker struct{ hal.Device }

// maxReps is the most loop iterations a job asks of the kernel: llvmpipe
// (lavapipe) stops every shader loop after 65535 iterations, so longer
// work is made of more invocations, not more iterations.
const maxReps = 50000

// calibrate returns how many words make a job of reps iterations last
// about d on r's device (host time from submission to completion), in
// whole workgroups.
func calibrate(r *rig, reps uint32, d time.Duration) int {
	r.t.Helper()
	if reps > maxReps {
		r.t.Fatalf("calibrate: %d reps is more than llvmpipe runs", reps)
	}
	// GPU time, from timestamps: on a fast GPU the host's share of a small
	// job (setting up, submitting, checking) dwarfs the kernel's.
	pool, err := r.dev.CreateTimestampPool(2)
	if err != nil {
		r.t.Fatalf("CreateTimestampPool: %v", err)
	}
	defer func() {
		if err := pool.Release(); err != nil {
			r.t.Errorf("releasing the calibration pool: %v", err)
		}
	}()
	for n := 4 * groupSize; ; n *= 4 {
		j := r.newJob(n, reps, uint64(n))
		for _, step := range []func() error{
			j.cb.Begin,
			func() error { return j.cb.Timestamp(pool, 0) },
			func() error { return j.cb.Dispatch(j.dispatch(r.exe)) },
			func() error { return j.cb.Timestamp(pool, 1) },
			j.cb.End,
		} {
			if err := step(); err != nil {
				r.t.Fatalf("recording the calibration: %v", err)
			}
		}
		r.run("calibration", j)
		took, err := pool.Elapsed(0, 1)
		if err != nil {
			r.t.Fatalf("calibration timestamps: %v", err)
		}
		if took >= 20*time.Millisecond || n >= 1<<24 {
			scaled := float64(n) * float64(d) / float64(took)
			words := groupSize * max(1, int(min(scaled, 1<<26))/groupSize)
			r.t.Logf("calibration: %d words × %d reps took %v of GPU time; %v is %d words", n, reps, took, d, words)
			return words
		}
	}
}

// TestLossWhileInFlight loses a device while 100 submissions are pending:
// 50 running on the device, long enough to be still queued, and 50 held in
// the wrapper. Every fence must fail with hal.ErrDeviceLost at once (within
// lossLatency), every later call must fail the same way at once, every
// Release must work, and no goroutine may be left.
func TestLossWhileInFlight(t *testing.T) {
	for _, mode := range []string{"MarkLost", "Emulated"} {
		t.Run(mode, func(t *testing.T) {
			t.Cleanup(func() { goleak.VerifyNone(t) }) // after everything is released
			drv := openDriver(t)
			plan := faulty.NewPlan()
			inner, err := drv.Open(context.Background(), deviceIndex(t, drv), hal.DeviceOptions{})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			var r *rig
			if mode == "MarkLost" {
				if _, ok := inner.(hal.LossMarker); !ok {
					t.Fatal("the Vulkan device does not implement hal.LossMarker")
				}
				r = rigOf(t, faulty.Wrap(inner, plan), plan)
			} else {
				r = rigOf(t, faulty.Wrap(noMarker{inner}, plan), plan)
			}
			testLossWhileInFlight(t, r)
			// The loss took the backend's own path, or, without one, left
			// the backend alone.
			if mode == "MarkLost" {
				wantLost(t, "the Vulkan device's Err", inner.Err())
			} else if err := inner.Err(); err != nil {
				t.Errorf("an emulated loss reached the Vulkan device: %v", err)
			}
		})
	}
}

func testLossWhileInFlight(t *testing.T, r *rig) {
	const n, reps, running, held = 1024, 1000, 50, 50
	// The first submission lasts long enough for all of them to be still
	// pending when the device is lost, even on a loaded machine; the others
	// are short. The device goes on running them after the loss, and vk
	// waits at most a second for that before it frees what they use.
	// Calibrated twice: a GPU that was idle runs the first calibration at
	// its idle clock, several times slower than the work that follows.
	calibrate(r, maxReps, 300*time.Millisecond)
	longN := calibrate(r, maxReps, 300*time.Millisecond)

	// Made before the loss, to be used after it.
	spare := r.commandBuffer()
	spareBuf := r.buffer(n, hal.DeviceLocal)
	pool, err := r.dev.CreateTimestampPool(2)
	if err != nil {
		t.Fatalf("CreateTimestampPool: %v", err)
	}
	r.cleanup("timestamp pool", pool.Release)
	stamped := r.commandBuffer()
	for _, step := range []func() error{
		stamped.Begin,
		func() error { return stamped.Timestamp(pool, 0) },
		func() error { return stamped.Timestamp(pool, 1) },
		stamped.End,
	} {
		if err := step(); err != nil {
			t.Fatalf("recording timestamps: %v", err)
		}
	}
	if err := r.wait(r.submit(&job{cb: stamped})); err != nil {
		t.Fatalf("timestamps: %v", err)
	}
	if _, err := pool.Elapsed(0, 1); err != nil {
		t.Fatalf("Elapsed before the loss: %v", err)
	}

	jobs := make([]*job, running+held)
	for i := 1; i < len(jobs); i++ {
		jobs[i] = r.newJob(n, reps, uint64(i))
	}
	type result struct {
		i   int
		err error
		at  time.Time
	}
	var fences []hal.Fence
	var results chan result
	var firstSubmit time.Time
	var wake func() time.Time
	var woken func() time.Duration
	for attempt := 1; ; attempt++ {
		jobs[0] = r.newJob(longN, maxReps, 0)
		fences = make([]hal.Fence, len(jobs))
		firstSubmit = time.Now()
		for i := range running {
			fences[i] = r.submit(jobs[i])
		}
		r.plan.Hold()
		for i := running; i < running+held; i++ {
			fences[i] = r.submit(jobs[i])
		}
		if got := r.plan.Held(); got != held {
			t.Errorf("Held() = %d, want %d", got, held)
		}
		// Every fence has a waiter before the loss, to see how soon each
		// wakes.
		results = make(chan result, len(fences))
		for i, f := range fences {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err := f.Wait(ctx)
				results <- result{i, err, time.Now()}
			}()
		}
		// A control beside the waiters (see lossLatency).
		wake, woken = haltest.WaitControl(fences)
		time.Sleep(50 * time.Millisecond) // for the waiters to wait
		// The queue runs in order: while the first is pending, all are.
		if done, err := fences[0].Poll(); !done && err == nil {
			break
		}
		// The machine was slower when calibrating than now: let the
		// submissions finish, and try again with a longer first one.
		if attempt == 3 {
			t.Fatalf("the first submission (%d words) finished before the loss three times", longN)
		}
		t.Logf("the first submission (%d words) finished before the loss; trying again with %d", longN, 4*longN)
		r.plan.Release()
		for range fences {
			if res := <-results; res.err != nil {
				t.Fatalf("Wait on submission %d: %v", res.i, res.err)
			}
		}
		wake()
		woken()
		longN *= 4
	}
	select {
	case res := <-results:
		t.Fatalf("Wait on submission %d returned before the loss: %v", res.i, res.err)
	default:
	}
	lossAt := wake()
	r.plan.LoseNow()
	lostIn := time.Since(lossAt)
	t.Logf("the device was lost %v after the first submission", lossAt.Sub(firstSubmit))
	scheduler := woken()
	bound := lossLatency + scheduler

	var latencies []time.Duration
	for range fences {
		res := <-results
		wantLost(t, fmt.Sprintf("Wait on submission %d", res.i), res.err)
		after := res.at.Sub(lossAt)
		latencies = append(latencies, after)
		if after > bound {
			t.Errorf("Wait on submission %d returned %v after the loss, want within %v (%v, plus the %v that as many Waits cancelled at the loss took)",
				res.i, after, bound, lossLatency, scheduler)
		}
	}
	slices.Sort(latencies)
	t.Logf("LoseNow took %v; fences failed after the loss within: median %v, max %v; Waits cancelled at the loss returned within %v",
		lostIn, latencies[len(latencies)/2], latencies[len(latencies)-1], scheduler)
	if got := r.plan.Held(); got != 0 {
		t.Errorf("Held() = %d after the loss, want 0", got)
	}
	if got := r.plan.Faults(faulty.None); got != 1 {
		t.Errorf("Faults(None) = %d after LoseNow, want 1", got)
	}

	// Every later call fails at once, waits included.
	x := r.exe
	calls := map[string]func() error{
		"Device.Err":                 r.dev.Err,
		"Device.CreateBuffer":        func() error { _, err := r.dev.CreateBuffer(hal.BufferDesc{Size: 64}); return err },
		"Device.CreateExecutable":    func() error { _, err := r.dev.CreateExecutable(addDesc()); return err },
		"Device.CreateCommandBuffer": func() error { _, err := r.dev.CreateCommandBuffer(); return err },
		"Device.CreateTimestampPool": func() error { _, err := r.dev.CreateTimestampPool(2); return err },
		"Device.CreateImage": func() error {
			_, err := r.dev.CreateImage(hal.ImageDesc{Format: hal.R32Float, Width: 4, Height: 4, Usage: hal.ImageStorage})
			return err
		},
		"Device.CreateSampler":       func() error { _, err := r.dev.CreateSampler(hal.SamplerDesc{}); return err },
		"Device.Submit":              func() error { _, err := r.dev.Submit(spare); return err },
		"Device.Submit(wait)":        func() error { _, err := r.dev.Submit(stamped, fences[0]); return err },
		"Buffer.Write":               func() error { return jobs[0].a.Write(r.ctx, 0, make([]byte, 16)) },
		"Buffer.Read":                func() error { return jobs[0].out.Read(r.ctx, 0, make([]byte, 16)) },
		"Buffer.Write(device-local)": func() error { return spareBuf.Write(r.ctx, 0, make([]byte, 16)) },
		"Buffer.Read(device-local)":  func() error { return spareBuf.Read(r.ctx, 0, make([]byte, 16)) },
		"CommandBuffer.Begin":        spare.Begin,
		"CommandBuffer.Begin(held)":  jobs[running].cb.Begin,
		"CommandBuffer.Begin(ran)":   jobs[0].cb.Begin,
		"CommandBuffer.Dispatch":     func() error { return stamped.Dispatch(jobs[0].dispatch(x)) },
		"CommandBuffer.Copy":         func() error { return stamped.Copy(jobs[0].a, 0, spareBuf, 0, 16) },
		"CommandBuffer.Fill":         func() error { return stamped.Fill(spareBuf, 0, 16, 7) },
		"CommandBuffer.Barrier":      stamped.Barrier,
		"CommandBuffer.Timestamp":    func() error { return stamped.Timestamp(pool, 0) },
		"CommandBuffer.End":          stamped.End,
		"TimestampPool.Elapsed":      func() error { _, err := pool.Elapsed(0, 1); return err },
		"TimestampPool.Ticks":        func() error { _, err := pool.Ticks(0, 2); return err },
		"Fence.Wait(first)":          func() error { return fences[0].Wait(r.ctx) },
		"Fence.Wait(last)":           func() error { return fences[len(fences)-1].Wait(r.ctx) },
		"Fence.Poll(running)": func() error {
			done, err := fences[running-1].Poll()
			if !done {
				return errors.New("not done")
			}
			return err
		},
		"Fence.Poll(held)": func() error {
			done, err := fences[running].Poll()
			if !done {
				return errors.New("not done")
			}
			return err
		},
	}
	for name, call := range calls {
		haltest.Within(t, time.Second, name, func() {
			start := time.Now()
			err := call()
			if took := time.Since(start); took > bound {
				t.Errorf("%s took %v on a lost device, want at once (within %v)", name, took, bound)
			}
			wantLost(t, name, err)
		})
	}
	// Everything is released by the rig's cleanups, which check that each
	// Release succeeds, and then goleak checks that no goroutine is left.
}
