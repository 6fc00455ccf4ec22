package autotune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// Objective is what a tune picks its winner by.
type Objective string

const (
	// ObjectiveTime picks the lowest median time per run (the default).
	ObjectiveTime Objective = "time"
	// ObjectiveEnergy picks the least energy per run.
	ObjectiveEnergy Objective = "energy"
	// ObjectiveEDP picks the lowest energy-delay product: energy per run
	// times median time per run, which weighs both.
	ObjectiveEDP Objective = "edp"
)

// ParseObjective reads "time", "energy" or "edp".
func ParseObjective(s string) (Objective, error) {
	switch o := Objective(strings.ToLower(strings.TrimSpace(s))); o {
	case ObjectiveTime, ObjectiveEnergy, ObjectiveEDP:
		return o, nil
	}
	return "", status.Newf(status.InvalidArgument, "autotune: unknown objective %q (want time, energy or edp)", s)
}

// telemetryInterval is how often the conditions are read while sampling:
// often enough to see a clock move within a second, rarely enough that
// the reads (a few NVML calls, on the CPU) cost the measurement nothing.
const telemetryInterval = 10 * time.Millisecond

// energyBatchTime is how long one submission of an energy window lasts
// at least: the GPU idles between submissions, so fewer, longer
// submissions leave less idle time in a window (what is left is
// accounted for: see energyPass).
const energyBatchTime = 20 * time.Millisecond

// energyWindows is how many windows an energy pass measures each
// candidate in: enough for a 95% interval of its energy per run.
const energyWindows = stats.MinIntervalSamples

// energyTieMargin makes a runner-up within this fraction of the winner's
// objective a tie where the energies have no interval (a candidate with
// fewer windows than energyWindows).
const energyTieMargin = 0.02

// watchConditions starts reading the device's conditions, where there is
// a telemetry source; nil otherwise.
func (m *measurement) watchConditions() *telemetry.Monitor {
	if m.opts.Telemetry == nil {
		return nil
	}
	return telemetry.Watch(m.opts.Telemetry, telemetryInterval)
}

// attributeConditions stops mon and gives each candidate sampled the
// conditions at the moments its samples were taken (telemetry.Around),
// flagging those measured while the GPU throttled or its clocks moved.
// A source that fails is noted in the entry; it never fails the
// measurement.
func (m *measurement) attributeConditions(mon *telemetry.Monitor) {
	if mon == nil {
		return
	}
	all, err := mon.Stop()
	if err != nil {
		m.conditionsNote = "readings failed: " + err.Error()
	}
	if all.Samples == 0 {
		return
	}
	m.conditions = &all
	samples := mon.Samples()
	name := m.opts.Telemetry.Name()
	for _, c := range m.cands {
		if len(c.moments) == 0 {
			continue
		}
		cond := telemetry.Around(name, samples, c.moments)
		c.res.Conditions = &cond
		for _, f := range cond.Flags() {
			addFlag(&c.res, f)
		}
	}
}

// energyPass measures the energy per run of every candidate that was
// sampled, from the device's energy counter read around windows of its
// runs back to back: energyWindows windows each, taken in turns across the
// candidates so that a drift of the GPU's state spreads over all of them,
// EnergyWindow in all. The energy per run is the windows' median, with
// their 95% interval. Time in a window when the GPU ran none of the
// candidate's runs (between submissions: its runs times its median time
// per run, the GPU's own timestamps, leave the rest) is charged at the idle
// power read just before the pass, and taken off, so that a candidate
// whose submissions leave more gaps is not charged for them. Without a
// telemetry source, or without an EnergyWindow, it does nothing; a
// reading that fails leaves the energy unknown (0) and is noted.
func (m *measurement) energyPass(ctx context.Context) error {
	src := m.opts.Telemetry
	if src == nil || m.opts.EnergyWindow <= 0 {
		return nil
	}
	var cands []*candState
	for _, c := range m.cands {
		if len(c.samples) > 0 && (c.res.Outcome == "" || c.res.Outcome == results.Dropped) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	window := m.opts.EnergyWindow / energyWindows
	idle, err := idlePower(ctx, src, window)
	if err != nil {
		m.conditionsNote = "energy not measured: " + err.Error()
		return nil
	}
	type tally struct {
		perRun []float64
		watts  float64
		runs   int
		failed bool
	}
	tallies := make([]tally, len(cands))
	per := make([]float64, len(cands)) // each one's median time per run
	for k, c := range cands {
		per[k] = stats.Summarize(c.samples, c.batch).Median
	}
	for range energyWindows {
		for k, c := range cands {
			t := &tallies[k]
			if t.failed {
				continue
			}
			w, err := m.energyWindow(ctx, c, per[k], window, idle)
			if err != nil {
				return err
			}
			if w.runs == 0 {
				t.failed = true
				continue
			}
			t.perRun = append(t.perRun, w.joules/float64(w.runs))
			t.watts += w.watts
			t.runs += w.runs
		}
	}
	for k, c := range cands {
		t := tallies[k]
		if t.failed {
			continue
		}
		e := stats.Summarize(t.perRun, 1)
		c.res.EnergyJ, c.res.EnergyLoJ, c.res.EnergyHiJ = e.Median, e.Lo, e.Hi
		c.res.PowerW = t.watts / float64(len(t.perRun))
		m.progress(c.res.Name, "energy", t.runs, t.runs)
	}
	return nil
}

// idlePower reads the device's power while nothing is submitted, over d:
// the energy counter's difference over the time between its readings.
func idlePower(ctx context.Context, src telemetry.Source, d time.Duration) (float64, error) {
	before, err := src.Sample()
	if err != nil {
		return 0, err
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(d):
	}
	after, err := src.Sample()
	if err != nil {
		return 0, err
	}
	dt := after.Time.Sub(before.Time).Seconds()
	e := telemetry.Energy(before, after)
	if dt <= 0 || e <= 0 {
		return 0, fmt.Errorf("%s's energy counter did not move", src.Name())
	}
	return e / dt, nil
}

// energyReading is one window of an energy pass: the runs it made (0 when
// it could not be read, the entry noting why), the energy charged to them
// and the mean power over the window.
type energyReading struct {
	runs   int
	joules float64
	watts  float64
}

// energyWindow runs c, whose median time per run is per seconds, back to
// back for d and reads the device's energy counter around it, less idle
// watts over the time the GPU did not run c. An error is fatal to the
// measurement; c's own failure is a reading of no runs.
func (m *measurement) energyWindow(ctx context.Context, c *candState, per float64, d time.Duration, idle float64) (energyReading, error) {
	batch := c.batch
	if per > 0 {
		batch = min(m.opts.MaxBatch, max(batch, int(energyBatchTime.Seconds()/per)))
	}
	src := m.opts.Telemetry
	before, err := src.Sample()
	if err != nil {
		m.conditionsNote = "energy not measured: " + err.Error()
		return energyReading{}, nil
	}
	runs := 0
	for runs == 0 || time.Since(before.Time) < d {
		_, err := m.timed(ctx, c, batch)
		switch {
		case err == nil || errors.Is(err, hal.ErrNoTick):
			// The runs ran whether or not the timer saw them.
			runs += batch
		case fatal(ctx, m.dev, err):
			return energyReading{}, err
		default:
			return energyReading{}, nil // the candidate's trouble: its energy stays unknown
		}
	}
	after, err := src.Sample()
	if err != nil {
		m.conditionsNote = "energy not measured: " + err.Error()
		return energyReading{}, nil
	}
	e := telemetry.Energy(before, after)
	dt := after.Time.Sub(before.Time).Seconds()
	if e <= 0 || dt <= 0 {
		m.conditionsNote = fmt.Sprintf("energy not measured: %s's energy counter did not move", src.Name())
		return energyReading{}, nil
	}
	return energyReading{runs: runs, joules: charged(e, dt, float64(runs)*per, idle), watts: e / dt}, nil
}

// charged is the energy of a window of dt seconds, e joules on the
// counter, that the GPU's busy seconds of runs are charged: e less the
// idle watts over the rest of the window. Where the runs seem to fill the
// window (they ran faster than the samples' median), or the idle power
// would take all, it is e.
func charged(e, dt, busy, idle float64) float64 {
	if gap := dt - busy; gap > 0 && e-idle*gap > 0 {
		return e - idle*gap
	}
	return e
}

// objectiveValue is what the objective ranks r by, with its 95% interval
// [lo, hi] (zero where unknown), and whether r has it.
func objectiveValue(o Objective, r results.Result) (v, lo, hi float64, ok bool) {
	if r.Stats == nil {
		return 0, 0, 0, false
	}
	switch o {
	case ObjectiveEnergy:
		return r.EnergyJ, r.EnergyLoJ, r.EnergyHiJ, r.EnergyJ > 0
	case ObjectiveEDP:
		t := r.Stats.Median
		return r.EnergyJ * t, r.EnergyLoJ * t, r.EnergyHiJ * t, r.EnergyJ > 0
	}
	return r.Stats.Median, r.Stats.Lo, r.Stats.Hi, true
}

// pickByObjective re-picks e's winner by its objective, among the
// candidates ranked (those measured to the end, in the order of time):
// the one with the lowest objective value, a tie when the runner-up's
// interval overlaps the winner's (within energyTieMargin of it where
// either has no interval). Where a candidate lacks its energy, the
// winner stays the one by time, and e.Objective says time chose it.
func pickByObjective(e *Entry, ranked []int) {
	if e.Objective == "" || e.Objective == ObjectiveTime || len(ranked) == 0 {
		return
	}
	type scored struct {
		i         int
		v, lo, hi float64
	}
	var s []scored
	for _, i := range ranked {
		v, lo, hi, ok := objectiveValue(e.Objective, e.Results[i])
		if !ok {
			e.ObjectiveNote = fmt.Sprintf("%s has no energy per run: picked by time", e.Results[i].Name)
			e.Objective = ObjectiveTime
			return
		}
		s = append(s, scored{i, v, lo, hi})
	}
	slices.SortStableFunc(s, func(a, b scored) int { return cmp.Compare(a.v, b.v) })
	e.Fastest = s[0].i
	e.FastestName = e.Results[e.Fastest].Name
	e.Tie, e.TieRule = false, ""
	if len(s) < 2 {
		return
	}
	a, b := s[0], s[1]
	switch {
	case a.hi > 0 && b.lo > 0:
		if b.lo <= a.hi {
			e.Tie = true
			e.TieRule = fmt.Sprintf("%s intervals overlap: the lower median %s wins", e.Objective, e.Objective)
		}
	case b.v <= a.v*(1+energyTieMargin):
		e.Tie = true
		e.TieRule = fmt.Sprintf("%s within %.0f%%: the lower %s wins", e.Objective, energyTieMargin*100, e.Objective)
	}
}
