package faulty_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/status"
)

// TestLoseAtCall loses the device at a call of each kind: that call
// returns the loss without doing anything, the submission in flight fails,
// and so does every later call.
func TestLoseAtCall(t *testing.T) {
	drv := openDriver(t)
	for _, kind := range []faulty.Call{
		faulty.CreateBuffer, faulty.CreateCommandBuffer, faulty.BufferWrite, faulty.BufferRead,
		faulty.Begin, faulty.Dispatch, faulty.End, faulty.Submit, faulty.Poll, faulty.Elapsed,
	} {
		t.Run(kind.String(), func(t *testing.T) {
			plan := faulty.NewPlan()
			r := newRig(t, drv, plan)
			const n = 1024
			pending := r.newJob(n, 0, 1)
			j := r.newJob(n, 0, 2)
			pool, err := r.dev.CreateTimestampPool(2)
			if err != nil {
				t.Fatalf("CreateTimestampPool: %v", err)
			}
			r.cleanup("timestamp pool", pool.Release)
			plan.Hold() // so that pending is pending at the loss
			f := r.submit(pending)

			plan.LoseAt(kind, 1)
			before := plan.Calls(kind)
			var lost error
			switch kind {
			case faulty.CreateBuffer:
				_, lost = r.dev.CreateBuffer(hal.BufferDesc{Size: 64})
			case faulty.CreateCommandBuffer:
				_, lost = r.dev.CreateCommandBuffer()
			case faulty.BufferWrite:
				lost = j.a.Write(r.ctx, 0, make([]byte, 8))
			case faulty.BufferRead:
				lost = j.out.Read(r.ctx, 0, make([]byte, 8))
			case faulty.Begin:
				lost = j.cb.Begin()
			case faulty.Dispatch:
				lost = j.cb.Dispatch(j.dispatch(r.exe))
			case faulty.End:
				lost = j.cb.End()
			case faulty.Submit:
				_, lost = r.dev.Submit(j.cb)
			case faulty.Poll:
				var done bool
				done, lost = f.Poll()
				if !done {
					t.Errorf("Poll that lost the device says the submission is not done")
				}
			case faulty.Elapsed:
				_, lost = pool.Elapsed(0, 1)
			}
			wantLost(t, kind.String(), lost)
			if !errors.Is(lost, faulty.ErrInjected) {
				t.Errorf("%v: the loss %v does not name the injected cause", kind, lost)
			}
			wantLost(t, "Err", r.dev.Err())
			wantLost(t, "the held submission", r.wait(f))
			wantLost(t, "a later Submit", func() error { _, err := r.dev.Submit(j.cb); return err }())
			wantLost(t, "a later Read", j.out.Read(r.ctx, 0, make([]byte, 8)))

			in := plan.Injected()
			if len(in) != 1 || in[0].Call != kind || in[0].Effect != faulty.Lose || in[0].N != before+1 {
				t.Errorf("Injected() = %+v, want one loss at %v call %d", in, kind, before+1)
			}
		})
	}
}

// TestConcurrentFaults runs work from several goroutines on one wrapped
// device while calls fail at random and another goroutine holds and
// releases submissions: every error is an injected one, every result is
// right, and nothing races (run it with -race).
func TestConcurrentFaults(t *testing.T) {
	drv := openDriver(t)
	plan := faulty.NewPlan()
	r := newRig(t, drv, plan)
	const workers, ops, n = 4, 15, 512
	jobs := make([]*job, workers)
	for w := range jobs {
		jobs[w] = r.newJob(n, 2, uint64(w))
	}
	plan.FailRate(0.1, 42, status.Aborted,
		faulty.BufferWrite, faulty.BufferRead, faulty.Begin, faulty.Dispatch, faulty.End, faulty.Submit, faulty.Wait, faulty.Poll)

	stop := make(chan struct{})
	var toggler sync.WaitGroup
	toggler.Go(func() {
		for {
			select {
			case <-stop:
				plan.Release()
				return
			case <-time.After(3 * time.Millisecond):
				plan.Hold()
			}
			time.Sleep(2 * time.Millisecond)
			plan.Release()
		}
	})
	var wg sync.WaitGroup
	for w, j := range jobs {
		wg.Go(func() {
			// retry calls f until it returns anything but an injected
			// failure, which is all it may return.
			retry := func(what string, f func() error) bool {
				for {
					err := f()
					switch {
					case err == nil:
						return true
					case errors.Is(err, faulty.ErrInjected) && status.CodeOf(err) == status.Aborted:
						continue
					}
					t.Errorf("worker %d: %s: %v", w, what, err)
					return false
				}
			}
			for op := range ops {
				seed := uint64(1000*w + op)
				a, b := randomWords(seed, n), randomWords(seed+1, n)
				want := expected(a, b, j.reps)
				got := make([]byte, 4*n)
				var f hal.Fence
				ok := retry("Write a", func() error { return j.a.Write(r.ctx, 0, bytesOf(a)) }) &&
					retry("Write b", func() error { return j.b.Write(r.ctx, 0, bytesOf(b)) }) &&
					retry("Begin", j.cb.Begin) &&
					retry("Dispatch", func() error { return j.cb.Dispatch(j.dispatch(r.exe)) }) &&
					retry("End", j.cb.End) &&
					retry("Submit", func() (err error) { f, err = r.dev.Submit(j.cb); return err }) &&
					retry("Poll", func() error { _, err := f.Poll(); return err }) &&
					retry("Wait", func() error { return r.wait(f) }) &&
					retry("Read", func() error { return j.out.Read(r.ctx, 0, got) })
				if f != nil {
					if err := f.Release(); err != nil {
						t.Errorf("worker %d: fence Release: %v", w, err)
					}
				}
				if !ok {
					return
				}
				if d := wordsDiff(want, wordsOf(got)); d != "" {
					t.Errorf("worker %d, operation %d (-want +got):\n%s", w, op, d)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	toggler.Wait()
	if plan.Held() != 0 {
		t.Errorf("Held() = %d at the end", plan.Held())
	}
	total := 0
	for _, c := range faulty.Calls() {
		total += plan.Faults(c)
	}
	if total == 0 {
		t.Error("no fault injected")
	}
	t.Logf("%d faults injected in %d operations", total, workers*ops)
}
