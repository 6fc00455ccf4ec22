package autotune

import (
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

	e = entry(ObjectiveEnergy)
	e.Results[2].EnergyJ = 0
	pickWinner(e)
	if e.FastestName != "fast" || e.Objective != ObjectiveTime || !strings.Contains(e.ObjectiveNote, "mid has no energy") {
		t.Errorf("one energy missing: %s by %s (%q); want fast by time, saying why", e.FastestName, e.Objective, e.ObjectiveNote)
	}
}
