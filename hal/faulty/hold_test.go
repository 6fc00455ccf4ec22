package faulty_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/status"
)

// TestWaitDeadline waits with a deadline on a submission that cannot
// complete, because the wrapper holds it: Wait returns DeadlineExceeded in
// time, and again the next time; once the hold is released, the same fence
// completes with correct results.
func TestWaitDeadline(t *testing.T) {
	drv := openDriver(t)
	plan := faulty.NewPlan()
	r := newRig(t, drv, plan)
	const n = 2048
	// A Wait returns within a millisecond of its deadline on an idle
	// machine, and was seen 15 ms late on a loaded one (the CPU's other
	// work keeping this process from running): the slack, once 50 ms,
	// leaves room for that, and still fails a Wait that notices its
	// deadline late.
	const deadline = 50 * time.Millisecond
	const slack = 150 * time.Millisecond

	j := r.newJob(n, 5, 1)
	plan.Hold()
	f := r.submit(j)
	// A submission that waits on the held one, to be let through with it.
	next := r.newJob(n, 0, 2)
	g := r.submit(next, f)
	// A held submission whose command buffer is released at once: the
	// release waits for the hold to end, and the submission runs.
	gone := r.newJob(n, 0, 3)
	h := r.submit(gone)
	if got := plan.Held(); got != 3 {
		t.Errorf("Held() = %d, want 3", got)
	}

	for _, attempt := range []string{"first", "second"} {
		// Timed from before the context is made, whose deadline counts
		// from then: timed from after, a moment when the process did not
		// run between the two (47.9 ms of a 50 ms deadline, on a loaded
		// machine) looked like a Wait that returned early.
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		// A plain timer of the same deadline beside it: how late the host
		// runs it is what a busy machine adds, which the Wait may add too.
		control := make(chan time.Duration, 1)
		go func() {
			<-time.After(deadline)
			control <- time.Since(start)
		}()
		err := f.Wait(ctx)
		took := time.Since(start)
		cancel()
		late := <-control - deadline
		switch {
		case err == nil:
			t.Fatalf("%s Wait on a held submission: no error", attempt)
		case status.CodeOf(err) != status.DeadlineExceeded:
			t.Errorf("%s Wait: %v has code %v, want DeadlineExceeded", attempt, err, status.CodeOf(err))
		case !errors.Is(err, context.DeadlineExceeded):
			t.Errorf("%s Wait: %v does not match context.DeadlineExceeded", attempt, err)
		}
		if took < deadline || took > deadline+slack+late {
			t.Errorf("%s Wait returned after %v, want between %v and %v (%v, plus the %v a plain timer ran late)", attempt, took, deadline, deadline+slack+late, deadline+slack, late)
		}
		t.Logf("%s Wait with a %v deadline returned after %v", attempt, deadline, took)
	}
	// A cancelled context says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.Wait(ctx); status.CodeOf(err) != status.Cancelled {
		t.Errorf("Wait with a cancelled context: %v, want Cancelled", err)
	}
	if done, err := f.Poll(); done || err != nil {
		t.Errorf("Poll of a held submission = %v, %v, want false, nil", done, err)
	}
	// Its command buffer is in flight, as far as anyone can tell.
	if err := j.cb.Begin(); !errors.Is(err, hal.ErrInFlight) {
		t.Errorf("Begin of a held command buffer: %v, want hal.ErrInFlight", err)
	}
	if _, err := r.dev.Submit(j.cb); !errors.Is(err, hal.ErrInFlight) {
		t.Errorf("Submit of a held command buffer: %v, want hal.ErrInFlight", err)
	}
	if err := gone.cb.Release(); err != nil {
		t.Errorf("Release of a held command buffer: %v", err)
	}
	if err := gone.cb.Begin(); !errors.Is(err, hal.ErrReleased) {
		t.Errorf("Begin of a held command buffer after its Release: %v, want hal.ErrReleased", err)
	}

	plan.Release()
	if got := plan.Held(); got != 0 {
		t.Errorf("Held() = %d after Release, want 0", got)
	}
	if err := r.wait(f); err != nil {
		t.Fatalf("Wait after the hold was released: %v", err)
	}
	r.check("the held submission, released", j)
	if err := r.wait(g); err != nil {
		t.Fatalf("Wait on the submission that waited on the held one: %v", err)
	}
	r.check("the submission that waited on the held one", next)
	if err := r.wait(h); err != nil {
		t.Fatalf("Wait on the held submission whose command buffer was released: %v", err)
	}
	r.check("the held submission whose command buffer was released", gone)
	r.run("the held command buffer, submitted again", j)
}

// TestHeldLoss loses a device, in each of the ways a plan can, while
// submissions are held: their fences fail at once (within lossLatency),
// also while somebody waits on them.
func TestHeldLoss(t *testing.T) {
	drv := openDriver(t)
	for _, how := range []string{"LoseNow", "LoseAfter", "LoseAt(Wait)", "MarkLost"} {
		t.Run(how, func(t *testing.T) {
			plan := faulty.NewPlan()
			r := newRig(t, drv, plan)
			j := r.newJob(256, 0, 1)
			plan.Hold()
			f := r.submit(j)
			done := make(chan error, 1)
			var lossAt time.Time
			switch how {
			case "LoseAt(Wait)":
				// The Wait that a real driver would report the loss from.
				plan.LoseAt(faulty.Wait, 1)
				lossAt = time.Now()
				done <- f.Wait(context.Background())
			default:
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					done <- f.Wait(ctx)
				}()
				time.Sleep(20 * time.Millisecond) // so that the waiter waits
				lossAt = time.Now()
				switch how {
				case "LoseNow":
					plan.LoseNow()
				case "LoseAfter":
					lossAt = lossAt.Add(30 * time.Millisecond)
					plan.LoseAfter(30 * time.Millisecond)
				case "MarkLost":
					r.dev.(hal.LossMarker).MarkLost(status.New(status.DataLoss, "test: lost by hand"))
				}
			}
			select {
			case err := <-done:
				took := time.Since(lossAt)
				wantLost(t, "Wait on a held submission", err)
				if took > lossLatency {
					t.Errorf("Wait on a held submission returned %v after the loss, want within %v", took, lossLatency)
				}
				t.Logf("held fence failed %v after the loss", took)
			case <-time.After(5 * time.Second):
				t.Fatal("Wait on a held submission did not return after the loss")
			}
			wantLost(t, "Poll after the loss", func() error { _, err := f.Poll(); return err }())
			wantLost(t, "Err", r.dev.Err())
			if plan.Held() != 0 {
				t.Errorf("Held() = %d after the loss", plan.Held())
			}
			plan.Release() // nothing left to let through
		})
	}
}
