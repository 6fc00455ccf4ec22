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

// energyBatchTime is how long one submission of an energy pass lasts at
// least: the GPU idles between submissions, and that idle power is
// charged to the runs, so fewer, longer submissions charge less.
const energyBatchTime = 5 * time.Millisecond

// Energy-objective ties: energy has no confidence interval here, so a
// runner-up within this fraction of the winner's objective is a tie.
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
// sampled: its runs back to back for EnergyWindow, the device's energy
// counter read before and after, divided by the runs. The power of the
// gaps between submissions is charged to the runs too, as it is to a
// program that runs the kernel. Without a telemetry source, or with
// EnergyWindow negative, it does nothing; a reading that fails leaves
// the energy unknown (0) and is noted.
func (m *measurement) energyPass(ctx context.Context) error {
	src := m.opts.Telemetry
	if src == nil || m.opts.EnergyWindow < 0 {
		return nil
	}
	for _, c := range m.cands {
		if len(c.samples) == 0 || (c.res.Outcome != "" && c.res.Outcome != results.Dropped) {
			continue
		}
		per := stats.Summarize(c.samples, c.batch).Median
		batch := c.batch
		if per > 0 {
			batch = min(m.opts.MaxBatch, max(batch, int(energyBatchTime.Seconds()/per)))
		}
		before, err := src.Sample()
		if err != nil {
			m.conditionsNote = "energy not measured: " + err.Error()
			return nil
		}
		runs, failed := 0, false
		for !failed && (runs == 0 || time.Since(before.Time) < m.opts.EnergyWindow) {
			_, err := m.timed(ctx, c, batch)
			switch {
			case err == nil || errors.Is(err, hal.ErrNoTick):
				// The runs ran whether or not the timer saw them.
				runs += batch
			case fatal(ctx, m.dev, err):
				return err
			default:
				failed = true // the candidate's trouble: its energy stays unknown
			}
		}
		if failed {
			continue
		}
		after, err := src.Sample()
		if err != nil {
			m.conditionsNote = "energy not measured: " + err.Error()
			return nil
		}
		e := telemetry.Energy(before, after)
		if e <= 0 {
			m.conditionsNote = fmt.Sprintf("energy not measured: %s's energy counter did not move", src.Name())
			continue
		}
		c.res.EnergyJ = e / float64(runs)
		if dt := after.Time.Sub(before.Time).Seconds(); dt > 0 {
			c.res.PowerW = e / dt
		}
		m.progress(c.res.Name, "energy", runs, runs)
	}
	return nil
}

// objectiveValue is what the objective ranks r by, and whether r has it.
func objectiveValue(o Objective, r results.Result) (float64, bool) {
	if r.Stats == nil {
		return 0, false
	}
	switch o {
	case ObjectiveEnergy:
		return r.EnergyJ, r.EnergyJ > 0
	case ObjectiveEDP:
		return r.EnergyJ * r.Stats.Median, r.EnergyJ > 0
	}
	return r.Stats.Median, true
}

// pickByObjective re-picks e's winner by its objective, among the
// candidates ranked (those measured to the end, in the order of time):
// the one with the lowest objective value, a tie when the runner-up is
// within energyTieMargin of it. Where a candidate lacks its energy, the
// winner stays the one by time, and e.Objective says time chose it.
func pickByObjective(e *Entry, ranked []int) {
	if e.Objective == "" || e.Objective == ObjectiveTime || len(ranked) == 0 {
		return
	}
	type scored struct {
		i int
		v float64
	}
	var s []scored
	for _, i := range ranked {
		v, ok := objectiveValue(e.Objective, e.Results[i])
		if !ok {
			e.ObjectiveNote = fmt.Sprintf("%s has no energy per run: picked by time", e.Results[i].Name)
			e.Objective = ObjectiveTime
			return
		}
		s = append(s, scored{i, v})
	}
	slices.SortStableFunc(s, func(a, b scored) int { return cmp.Compare(a.v, b.v) })
	e.Fastest = s[0].i
	e.FastestName = e.Results[e.Fastest].Name
	e.Tie, e.TieRule = false, ""
	if len(s) > 1 && s[1].v <= s[0].v*(1+energyTieMargin) {
		e.Tie = true
		e.TieRule = fmt.Sprintf("%s within %.0f%%: the lower %s wins", e.Objective, energyTieMargin*100, e.Objective)
	}
}
