package autotune_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
)

// oneRunPerSample measures one candidate with one run per sample (a
// nanosecond is shorter than any run) and no warm-up, so that the
// timestamp reads are counted: the first is the calibration's, the next
// are the samples'.
func oneRunPerSample() autotune.Options {
	o := quick
	o.MinSampleTime = time.Nanosecond
	o.Warmup = -1
	return o
}

// TestMeasureNoTickRebatches injects a timer that did not tick into the
// first sample: the sample is discarded, the candidate is measured with
// twice the runs per sample, and its result says why.
func TestMeasureNoTickRebatches(t *testing.T) {
	plan := faulty.NewPlan()
	dev := faulty.Wrap(devtest.Device(t), plan)
	op := newScaleOp(scaleCand{name: "wg64", wg: 64})
	plan.NoTickAt(2)
	e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), oneRunPerSample())
	if err != nil {
		t.Fatal(err)
	}
	if n := plan.Faults(faulty.Elapsed); n != 1 {
		t.Fatalf("%d no-tick faults injected, want 1", n)
	}
	r := e.Results[0]
	if r.Outcome != results.Measured || r.Stats == nil {
		t.Fatalf("after one sample whose timer did not tick: %+v, want measured", r)
	}
	if r.Stats.Batch != 2 {
		t.Errorf("batch = %d after a sample whose timer did not tick, want 2 (from 1)", r.Stats.Batch)
	}
	if !slices.Contains(r.Flags, autotune.FlagTimerDidNotTick) {
		t.Errorf("flags %v lack %q", r.Flags, autotune.FlagTimerDidNotTick)
	}
}

// TestMeasureTimerNeverTicks: a candidate the timer never sees, even
// batched, fails with the flag and says why, and the measurement goes on.
func TestMeasureTimerNeverTicks(t *testing.T) {
	plan := faulty.NewPlan()
	dev := faulty.Wrap(devtest.Device(t), plan)
	op := newScaleOp(scaleCand{name: "wg64", wg: 64})
	plan.Add(faulty.Rule{Calls: []faulty.Call{faulty.Elapsed}, Rate: 1, Effect: faulty.NoTick})
	e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), oneRunPerSample())
	if err != nil {
		t.Fatal(err)
	}
	r := e.Results[0]
	if r.Outcome != results.Failed || !strings.Contains(r.Error, "did not tick") {
		t.Errorf("a candidate the timer never sees: %+v, want failed saying the timer did not tick", r)
	}
	if !slices.Contains(r.Flags, autotune.FlagTimerDidNotTick) {
		t.Errorf("flags %v lack %q", r.Flags, autotune.FlagTimerDidNotTick)
	}
	if e.Fastest != -1 {
		t.Errorf("Fastest = %d with no candidate measured, want -1", e.Fastest)
	}
}

// TestTunerAsksTheDevice: a loss marked on the device by anyone, after a
// tune, fails the tuner's next answer (a hit in memory included) and its
// Err; a released device likewise.
func TestTunerAsksTheDevice(t *testing.T) {
	plan := faulty.NewPlan()
	dev := faulty.Wrap(devtest.Device(t), plan)
	c := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	tu := autotune.NewTuner(dev, c, quick)
	op := newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "wg32", wg: 32})
	if _, err := tu.Fastest(context.Background(), op, kernels.SizeOf(4096)); err != nil {
		t.Fatal(err)
	}
	if err := tu.Err(); err != nil {
		t.Fatalf("Err before the loss: %v", err)
	}
	dev.(hal.LossMarker).MarkLost(errors.New("test: lost on purpose"))
	if _, err := tu.Fastest(context.Background(), op, kernels.SizeOf(4096)); !errors.Is(err, hal.ErrDeviceLost) {
		t.Errorf("Fastest of a tuned size after the device was marked lost: %v, want hal.ErrDeviceLost", err)
	}
	if err := tu.Err(); !errors.Is(err, hal.ErrDeviceLost) {
		t.Errorf("Err after the device was marked lost: %v, want hal.ErrDeviceLost", err)
	}

	other := devtest.Device(t)
	tu = autotune.NewTuner(other, c, quick)
	if _, err := tu.Fastest(context.Background(), op, kernels.SizeOf(4096)); err != nil {
		t.Fatal(err)
	}
	if err := other.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := tu.Fastest(context.Background(), op, kernels.SizeOf(4096)); !errors.Is(err, hal.ErrReleased) {
		t.Errorf("Fastest after the device was released: %v, want hal.ErrReleased", err)
	}
}
