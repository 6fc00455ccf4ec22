package autotune

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/telemetry"
)

// Flags set on results. A measured result whose interval is wider than
// the target says why sampling stopped: FlagBudgetSpent (the time budget
// ran out) or FlagMaxSamples (it had MaxSamples samples).
const (
	FlagAbovePeakBandwidth = "above-peak-bandwidth"
	FlagAbovePeakFLOPs     = "above-peak-flops"
	FlagTimerDidNotTick    = "timer-did-not-tick"
	FlagBudgetSpent        = "budget-spent-before-target"
	FlagMaxSamples         = "max-samples-before-target"
	// FlagPeakOtherClock marks a result measured at an SM clock more than
	// 3% from the peak's: its percentage of peak compares unlike with
	// unlike.
	FlagPeakOtherClock = "peak-at-other-clock"
	// FlagRemeasured marks the candidates measured again because one
	// dropped early ended faster than the leader (the device drifted);
	// FlagDrift, a dropped one still faster than the winner, and the winner.
	FlagRemeasured = "remeasured-after-drift"
	FlagDrift      = "drift"
	// FlagNotVerified marks the candidates of an operation that checks no
	// result (a manifest's "verify": "none").
	FlagNotVerified = "not-verified"
	// FlagDeviceLost marks every candidate of an operation whose
	// measurement the device's loss ended: it has no winner, the
	// candidates not measured by then being unknown.
	FlagDeviceLost = "device-lost-before-all-measured"
)

// TieRule is how a tie between overlapping intervals is broken;
// TieRuleTarget how one between medians closer than the tune's target
// half-width is.
const (
	TieRule       = "lowest median; the 95% intervals of the two fastest overlap"
	TieRuleTarget = "lowest median; the two fastest are within the target half-width of each other"
)

// interval returns the 95% interval of the median of s, or [0, +Inf]
// without one: an interval that overlaps every other, so that a candidate
// without one is never dropped as slower, nor beaten without a tie.
func interval(s stats.Stats) (lo, hi float64) {
	if !s.HasInterval() {
		return 0, math.Inf(1)
	}
	return s.Lo, s.Hi
}

// entry turns the measurements into the entry a tune commits.
func (m *measurement) entry() *Entry {
	e := newEntry(m.key, m.size, m.opts, m.info)
	for _, c := range m.cands {
		r := c.res
		if len(c.samples) > 0 && (r.Outcome == "" || r.Outcome == results.Dropped) {
			s := stats.Summarize(c.samples, c.batch)
			r.Stats = &s
			if r.Outcome == "" {
				r.Outcome = results.Measured
				// Short of the target: at MaxSamples, more budget would
				// not have sampled it again.
				if s.HalfWidth() > m.opts.TargetHalfWidth {
					switch {
					case len(c.samples) >= m.opts.MaxSamples:
						r.Flags = append(r.Flags, FlagMaxSamples)
					case m.spent:
						r.Flags = append(r.Flags, FlagBudgetSpent)
					}
				}
			}
			bytes, flops := m.work(r.Index)
			setWork(&r, bytes, flops, m.opts.Peak, m.op)
		} else if r.Outcome == "" {
			r.Outcome, r.Error = results.Failed, cmp.Or(r.Error, "no samples")
		}
		e.Results = append(e.Results, r)
	}
	e.Conditions, e.ConditionsNote = m.conditions, m.conditionsNote
	if m.opts.Telemetry == nil {
		e.ConditionsNote = strings.TrimSuffix("not available: "+m.opts.TelemetryNote, ": ")
	}
	pickWinner(e)
	return e
}

// work returns what one run of candidate i moves and computes
// (kernels.CandidateWorker).
func (m *measurement) work(i int) (bytes, flops float64) {
	if w, ok := m.p.(kernels.CandidateWorker); ok {
		return w.CandidateWork(i)
	}
	return m.p.Bytes(), m.p.Flops()
}

// newEntry is the entry, without results, of a measurement of key.
func newEntry(key string, size kernels.Size, opts Options, info hal.DeviceInfo) *Entry {
	return &Entry{
		Schema:  store.SchemaVersion,
		Key:     key,
		Fastest: -1,
		Size:    size,
		Level:   opts.Level.String(),
		Mode:    string(opts.Mode),
		Bounds: Bounds{TargetHalfWidth: opts.TargetHalfWidth, Budget: opts.Budget, MinSamples: opts.MinSamples,
			MaxSamples: opts.MaxSamples, MinSampleTime: opts.MinSampleTime, Seed: opts.Seed},
		Hardware:  info.Hardware(),
		Device:    deviceName(info),
		Version:   opts.Version,
		Time:      time.Now().UTC(),
		Objective: opts.Objective,
	}
}

// deviceName is how an entry names the device that measured it.
func deviceName(info hal.DeviceInfo) string {
	return fmt.Sprintf("%d:%s:%x", info.Index, info.Name, info.DeviceUUID)
}

// setWork sets what one run of r moved and did, and flags the rates
// above peak.
func setWork(r *results.Result, bytes, flops float64, peak *Peak, op kernels.Operation) {
	r.Flags = slices.DeleteFunc(r.Flags, func(f string) bool {
		return f == FlagAbovePeakBandwidth || f == FlagAbovePeakFLOPs || f == FlagPeakOtherClock
	})
	if len(r.Flags) == 0 {
		r.Flags = nil
	}
	r.Bytes, r.Flops = 0, 0
	if r.Stats == nil || r.Stats.Median <= 0 {
		return
	}
	r.Bytes, r.Flops = bytes, flops
	if peak == nil {
		return
	}
	r.Flags = append(r.Flags, peak.Above(&r.Measurement, op)...)
	if c := r.Conditions; c != nil && telemetry.ClocksApart(peak.SMClockMHz, c.SMClockMHz.Max) {
		r.Flags = append(r.Flags, FlagPeakOtherClock)
	}
}

// pickWinner crowns the candidates measured to the end (the dropped ones
// when none was: the leader failed later on). Dropped candidates were
// shown slower than the leader when they were dropped, so they do not
// compete; but one whose median is nevertheless below the winner's is
// flagged FlagDrift, with the winner: the device's speed drifted, and
// the answer is not to be trusted unnoticed. None is crowned where a
// candidate is flagged FlagDeviceLost.
func pickWinner(e *Entry) {
	var measured, dropped []int
	for i, r := range e.Results {
		switch {
		case slices.Contains(r.Flags, FlagDeviceLost):
			crown(e, nil)
			return
		case r.Stats == nil:
		case r.Outcome == results.Measured:
			measured = append(measured, i)
		case r.Outcome == results.Dropped:
			dropped = append(dropped, i)
		}
	}
	if len(measured) == 0 {
		measured = dropped
	}
	crown(e, measured)
	if len(measured) == 0 {
		return
	}
	leader := measured[0] // by time
	for _, d := range dropped {
		if d != leader && e.Results[d].Stats.Median < e.Results[leader].Stats.Median {
			addFlag(&e.Results[d], FlagDrift)
			addFlag(&e.Results[leader], FlagDrift)
		}
	}
}

// crown sorts ranked, the indices of e's results that compete, by median,
// and makes the first e's winner, a tie when its interval overlaps the
// runner-up's or their medians are within e's target half-width of each
// other: each median is known to that precision, so a narrower lead is
// not a win (on an H100 two coopmat kernels 0.09% apart, with intervals
// of 0.01%, swapped places from one tune to the next as the clock moved
// 0.8%); then e's objective picks again among them (pickByObjective).
func crown(e *Entry, ranked []int) {
	slices.SortStableFunc(ranked, func(a, b int) int { return cmp.Compare(e.Results[a].Stats.Median, e.Results[b].Stats.Median) })
	e.Fastest, e.FastestName, e.Tie, e.TieRule = -1, "", false, ""
	if len(ranked) == 0 {
		return
	}
	e.Fastest = ranked[0]
	e.FastestName = e.Results[e.Fastest].Name
	if len(ranked) > 1 {
		a, b := *e.Results[ranked[0]].Stats, *e.Results[ranked[1]].Stats
		_, aHi := interval(a)
		bLo, _ := interval(b)
		switch {
		case aHi >= bLo: // the intervals overlap
			e.Tie, e.TieRule = true, TieRule
		case b.Median <= a.Median*(1+e.Bounds.TargetHalfWidth):
			e.Tie, e.TieRule = true, TieRuleTarget
		}
	}
	pickByObjective(e, ranked)
}

func addFlag(r *results.Result, flag string) {
	if !slices.Contains(r.Flags, flag) {
		r.Flags = append(r.Flags, flag)
	}
}
