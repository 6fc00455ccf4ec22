package autotune

import (
	"math"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/results"
)

// TestPickByObjective: the winner by energy or by energy-delay product is
// not the winner by time when the faster kernel draws more power; a
// runner-up within 2% is a tie; a candidate without its energy leaves the
// pick to time, saying so.
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
	e.Results[2].EnergyJ = 0.305 // within 2% of lean's
	pickWinner(e)
	if e.FastestName != "lean" || !e.Tie || !strings.Contains(e.TieRule, "energy") {
		t.Errorf("energies 0.300 and 0.305: %s, tie %v (%q); want lean, a tie by energy", e.FastestName, e.Tie, e.TieRule)
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
	if e.FastestName != "lean" || !e.Tie || !strings.Contains(e.TieRule, "intervals overlap") {
		t.Errorf("energies 0.300 [0.298, 0.302] and 0.330 [0.290, 0.340]: %s, tie %v (%q); want lean, a tie by overlap", e.FastestName, e.Tie, e.TieRule)
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
