package autotune

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/telemetry"
)

// TestPickByObjective: the winner by energy or by energy-delay product is
// not the winner by time when the faster kernel draws more power; a
// runner-up within 2%, or whose interval overlaps, is a tie, and the
// fastest of the tied wins, whichever has the least energy; a candidate
// without its energy leaves the pick to time, saying so.
func TestPickByObjective(t *testing.T) {
	res := func(name string, median, joules float64) results.Result {
		s := statsAt(median)
		return results.Result{Name: name, Measurement: results.Measurement{Outcome: results.Measured, Stats: s, EnergyJ: joules}}
	}
	// fast: 1.0 ms at 400 W (0.40 J); lean: 1.2 ms at 250 W (0.30 J);
	// mid: 1.1 ms at 330 W (0.363 J).
	entry := func(o Objective) *Entry {
		return &Entry{Objective: o, Results: []results.Result{res("fast", 1.0e-3, 0.40), res("lean", 1.2e-3, 0.30), res("mid", 1.1e-3, 0.363)}}
	}
	for _, c := range []struct {
		o    Objective
		want string
	}{
		{ObjectiveTime, "fast"},
		{ObjectiveEnergy, "lean"},
		// EDP: fast 4.0e-4, lean 3.6e-4, mid 3.99e-4.
		{ObjectiveEDP, "lean"},
	} {
		e := entry(c.o)
		pickWinner(e)
		if e.FastestName != c.want || e.Objective != c.o {
			t.Errorf("%s: picked %s by %s, want %s", c.o, e.FastestName, e.Objective, c.want)
		}
	}

	e := entry(ObjectiveEnergy)
	e.Results[2].EnergyJ = 0.305 // within 2% of lean's, and mid is faster
	pickWinner(e)
	if e.FastestName != "mid" || !e.Tie || !strings.Contains(e.TieRule, "energy within 2%: the fastest of them wins") {
		t.Errorf("energies 0.300 (1.2 ms) and 0.305 (1.1 ms): %s, tie %v (%q); want mid, the faster of a tie by energy", e.FastestName, e.Tie, e.TieRule)
	}
	e = entry(ObjectiveEnergy)
	e.Results[0].EnergyJ = 0.305 // fast ties too: the fastest of all wins
	e.Results[2].EnergyJ = 0.304
	pickWinner(e)
	if e.FastestName != "fast" || !e.Tie {
		t.Errorf("energies 0.305 (1.0 ms), 0.300 (1.2 ms), 0.304 (1.1 ms): %s, tie %v; want fast, the fastest of three tied", e.FastestName, e.Tie)
	}

	// With intervals, a tie is an overlap, whatever the margin: 0.300
	// [0.298, 0.302] and 0.305 [0.303, 0.307] are apart, 0.300 and 0.330
	// [0.290, 0.340] overlap.
	e = entry(ObjectiveEnergy)
	e.Results[1].EnergyLoJ, e.Results[1].EnergyHiJ = 0.298, 0.302
	e.Results[2].EnergyJ, e.Results[2].EnergyLoJ, e.Results[2].EnergyHiJ = 0.305, 0.303, 0.307
	pickWinner(e)
	if e.FastestName != "lean" || e.Tie {
		t.Errorf("energies 0.300 [0.298, 0.302] and 0.305 [0.303, 0.307]: %s, tie %v (%q); want lean, no tie", e.FastestName, e.Tie, e.TieRule)
	}
	e.Results[2].EnergyJ, e.Results[2].EnergyLoJ, e.Results[2].EnergyHiJ = 0.330, 0.290, 0.340
	pickWinner(e)
	if e.FastestName != "mid" || !e.Tie || !strings.Contains(e.TieRule, "intervals overlap") {
		t.Errorf("energies 0.300 [0.298, 0.302] (1.2 ms) and 0.330 [0.290, 0.340] (1.1 ms): %s, tie %v (%q); want mid, the faster of a tie by overlap", e.FastestName, e.Tie, e.TieRule)
	}

	e = entry(ObjectiveEnergy)
	e.Results[2].EnergyJ = 0
	pickWinner(e)
	if e.FastestName != "fast" || e.Objective != ObjectiveTime || !strings.Contains(e.ObjectiveNote, "mid has no energy") {
		t.Errorf("one energy missing: %s by %s (%q); want fast by time, saying why", e.FastestName, e.Objective, e.ObjectiveNote)
	}
}

// TestBusyPower: a window's energy less the idle power over the time
// the GPU ran none of the runs, over the time it ran them; the window's
// mean power where the runs fill it.
func TestBusyPower(t *testing.T) {
	for _, c := range []struct{ e, dt, busy, idle, want float64 }{
		{e: 10, dt: 0.05, busy: 0.04, idle: 100, want: 225}, // 10 ms idle at 100 W: 1 J off, 9 J over 40 ms
		{e: 10, dt: 0.05, busy: 0.05, idle: 100, want: 200}, // no gap
		{e: 10, dt: 0.05, busy: 0.06, idle: 100, want: 200}, // runs faster than their median
		{e: 1, dt: 0.05, busy: 0.01, idle: 100, want: 20},   // the idle power would take all
	} {
		if got := busyPower(c.e, c.dt, c.busy, c.idle); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("busyPower(%g J, %g s, %g s busy, %g W idle) = %g W, want %g", c.e, c.dt, c.busy, c.idle, got, c.want)
		}
	}
}

// steppedSource's energy counter moves every step, at watts.
type steppedSource struct {
	start time.Time
	step  time.Duration
	watts float64
}

func (s steppedSource) Name() string { return "stepped" }
func (s steppedSource) Close() error { return nil }
func (s steppedSource) Sample() (telemetry.Sample, error) {
	now := time.Now()
	return telemetry.Sample{Time: now, EnergyJ: s.watts * now.Sub(s.start).Truncate(s.step).Seconds()}, nil
}

// TestWindowEdges: a window's edges are stamped at the middle of the
// readings around the counter's moves; where those readings are far apart
// (an edge step of 20 ms, as one short submission takes on a busy CPU
// device) against what the window measured, the window goes on from move
// to move up to energyStretch times its length, and its energy and length
// still agree with the counter's steps.
func TestWindowEdges(t *testing.T) {
	const step, d = 10 * time.Millisecond, 40 * time.Millisecond
	src := steppedSource{start: time.Now(), step: step, watts: 100}
	sleep := func(d time.Duration) func() error { return func() error { time.Sleep(d); return nil } }
	start, span, err := nextTick(src, must(src.Sample()), sleep(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	// The window measured a tenth of its time: 20 ms edges are 5% of it
	// only past 4 s, so it stretches to its limit.
	e, dt, err := window(src, start, span, d, sleep(time.Millisecond), sleep(20*time.Millisecond), func(s float64) float64 { return s / 10 })
	if err != nil {
		t.Fatal(err)
	}
	if dt < (energyStretch * d).Seconds() {
		t.Errorf("window of %v with 20 ms edges and a tenth of it measured; want it stretched to %v", time.Duration(dt*1e9), energyStretch*d)
	}
	// The energy is a whole number of steps, about as many as fit the
	// window (its stamps sit within half an edge of the moves, and an edge
	// takes 20 ms or more).
	if steps := e / (src.watts * step.Seconds()); math.Abs(steps-math.Round(steps)) > 1e-6 || math.Abs(steps*step.Seconds()/dt-1) > 0.25 {
		t.Errorf("window of %v holds %g J, %g steps; want whole steps of %v, about as many as fit it", time.Duration(dt*1e9), e, steps, step)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// scriptSource returns its readings in turn.
type scriptSource []telemetry.Sample

func (s *scriptSource) Name() string { return "script" }
func (s *scriptSource) Close() error { return nil }
func (s *scriptSource) Sample() (telemetry.Sample, error) {
	r := (*s)[0]
	*s = (*s)[1:]
	return r, nil
}

// TestNextTickStamps: a counter that stood still at a reading and moved
// at the next moved between the two: the move is stamped at their middle,
// with their distance as its span. A counter that moved at the first
// reading may count continuously: the reading keeps its own time.
func TestNextTickStamps(t *testing.T) {
	t0 := time.Now()
	at := func(ms int, j float64) telemetry.Sample {
		return telemetry.Sample{Time: t0.Add(time.Duration(ms) * time.Millisecond), EnergyJ: j}
	}
	none := func() error { return nil }
	for _, c := range []struct {
		name     string
		readings scriptSource
		stamp    int // ms
		span     int // ms
	}{
		{"stepped", scriptSource{at(10, 5), at(30, 5), at(70, 6)}, 50, 40},
		{"continuous", scriptSource{at(4, 5.1)}, 4, 4},
	} {
		s, span, err := nextTick(&c.readings, at(0, 5), none)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Time.Sub(t0); got != time.Duration(c.stamp)*time.Millisecond || span != time.Duration(c.span)*time.Millisecond {
			t.Errorf("%s: stamped at %v, span %v; want %d ms, span %d ms", c.name, got, span, c.stamp, c.span)
		}
	}
}
