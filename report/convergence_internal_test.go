package report

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
)

// TestConvergenceByObjective: a log whose searches ranked by energy or
// edp is drawn by that figure, its axis and its recorded best in its
// unit; by time where it names none, where a verified record has no
// energy, or where the logs drawn together name different objectives.
// Before, every log was drawn by its best times ("fastest time so far
// (ms)").
func TestConvergenceByObjective(t *testing.T) {
	// Times fall while energies rise and fall: each objective has a best
	// so far of its own.
	points := []struct{ ms, mJ float64 }{{2, 3}, {1.5, 5}, {1, 4}, {3, 1}}
	logOf := func(objective string, lacking bool) *search.TuneLog {
		l := &search.TuneLog{Header: search.LogHeader{Key: "k"}}
		var order []string
		for i, p := range points {
			name := fmt.Sprintf("c%d", i)
			order = append(order, name)
			rec := search.LogRecord{Config: kernels.Config{"A": i}, Result: results.Result{Index: i, Name: name,
				Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: p.ms / 1e3}, EnergyJ: p.mJ / 1e3}}}
			if lacking && i == 2 {
				rec.EnergyJ = 0
			}
			l.Evals = append(l.Evals, rec)
		}
		l.Searches = []search.LogSearch{{Strategy: search.Random, Order: order, Measured: len(order), Objective: objective}}
		return l
	}
	for _, c := range []struct {
		name   string
		logs   []*search.TuneLog
		axis   string
		steps  []float64
		legend string
	}{
		{"time", []*search.TuneLog{logOf("", false)}, "fastest time so far (ms), lower is better", []float64{2, 1.5, 1, 1}, "fastest recorded, 1.000 ms"},
		{"energy", []*search.TuneLog{logOf("energy", false)}, "least energy per run so far (mJ), lower is better", []float64{3, 3, 3, 1}, "least energy recorded, 1.000 mJ"},
		{"edp", []*search.TuneLog{logOf("edp", false)}, "least energy × time so far (µJ·s), lower is better", []float64{6, 6, 4, 3}, "least energy × time recorded, 3.000 µJ·s"},
		{"energy, a record without", []*search.TuneLog{logOf("energy", true)}, "fastest time so far (ms), lower is better", []float64{2, 1.5, 1, 1}, "fastest recorded, 1.000 ms"},
		{"energy beside time", []*search.TuneLog{logOf("energy", false), logOf("", false)}, "fastest time so far (ms), lower is better", []float64{2, 1.5, 1, 1}, "fastest recorded, 1.000 ms"},
	} {
		var buf bytes.Buffer
		if n, err := Convergence(&buf, SVG, c.logs, Options{}); err != nil || n != len(c.logs) {
			t.Fatalf("%s: %d searches, %v", c.name, n, err)
		}
		texts := checkInside(t, buf.Bytes())
		for _, want := range []string{c.axis, c.legend} {
			if !slices.ContainsFunc(texts, func(tx svgText) bool { return tx.text == want }) {
				t.Errorf("%s: the chart does not say %q: %+v", c.name, want, texts)
			}
		}
		obj := convergenceObjective(c.logs)
		lines, best := convergenceLines(c.logs, obj)
		scale, _ := objectiveUnit(obj, best)
		var steps []float64
		for _, xy := range lines[0].xy {
			steps = append(steps, xy.Y*scale)
		}
		if d := cmp.Diff(c.steps, steps, cmpopts.EquateApprox(1e-9, 0)); d != "" {
			t.Errorf("%s: the best so far (-want +got):\n%s", c.name, d)
		}
	}
}
