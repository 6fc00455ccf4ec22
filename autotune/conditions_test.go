package autotune_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// steadySource is a telemetry source for a device that has none (as
// lavapipe has not): it draws a steady power, so that its energy counter
// grows with wall time, and reports the clocks and throttle reasons the
// test sets. The measurement reads it as it would NVML.
type steadySource struct {
	watts float64
	start time.Time
	step  time.Duration // where not 0, the energy counter moves only in steps this long

	mu      sync.Mutex
	clocks  func(n int) uint32 // the SM clock of reading n
	reasons telemetry.Reasons
	reads   int
	fail    error
}

func (s *steadySource) Name() string { return "steady" }
func (s *steadySource) Close() error { return nil }
func (s *steadySource) Sample() (telemetry.Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return telemetry.Sample{}, s.fail
	}
	s.reads++
	now := time.Now()
	clock := uint32(1980)
	if s.clocks != nil {
		clock = s.clocks(s.reads)
	}
	counted := now.Sub(s.start)
	if s.step > 0 {
		counted = counted.Truncate(s.step)
	}
	return telemetry.Sample{Time: now, SMClockMHz: clock, MemClockMHz: 2619, PowerW: s.watts, TempC: 50,
		EnergyJ: s.watts * counted.Seconds(), Reasons: s.reasons, MaxSMClockMHz: 1980, PowerLimitW: 700}, nil
}

func newSteady(watts float64) *steadySource { return &steadySource{watts: watts, start: time.Now()} }

// TestMeasureRecordsConditions: with a telemetry source, every sampled
// result carries the conditions at its samples, and an energy per run
// read off the source's energy counter around six windows of its runs,
// with an interval; the entry carries the whole window's conditions.
// Without a window, where the objective is time, no energy is measured.
func TestMeasureRecordsConditions(t *testing.T) {
	dev := devtest.Device(t)
	op := newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "spin", wg: 64, spin: 64}, scaleCand{name: "bad", wg: 64, wrong: true})
	o := quick
	src := newSteady(100)
	o.Telemetry = src
	o.EnergyWindow = 60 * time.Millisecond
	reported := map[string]int{}
	o.Progress = func(p autotune.Progress) {
		if p.Step == "energy" {
			reported[p.Candidate] = p.Done
		}
	}
	e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<14), o)
	if err != nil {
		t.Fatal(err)
	}
	if e.Conditions == nil || e.Conditions.Samples < 2 || e.Conditions.SMClockMHz.Max != 1980 || e.ConditionsNote != "" {
		t.Fatalf("entry conditions %+v, note %q; want the window's readings, no note", e.Conditions, e.ConditionsNote)
	}
	for _, r := range e.Results {
		if r.Outcome != results.Measured && r.Outcome != results.Dropped {
			if r.Conditions != nil || r.EnergyJ != 0 {
				t.Errorf("%s (%s) has conditions %+v, energy %g; want none", r.Name, r.Outcome, r.Conditions, r.EnergyJ)
			}
			if _, ok := reported[r.Name]; ok {
				t.Errorf("%s (%s) had an energy pass", r.Name, r.Outcome)
			}
			continue
		}
		c := r.Conditions
		if c == nil || c.Source != "steady" || c.Samples < 1 || c.SMClockMHz != (telemetry.Range{Min: 1980, Max: 1980}) || c.PowerW.Min != 100 {
			t.Errorf("%s: conditions %+v; want the steady source's", r.Name, c)
		}
		if slices.Contains(r.Flags, telemetry.FlagThrottled) || slices.Contains(r.Flags, telemetry.FlagClocksMoved) {
			t.Errorf("%s: flags %v under steady conditions", r.Name, r.Flags)
		}
		// The source draws 100 W busy or idle, so each window charges its
		// runs 100 W over the time they ran: at most 100 W × the median
		// time per run (exactly that where the window had gaps; less where
		// the window's runs ran faster than the samples' median). How fast
		// they ran is timing; this bound is not, and it fails an energy
		// not divided by the runs, divided twice by a batch, or charged
		// the gaps between submissions.
		per := r.Stats.Median
		if r.EnergyJ <= 0 || r.EnergyJ > 100*per*(1+1e-9) || math.Abs(r.PowerW-100) > 1e-6 {
			t.Errorf("%s: %g J per run at %g W; want more than 0, at most 100 W × its median %v = %g J, at 100 W", r.Name, r.EnergyJ, r.PowerW, time.Duration(per*1e9), 100*per)
		}
		if !(r.EnergyLoJ > 0 && r.EnergyLoJ <= r.EnergyJ && r.EnergyJ <= r.EnergyHiJ) {
			t.Errorf("%s: energy %g J, interval [%g, %g]; want an interval around it, from six windows", r.Name, r.EnergyJ, r.EnergyLoJ, r.EnergyHiJ)
		}
		if n := reported[r.Name]; n < 6 {
			t.Errorf("%s: the energy pass reported %d runs; want at least one a window, six windows", r.Name, n)
		}
	}

	o.EnergyWindow = 0
	o.Progress = nil
	e, err = autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<14), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Results {
		if r.EnergyJ != 0 {
			t.Errorf("objective time, no window: %s has %g J per run; want no energy measured", r.Name, r.EnergyJ)
		}
	}
}

// TestEnergyCounterInSteps: where the energy counter moves only every
// 25 ms (NVML's on some GPUs moves in steps), windows shorter than a step
// still give every candidate its energy: each window runs from one move
// to a later one, over several steps, and the power read is the source's
// (before, most windows saw the counter stand still: no energy at all,
// and the rest read one step too many or too few).
func TestEnergyCounterInSteps(t *testing.T) {
	dev := devtest.Device(t)
	op := newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "spin", wg: 64, spin: 64})
	o := quick
	src := newSteady(100)
	src.step = 25 * time.Millisecond
	o.Telemetry = src
	o.EnergyWindow = 60 * time.Millisecond // 10 ms a window, shorter than a step
	e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<14), o)
	if err != nil {
		t.Fatal(err)
	}
	if e.ConditionsNote != "" {
		t.Errorf("note %q; want none", e.ConditionsNote)
	}
	for _, r := range e.Results {
		if r.Outcome != results.Measured && r.Outcome != results.Dropped {
			continue
		}
		// 100 W drawn, busy or idle; a window's edges sit within a few
		// milliseconds after a step, and it spans at least five steps.
		if math.Abs(r.PowerW-100) > 25 || math.Abs(r.EnergyJ/(100*r.Stats.Median)-1) > 0.25 {
			t.Errorf("%s: %g J per run at %g W, median %v; want about 100 W × the median = %g J", r.Name, r.EnergyJ, r.PowerW, time.Duration(r.Stats.Median*1e9), 100*r.Stats.Median)
		}
		if !(r.EnergyLoJ > 0 && r.EnergyLoJ <= r.EnergyJ && r.EnergyJ <= r.EnergyHiJ) {
			t.Errorf("%s: energy %g J, interval [%g, %g]; want an interval around it", r.Name, r.EnergyJ, r.EnergyLoJ, r.EnergyHiJ)
		}
	}
}

// TestMeasureFlagsConditions: a GPU that throttles, or whose clocks move,
// while a result is measured flags it.
func TestMeasureFlagsConditions(t *testing.T) {
	dev := devtest.Device(t)
	op := newScaleOp(scaleCand{name: "a", wg: 64}, scaleCand{name: "b", wg: 128})
	t.Run("throttled", func(t *testing.T) {
		src := newSteady(300)
		src.reasons = telemetry.ReasonSWPowerCap
		o := quick
		o.Telemetry = src
		e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range e.Results {
			if !slices.Contains(r.Flags, telemetry.FlagThrottled) || !slices.Contains(r.Conditions.Throttles, "power-cap") {
				t.Errorf("%s: flags %v, throttles %v; want throttled by power-cap", r.Name, r.Flags, r.Conditions.Throttles)
			}
		}
	})
	t.Run("clocks-moved", func(t *testing.T) {
		src := newSteady(300)
		src.clocks = func(n int) uint32 { return []uint32{1980, 1410}[n%2] }
		o := quick
		o.Telemetry = src
		e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), o)
		if err != nil {
			t.Fatal(err)
		}
		moved := 0
		for _, r := range e.Results {
			if slices.Contains(r.Flags, telemetry.FlagClocksMoved) {
				moved++
			}
		}
		// A candidate's samples may all fall nearest readings of one
		// clock; the entry's window holds both.
		if moved == 0 || e.Conditions.SMClockMHz != (telemetry.Range{Min: 1410, Max: 1980}) {
			t.Errorf("%d results flagged %s, entry's clocks %+v; want some, and 1410-1980", moved, telemetry.FlagClocksMoved, e.Conditions.SMClockMHz)
		}
	})
	t.Run("source-fails", func(t *testing.T) {
		src := newSteady(300)
		src.fail = errors.New("GPU is lost")
		o := quick
		o.Telemetry = src
		e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), o)
		if err != nil {
			t.Fatalf("a failing telemetry source failed the measurement: %v", err)
		}
		if e.Fastest < 0 || !strings.Contains(e.ConditionsNote, "GPU is lost") {
			t.Errorf("fastest %d, note %q; want a winner, and the source's error noted", e.Fastest, e.ConditionsNote)
		}
	})
}

// TestMeasureWithoutTelemetry: where no source is available, the entry
// says so and why, and an energy objective is refused, saying why.
func TestMeasureWithoutTelemetry(t *testing.T) {
	dev := devtest.Device(t)
	op := newScaleOp(scaleCand{name: "a", wg: 64})
	o := quick
	o.TelemetryNote = "no NVML on this machine"
	e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), o)
	if err != nil {
		t.Fatal(err)
	}
	if e.ConditionsNote != "not available: no NVML on this machine" || e.Conditions != nil || e.Results[0].EnergyJ != 0 {
		t.Errorf("note %q, conditions %+v, energy %g; want not available and why, none", e.ConditionsNote, e.Conditions, e.Results[0].EnergyJ)
	}
	o.Objective = autotune.ObjectiveEnergy
	_, err = autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), o)
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "no NVML on this machine") {
		t.Errorf("energy objective without telemetry: %v; want FailedPrecondition saying why", err)
	}
	o.Objective = "speed"
	if _, err = autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), o); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("objective \"speed\": %v; want InvalidArgument", err)
	}
}

// TestTuneForEnergy: a tuner for energy picks the candidate with the
// least energy per run, keeps every candidate to the end (a slower one
// may use less), records the objective, and stores its answers apart
// from the tuner for time's.
func TestTuneForEnergy(t *testing.T) {
	dev := devtest.Device(t)
	cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	op := newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "spin", wg: 64, spin: 64})
	for _, obj := range []autotune.Objective{autotune.ObjectiveEnergy, autotune.ObjectiveEDP} {
		o := quick
		o.Telemetry = newSteady(200)
		o.EnergyWindow = 30 * time.Millisecond
		o.Objective = obj
		tuner := autotune.NewTuner(dev, cache, o)
		if got, want := tuner.Table().Tuner, "builtin+"+string(obj); got != want {
			t.Errorf("table %q, want %q", got, want)
		}
		e, err := tuner.Tune(context.Background(), op, kernels.SizeOf(1<<14), false)
		if err != nil {
			t.Fatal(err)
		}
		if e.Objective != obj {
			t.Errorf("objective %q (%s), want %q", e.Objective, e.ObjectiveNote, obj)
		}
		best := -1
		for i, r := range e.Results {
			if r.Outcome != results.Measured || r.EnergyJ <= 0 {
				t.Errorf("%s: %s with %g J per run; want measured to the end, with its energy", r.Name, r.Outcome, r.EnergyJ)
				continue
			}
			v := func(r results.Result) float64 {
				if obj == autotune.ObjectiveEDP {
					return r.EnergyJ * r.Stats.Median
				}
				return r.EnergyJ
			}
			if best < 0 || v(r) < v(e.Results[best]) {
				best = i
			}
		}
		if e.Fastest != best {
			t.Errorf("%s picked %s; the least %s is %s's", obj, e.FastestName, obj, e.Results[best].Name)
		}
		got, _, err := tuner.FastestOrDefault(context.Background(), op, kernels.SizeOf(1<<14))
		if err != nil || got != e.Fastest {
			t.Errorf("the cache answers %d (%v), want %d", got, err, e.Fastest)
		}
	}
}
