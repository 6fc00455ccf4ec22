package faulty_test

import (
	"testing"
	"time"

	"github.com/vkbench/vkbench/hal/faulty"
)

// TestSlow reads the same two timestamps before and after SlowFromNow(8):
// the same GPU time reads eight times as long, the injection is counted,
// and nothing else about the device changes.
func TestSlow(t *testing.T) {
	plan := faulty.NewPlan()
	r := newRig(t, openDriver(t), plan)
	pool, err := r.dev.CreateTimestampPool(2)
	if err != nil {
		t.Fatalf("CreateTimestampPool: %v", err)
	}
	r.cleanup("the pool", pool.Release)
	j := r.newJob(64*groupSize, 16, 1)
	for _, step := range []func() error{
		j.cb.Begin,
		func() error { return j.cb.Timestamp(pool, 0) },
		func() error { return j.cb.Dispatch(j.dispatch(r.exe)) },
		func() error { return j.cb.Timestamp(pool, 1) },
		j.cb.End,
	} {
		if err := step(); err != nil {
			t.Fatalf("recording: %v", err)
		}
	}
	r.run("the timed job", j)
	before, err := pool.Elapsed(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	plan.SlowFromNow(8)
	for range 2 {
		after, err := pool.Elapsed(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if after != time.Duration(float64(before)*8) {
			t.Errorf("slowed eightfold, the same timestamps read %v; want 8 × %v", after, before)
		}
	}
	if n := plan.Faults(faulty.Elapsed); n != 2 {
		t.Errorf("%d Elapsed faults counted, want 2", n)
	}
	r.check("the timed job", j)
}
