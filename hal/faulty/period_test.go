package faulty_test

import (
	"testing"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
)

// TestScaleTimestamps: a device whose timestamp period is not 1 ns (the
// real one's, lavapipe's and NVIDIA's alike, is 1) reports the same times.
// The wrapper tells the counter in thirds of the inner device's tick; a
// conversion that left the period out would report three times the time.
func TestScaleTimestamps(t *testing.T) {
	const m = 3
	plan := faulty.NewPlan()
	r := newRig(t, openDriver(t), plan)
	period := r.dev.Info().Limits.TimestampPeriod

	pool, err := r.dev.CreateTimestampPool(2)
	if err != nil {
		t.Fatalf("CreateTimestampPool: %v", err)
	}
	r.cleanup("timestamp pool", pool.Release)
	j := r.newJob(16*groupSize, 1000, 1)
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
	r.run("timed job", j)
	want, err := pool.Elapsed(0, 1)
	if err != nil {
		t.Fatalf("Elapsed at the device's own period: %v", err)
	}
	wantTicks, err := pool.Ticks(0, 2)
	if err != nil {
		t.Fatalf("Ticks at the device's own period: %v", err)
	}

	plan.ScaleTimestamps(m)
	if got, want := r.dev.Info().Limits.TimestampPeriod, period/m; got != want {
		t.Errorf("scaled TimestampPeriod = %v, want %v", got, want)
	}
	ticks, err := pool.Ticks(0, 2)
	if err != nil {
		t.Fatalf("scaled Ticks: %v", err)
	}
	for i := range ticks {
		if ticks[i] != m*wantTicks[i] {
			t.Errorf("scaled Ticks[%d] = %d, want %d × %d", i, ticks[i], m, wantTicks[i])
		}
	}
	got, err := pool.Elapsed(0, 1)
	if err != nil {
		t.Fatalf("scaled Elapsed: %v", err)
	}
	// Rounding: a nanosecond either way.
	if d := got - want; d < -time.Nanosecond || d > time.Nanosecond {
		t.Errorf("Elapsed with a period of %v ns = %v, at the device's own %v ns = %v; want the same time", period/m, got, period, want)
	}
	// And the one conversion that every backend and caller uses.
	conv, err := hal.TickDuration(ticks[0], ticks[1], period/m, r.dev.Info().Limits.TimestampValidBits)
	if err != nil || conv != got {
		t.Errorf("hal.TickDuration of the scaled readings = %v, %v; want %v", conv, err, got)
	}
	t.Logf("%v of GPU time: %d ticks of %v ns, or %d of %v ns", want, wantTicks[1]-wantTicks[0], period, ticks[1]-ticks[0], period/m)
}
