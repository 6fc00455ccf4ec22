package faulty_test

import (
	"errors"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/status"
)

// TestAsyncFailure injects the asynchronous failure of one submission in a
// graph of seven: it must fail that submission and those that wait on it,
// directly or transitively, and no other; the device stays usable.
func TestAsyncFailure(t *testing.T) {
	drv := openDriver(t)
	plan := faulty.NewPlan()
	r := newRig(t, drv, plan)
	const n = 4096

	// The graph, by index: each waits on those listed.
	waits := [][]int{
		0: nil,
		1: nil,    // the one that fails
		2: {1},    // directly on it
		3: {2},    // transitively
		4: nil,    // independent
		5: {0},    // on a good one
		6: {0, 3}, // on a good one and, transitively, on the failed one
		7: {5, 4}, // on good ones only
	}
	failed := map[int]bool{1: true, 2: true, 3: true, 6: true}

	jobs := make([]*job, len(waits))
	for i := range jobs {
		jobs[i] = r.newJob(n, 3, uint64(100+i))
	}
	// Fill the outputs, so that a failed submission that did run is seen
	// to have run for real.
	for _, j := range jobs {
		r.write(j.out, filled(n, 0xdeadbeef))
	}
	plan.FailAsync(2, status.Aborted) // the 2nd submission from now: job 1
	fences := make([]hal.Fence, len(jobs))
	for i, j := range jobs {
		var w []hal.Fence
		for _, k := range waits[i] {
			w = append(w, fences[k])
		}
		fences[i] = r.submit(j, w...)
	}

	injected := plan.Injected()
	if len(injected) != 1 || injected[0].Effect != faulty.FailAsync || injected[0].Call != faulty.Submit {
		t.Fatalf("Injected() = %v, want one asynchronous failure of a Submit", injected)
	}
	cause := injected[0].Err
	for i, f := range fences {
		err := r.wait(f)
		if !failed[i] {
			if err != nil {
				t.Errorf("submission %d, which does not wait on the failed one: %v", i, err)
			} else {
				r.check("submission that does not depend on the failed one", jobs[i])
			}
			continue
		}
		switch {
		case err == nil:
			t.Errorf("submission %d, which waits on the failed one, succeeded", i)
		case !errors.Is(err, cause):
			t.Errorf("submission %d: error %v does not name the injected failure %v as its cause", i, err, cause)
		case i == 1 && err != cause:
			t.Errorf("the failed submission's fence reports %v, want the injected %v", err, cause)
		case status.CodeOf(err) != status.Aborted:
			t.Errorf("submission %d: error %v has code %v, want the injected Aborted", i, err, status.CodeOf(err))
		case errors.Is(err, hal.ErrDeviceLost):
			t.Errorf("submission %d: error %v is a device loss", i, err)
		}
		// Poll says the same, and the submission did run.
		if done, perr := f.Poll(); !done || !errors.Is(perr, cause) {
			t.Errorf("submission %d: Poll = %v, %v after Wait, want done with the injected failure", i, done, perr)
		}
		if i == 1 {
			if d := wordsDiff(jobs[i].want, r.read(jobs[i].out)); d != "" {
				t.Errorf("the submission failed by injection did not really run (-want +got):\n%s", d)
			}
		}
	}

	if err := r.dev.Err(); err != nil {
		t.Errorf("device Err() after an asynchronous failure: %v", err)
	}
	if got, want := plan.Faults(faulty.Submit), 1; got != want {
		t.Errorf("Faults(Submit) = %d, want %d", got, want)
	}
	// The device still computes, with the command buffer of the failed
	// submission too.
	jobs[1].setInputs(r, 999)
	r.run("the failed submission's command buffer, submitted again", jobs[1])
	r.run("a new job after the failure", r.newJob(n, 0, 1000))
}
