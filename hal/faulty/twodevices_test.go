package faulty_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/status"
)

// TestTwoDevices opens the same device twice through WrapDriver, each with
// its own plan, and loses one while both have work in flight: the other
// finishes its work and goes on computing correctly.
func TestTwoDevices(t *testing.T) {
	var mu sync.Mutex
	var plans []*faulty.Plan
	drv := faulty.WrapDriver(openDriver(t), func(int) *faulty.Plan {
		mu.Lock()
		defer mu.Unlock()
		p := faulty.NewPlan()
		plans = append(plans, p)
		return p
	})
	index := deviceIndex(t, drv)
	open := func() *rig {
		dev, err := drv.Open(context.Background(), index, hal.DeviceOptions{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		mu.Lock()
		plan := plans[len(plans)-1]
		mu.Unlock()
		return rigOf(t, dev, plan)
	}
	lost, kept := open(), open()
	if lost.plan == kept.plan {
		t.Fatal("WrapDriver gave both devices the same plan")
	}
	const reps = 1000
	n := calibrate(kept, reps, 20*time.Millisecond)

	var lostFences, keptFences []hal.Fence
	var keptJobs []*job
	for i := range 5 {
		lostFences = append(lostFences, lost.submit(lost.newJob(n, reps, uint64(i))))
		j := kept.newJob(n, reps, uint64(10+i))
		keptJobs = append(keptJobs, j)
		keptFences = append(keptFences, kept.submit(j))
	}
	start := time.Now()
	lost.plan.LoseNow()

	wantLost(t, "the lost device's Err", lost.dev.Err())
	for i, f := range lostFences {
		wantLost(t, fmt.Sprintf("the lost device's fence %d", i), lost.wait(f))
	}
	t.Logf("the lost device's fences failed within %v of the loss", time.Since(start))
	if err := kept.dev.Err(); err != nil {
		t.Fatalf("the other device's Err after the loss: %v", err)
	}
	for i, f := range keptFences {
		if err := kept.wait(f); err != nil {
			t.Errorf("the other device's fence %d: %v", i, err)
			continue
		}
		kept.check(fmt.Sprintf("the other device's job %d, in flight during the loss", i), keptJobs[i])
	}
	t.Logf("the other device's work in flight finished and checked %v after the loss", time.Since(start))
	// New work on the other device, new objects included.
	kept.run("a new job on the other device", kept.newJob(1024, 2, 99))
	keptJobs[0].setInputs(kept, 100)
	kept.run("an old command buffer of the other device", keptJobs[0])

	// An object of one device is foreign to the other, wrapped or not.
	f, err := kept.dev.Submit(keptJobs[1].cb, lostFences[0])
	if f != nil {
		kept.cleanup("fence", f.Release)
	}
	if !errors.Is(err, hal.ErrForeignObject) {
		t.Errorf("Submit on one device waiting on the other's fence: %v, want hal.ErrForeignObject", err)
	}
	if got := kept.plan.Faults(faulty.None) + lost.plan.Faults(faulty.None); got != 1 {
		t.Errorf("%d losses injected, want 1", got)
	}
}

// TestOpenFailure makes WrapDriver's Open fail: first synchronously, then
// with a loss; the next Open works.
func TestOpenFailure(t *testing.T) {
	plan := faulty.NewPlan()
	drv := faulty.WrapDriver(openDriver(t), func(int) *faulty.Plan { return plan })
	index := deviceIndex(t, drv)
	plan.FailNth(faulty.Open, 1, status.Unavailable)
	plan.LoseAt(faulty.Open, 2)
	dev, err := drv.Open(context.Background(), index, hal.DeviceOptions{})
	if dev != nil {
		t.Errorf("Open that failed returned a device")
	}
	wantInjected(t, "Open", err, status.Unavailable)
	dev, err = drv.Open(context.Background(), index, hal.DeviceOptions{})
	if dev != nil {
		t.Errorf("Open that lost the device returned one")
	}
	wantLost(t, "Open", err)
	if !errors.Is(err, faulty.ErrInjected) {
		t.Errorf("Open: the loss %v does not name the injected cause", err)
	}
	dev, err = drv.Open(context.Background(), index, hal.DeviceOptions{})
	if err != nil {
		t.Fatalf("Open after the injected failures: %v", err)
	}
	r := rigOf(t, dev, plan)
	r.run("a job on the device opened after failures", r.newJob(512, 1, 7))
	if got := plan.Calls(faulty.Open); got != 3 {
		t.Errorf("Calls(Open) = %d, want 3", got)
	}
}
