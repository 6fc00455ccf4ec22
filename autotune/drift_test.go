package autotune_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// TestMeasureDriftRemeasures drops a slow candidate early, then slows the
// device down a millionfold (faulty's Slow: every time read from then on
// is a million times longer), so that the survivor's median ends far above
// the dropped candidate's, which was measured on the fast device. Left
// alone, the table would show a "slower" candidate with the lower median,
// and no one would know why. The measurement instead measures both again,
// side by side on the device as it now is, from scratch (no sample taken
// before the slowdown kept), and says so.
//
// A thousandfold was not enough on a busy machine: on lavapipe spin's
// times (about 5ms at rest, wg64's 60µs) stretch with the CPU time other
// processes take, up to 0.14s, while most of wg64's short runs do not, so
// the slowed wg64 (0.04s) stayed below spin and there was no drift to see.
// The load stretches some samples far more than others, wg64's most (at a
// load of 40 its median was 530 times its fastest sample), but a sample
// below a ten-thousandth of the median is one from before the slowdown:
// merged, they were a millionth of it.
func TestMeasureDriftRemeasures(t *testing.T) {
	plan := faulty.NewPlan()
	dev := faulty.Wrap(devtest.Device(t), plan)
	op := newScaleOp(scaleCand{name: "spin", wg: 64, spin: 1024}, scaleCand{name: "wg64", wg: 64})
	o := quick
	o.MinSamples, o.MaxSamples = stats.MinIntervalSamples, 60
	o.TargetHalfWidth = 1e-6 // sample to MaxSamples,
	o.Budget = time.Minute   // however busy the machine
	var slowed atomic.Bool
	var spinDone atomic.Int64
	o.Progress = func(p autotune.Progress) {
		if p.Step != "sample" {
			return
		}
		if p.Candidate == "spin" {
			spinDone.Store(int64(p.Done))
			return
		}
		// Once spin has been dropped (wg64 sampled three times since its
		// last sample), and early enough for most of wg64's samples to
		// come after.
		if p.Done >= int(spinDone.Load())+3 && p.Done <= 20 && !slowed.Swap(true) {
			plan.SlowFromNow(1e6)
		}
	}
	e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), o)
	if err != nil {
		t.Fatal(err)
	}
	if !slowed.Load() {
		t.Fatalf("spin was not dropped within wg64's first 20 samples: %+v", e.Results)
	}
	checkNoHiddenDrift(t, e)
	spin, wg64 := e.Results[0], e.Results[1]
	if e.FastestName != "wg64" {
		t.Errorf("winner %s, want wg64 (spin does 1024 times the work)", e.FastestName)
	}
	for _, r := range []results.Result{spin, wg64} {
		if r.Outcome != results.Measured || !slices.Contains(r.Flags, autotune.FlagRemeasured) || r.Drop != nil {
			t.Errorf("%s: %s, flags %v, drop %+v; want measured again (%s), no drop", r.Name, r.Outcome, r.Flags, r.Drop, autotune.FlagRemeasured)
		}
		if r.Stats.Min < r.Stats.Median/1e4 {
			t.Errorf("%s: fastest sample %v, median %v; want none from before the slowdown, measured again from scratch", r.Name, r.Stats.Min, r.Stats.Median)
		}
	}
	if spin.Stats.Median <= wg64.Stats.Median {
		t.Errorf("measured again side by side, spin's median %v is not above wg64's %v", spin.Stats.Median, wg64.Stats.Median)
	}
}

// TestMeasureRecordsDrop: a candidate dropped early carries the drop as
// data (its samples and median then, the leader and its median), which
// the report reads instead of the message; one measured again after a
// drift carries none.
func TestMeasureRecordsDrop(t *testing.T) {
	op := newScaleOp(scaleCand{name: "spin", wg: 64, spin: 1024}, scaleCand{name: "wg64", wg: 64})
	o := quick
	o.MinSamples, o.MaxSamples = stats.MinIntervalSamples, 60
	o.TargetHalfWidth = 1e-6 // sample to MaxSamples: spin is dropped long before
	e, err := autotune.Measure(context.Background(), devtest.Device(t), op, kernels.SizeOf(1<<12), o)
	if err != nil {
		t.Fatal(err)
	}
	spin, wg64 := e.Results[0], e.Results[1]
	if spin.Outcome != results.Dropped || wg64.Drop != nil {
		t.Fatalf("spin %s, wg64's drop %+v; want spin dropped, wg64 not", spin.Outcome, wg64.Drop)
	}
	d := spin.Drop
	if d == nil || d.Leader != "wg64" || d.Samples != spin.Stats.N || d.Median != spin.Stats.Median ||
		!(d.LeaderMedian > 0 && d.LeaderMedian < d.Median) || d.Rounds != 0 {
		t.Errorf("spin's drop %+v, stats %+v; want its samples and median, under wg64's", d, spin.Stats)
	}
}

// checkNoHiddenDrift fails t if a dropped candidate of e ends with a
// median below the winner's without the drift flag on both.
func checkNoHiddenDrift(t testing.TB, e *autotune.Entry) {
	t.Helper()
	if e.Fastest < 0 {
		return
	}
	w := e.Results[e.Fastest]
	for _, r := range e.Results {
		if r.Outcome == results.Dropped && r.Stats != nil && r.Stats.Median < w.Stats.Median &&
			(!slices.Contains(r.Flags, autotune.FlagDrift) || !slices.Contains(w.Flags, autotune.FlagDrift)) {
			t.Errorf("%s was dropped, and its median %v is below the winner %s's %v, unflagged", r.Name, r.Stats.Median, w.Name, w.Stats.Median)
		}
	}
}
