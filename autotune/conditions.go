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

const (
	// telemetryInterval is how often the conditions are read while
	// sampling: often enough to see a clock move within a second, rarely
	// enough that the reads cost the measurement nothing.
	telemetryInterval = 10 * time.Millisecond
	// energyBatchTime is how long one submission of an energy window
	// lasts at least: the GPU idles between submissions, so fewer,
	// longer ones leave less idle time in a window.
	energyBatchTime = 20 * time.Millisecond
	// energyPoll is how often an energy pass reads the counter while it
	// waits for it to move, and about how long the short submissions
	// around a window's edges last.
	energyPoll = time.Millisecond
	// energyTicks is how many steps of the counter a window spans at
	// least, so that a step's uncertainty at its edges is a small part.
	energyTicks    = 5
	energyTickWait = 2 * time.Second
	// energyEdgeShare bounds how much of a window's measured time its
	// edges leave uncertain (half their readings' spans together): the
	// window's energy is charged idle power over its gaps, so an error in
	// its length counts in full against its runs (on a CPU device under
	// load a window 10 ms short read 138 W where 100 W were drawn). A
	// window goes on to a later move, up to energyStretch times its
	// planned length.
	energyEdgeShare = 0.05
	energyStretch   = 8
	// energyWindows is how many windows an energy pass measures each
	// candidate in: enough for a 95% interval of its energy per run.
	energyWindows = stats.MinIntervalSamples
	// energyTieMargin makes a runner-up within this fraction of the
	// winner's objective a tie where the energies have no interval.
	energyTieMargin = 0.02
)

// attributeConditions stops mon and gives each candidate sampled the
// conditions at the moments its samples were taken (telemetry.Around),
// flagged. A source that fails is noted in the entry, never fails the
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
// sampled, as ARCHITECTURE.md's conditions tell: energyWindows windows
// each, taken in turns across the candidates so that a drift of the GPU's
// state spreads over all of them, each from one move of the energy
// counter (NVML's on an H200 moves every few tens of milliseconds) to
// another. The energy per run is the power drawn while the GPU ran the
// candidate, less the idle power over the window's gaps, times its
// median time per run; the windows' median, with their 95% interval. A
// reading that fails leaves the energy unknown (0) and is noted.
func (m *measurement) energyPass(ctx context.Context) error {
	src := m.opts.Telemetry
	if src == nil || m.opts.EnergyWindow <= 0 {
		return nil
	}
	type tally struct {
		c      *candState
		per    float64 // the median time per run
		perRun []float64
		watts  float64
		runs   int
		failed bool
	}
	var tallies []*tally
	for _, c := range m.cands {
		if len(c.samples) > 0 && (c.res.Outcome == "" || c.res.Outcome == results.Dropped) {
			tallies = append(tallies, &tally{c: c, per: stats.Summarize(c.samples, c.batch).Median})
		}
	}
	if len(tallies) == 0 {
		return nil
	}
	idle, step, err := idlePower(ctx, src, m.opts.EnergyWindow/energyWindows)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		m.conditionsNote = "energy not measured: " + err.Error()
		return nil
	}
	window := max(m.opts.EnergyWindow/energyWindows, energyTicks*step)
	for range energyWindows {
		for _, t := range tallies {
			if t.failed {
				continue
			}
			runs, watts, err := m.energyWindow(ctx, t.c, t.per, window, idle)
			if err != nil {
				return err
			}
			if runs == 0 {
				t.failed = true
				continue
			}
			t.perRun = append(t.perRun, watts*t.per)
			t.watts += watts
			t.runs += runs
		}
	}
	for _, t := range tallies {
		if t.failed {
			continue
		}
		e := stats.Summarize(t.perRun, 1)
		r := &t.c.res
		r.EnergyJ, r.EnergyLoJ, r.EnergyHiJ = e.Median, e.Lo, e.Hi
		r.PowerW = t.watts / float64(len(t.perRun))
		m.progress(r.Name, "energy", t.runs, t.runs)
	}
	return nil
}

// nextTick reads src, calling step before each reading, until its energy
// counter differs from last's, and returns the first reading after the
// move and span, the time since the reading before it. Where a reading
// before it saw the counter stand still, the counter moves in steps: the
// reading is stamped at the middle of span, within span/2 of the move.
// It gives up after energyTickWait.
func nextTick(src telemetry.Source, last telemetry.Sample, step func() error) (s telemetry.Sample, span time.Duration, err error) {
	deadline := time.Now().Add(energyTickWait)
	before := last.Time
	for still := false; ; still = true {
		if err := step(); err != nil {
			return telemetry.Sample{}, 0, err
		}
		if s, err = src.Sample(); err != nil {
			return s, 0, err
		}
		if s.EnergyJ != last.EnergyJ {
			span = s.Time.Sub(before)
			if still {
				s.Time = before.Add(span / 2)
			}
			return s, span, nil
		}
		if time.Now().After(deadline) {
			return s, 0, fmt.Errorf("%s's energy counter did not move in %v", src.Name(), energyTickWait)
		}
		before = s.Time
	}
}

// pause is a step of nextTick that waits energyPoll, or until ctx ends.
func pause(ctx context.Context) func() error {
	return func() error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(energyPoll):
			return nil
		}
	}
}

// idlePower reads the device's power while nothing is submitted, between
// two moves of its energy counter at least d apart, and the counter's
// step: the shortest time between two moves seen.
func idlePower(ctx context.Context, src telemetry.Source, d time.Duration) (watts float64, step time.Duration, err error) {
	s, err := src.Sample()
	if err != nil {
		return 0, 0, err
	}
	var ticks [3]telemetry.Sample
	var span time.Duration
	for i := range ticks {
		if s, span, err = nextTick(src, s, pause(ctx)); err != nil {
			return 0, 0, err
		}
		ticks[i] = s
	}
	step = min(ticks[1].Time.Sub(ticks[0].Time), ticks[2].Time.Sub(ticks[1].Time))
	e, dt, err := window(src, ticks[2], span, max(d, energyTicks*step), pause(ctx), pause(ctx), func(dt float64) float64 { return dt })
	if err != nil {
		return 0, 0, err
	}
	return e / dt, step, nil
}

// window calls body until d has passed since start, a move of src's
// energy counter stamped within startSpan/2 of it (nextTick), then edge
// before each reading until the counter moves again, and returns the
// energy and the seconds between the two moves, going on to a later move
// where energyEdgeShare says (of measured(seconds), what it measured).
func window(src telemetry.Source, start telemetry.Sample, startSpan, d time.Duration, body, edge func() error, measured func(seconds float64) float64) (joules, seconds float64, err error) {
	limit := energyStretch * d
	for {
		for time.Since(start.Time) < d {
			if err := body(); err != nil {
				return 0, 0, err
			}
		}
		s, err := src.Sample()
		if err != nil {
			return 0, 0, err
		}
		end, span, err := nextTick(src, s, edge)
		if err != nil {
			return 0, 0, err
		}
		joules, seconds = telemetry.Energy(start, end), end.Time.Sub(start.Time).Seconds()
		if joules <= 0 || seconds <= 0 {
			return 0, 0, fmt.Errorf("%s's energy counter did not move", src.Name())
		}
		if (startSpan+span).Seconds()/2 <= energyEdgeShare*measured(seconds) || d >= limit {
			return joules, seconds, nil
		}
		d = min(limit, 2*end.Time.Sub(start.Time))
	}
}

// energyWindow runs c, whose median time per run is per seconds, back to
// back from one move of the device's energy counter to the first move at
// least d later, and reads the power drawn while the GPU ran c
// (busyPower). Runs before the first move, in short submissions, bring
// the GPU to its working state and count for nothing; the last move is
// watched for between short submissions too. It returns the runs made (0
// when the window could not be read, the entry noting why) and the power.
// An error is fatal to the measurement.
func (m *measurement) energyWindow(ctx context.Context, c *candState, per float64, d time.Duration, idle float64) (runs int, watts float64, err error) {
	batch, short := c.batch, 1
	if per > 0 {
		batch = min(m.opts.MaxBatch, max(batch, int(energyBatchTime.Seconds()/per)))
		short = min(batch, max(1, int(energyPoll.Seconds()/per)))
	}
	var failed error // c's own trouble: its energy stays unknown
	run := func(k int) func() error {
		return func() error {
			_, err := m.timed(ctx, c, k)
			switch {
			case err == nil || errors.Is(err, hal.ErrNoTick):
				runs += k // the runs ran whether or not the timer saw them
				return nil
			case fatal(ctx, m.dev, err):
				return err
			}
			failed = err
			return err
		}
	}
	src := m.opts.Telemetry
	note := func(err error) (int, float64, error) {
		if failed != nil || err == nil {
			return 0, 0, nil
		}
		if fatal(ctx, m.dev, err) {
			return 0, 0, err
		}
		m.conditionsNote = "energy not measured: " + err.Error()
		return 0, 0, nil
	}
	s, err := src.Sample()
	if err != nil {
		return note(err)
	}
	start, span, err := nextTick(src, s, run(short))
	if err != nil {
		return note(err)
	}
	runs = 0
	e, dt, err := window(src, start, span, d, run(batch), run(short), func(float64) float64 { return float64(runs) * per })
	if err != nil {
		return note(err)
	}
	return runs, busyPower(e, dt, float64(runs)*per, idle), nil
}

// busyPower is the power drawn while the GPU ran a window's runs, busy
// seconds of its dt, e joules on the counter: e less the idle watts over
// the rest, over the busy time; the window's mean power where the runs
// seem to fill it, or the idle power would take all.
func busyPower(e, dt, busy, idle float64) float64 {
	if gap := dt - busy; gap > 0 && e-idle*gap > 0 {
		return (e - idle*gap) / busy
	}
	return e / dt
}

// pickByObjective re-picks e's winner by its objective, among the
// candidates ranked (in the order of time): the lowest objective value,
// unless others tie with it (intervals overlapping, or within
// energyTieMargin where either has none). Then the fastest of the tied
// wins: energy tells them apart no better than its noise, time far
// better, so the pick is the same from one tune to the next (on an H100
// two tunes of gemm by energy picked two kernels 6% apart in time at 2.00
// J each). Where a candidate lacks its energy, time picks, and
// e.Objective says so.
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
		v, lo, hi, ok := e.Results[i].ObjectiveValue(string(e.Objective))
		if !ok {
			e.ObjectiveNote = fmt.Sprintf("%s has no energy per run: picked by time", e.Results[i].Name)
			e.Objective = ObjectiveTime
			return
		}
		s = append(s, scored{i, v, lo, hi})
	}
	slices.SortStableFunc(s, func(a, b scored) int { return cmp.Compare(a.v, b.v) })
	e.Fastest = s[0].i
	e.Tie, e.TieRule = false, ""
	best := s[0]
	for _, x := range s[1:] {
		rule := ""
		switch {
		case best.hi > 0 && x.lo > 0:
			if x.lo <= best.hi {
				rule = fmt.Sprintf("%s intervals overlap: the fastest of them wins", e.Objective)
			}
		case x.v <= best.v*(1+energyTieMargin):
			rule = fmt.Sprintf("%s within %.0f%%: the fastest of them wins", e.Objective, energyTieMargin*100)
		}
		if rule == "" {
			continue
		}
		if !e.Tie {
			e.Tie, e.TieRule = true, rule
		}
		if e.Results[x.i].Stats.Median < e.Results[e.Fastest].Stats.Median {
			e.Fastest, e.TieRule = x.i, rule // the rule that tied the winner
		}
	}
	e.FastestName = e.Results[e.Fastest].Name
}
