package autotune

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/telemetry"
)

// MeasureRound measures round number round (from 0) of op at size, in
// that round's own sampling order. Rounds measured apart, other keys'
// between them, and merged with MergeRounds see more of what changes on
// a device over time than Options.Rounds back to back do.
func MeasureRound(ctx context.Context, dev hal.Device, op kernels.Operation, size kernels.Size, opts Options, round int) (*Entry, error) {
	opts.Rounds, opts.round = 1, round
	e, _, err := measure(ctx, dev, op, size, opts)
	return e, err
}

// MergeRounds makes one entry of the entries of op's rounds (MeasureRound,
// in the order measured), as Measure with Options.Rounds does. A candidate
// that failed, computed wrong or was unsupported in any round is that,
// with the first such round's error: a kernel that fails once is not to be
// trusted. The others pool their samples into Stats and keep each round's
// statistics in Rounds; one measured to the end in any round is measured,
// one dropped in every round is dropped. The winner is picked from the
// pooled statistics.
func MergeRounds(op kernels.Operation, entries []*Entry, opts Options) *Entry {
	if len(entries) == 1 {
		return entries[0]
	}
	e := *entries[len(entries)-1]
	e.Results, e.Conditions = nil, nil
	e.Bounds = entries[0].Bounds
	e.Bounds.Rounds = len(entries)
	var cond telemetry.Conditions
	for _, re := range entries {
		if re.Conditions != nil {
			cond = telemetry.Merge(cond, *re.Conditions)
		}
	}
	if cond.Samples > 0 {
		e.Conditions = &cond
	}
	for i := range entries[0].Results {
		rs := make([]results.Result, len(entries))
		for k, re := range entries {
			rs[k] = re.Results[i]
		}
		e.Results = append(e.Results, mergeResult(rs, opts.Peak, op))
	}
	pickWinner(&e)
	return &e
}

// mergeResult merges one candidate's results of every round, with the
// work one run did in its rounds.
func mergeResult(rs []results.Result, peak *Peak, op kernels.Operation) results.Result {
	// A round the device's loss ended before the candidate ran takes
	// nothing from the others but its flag.
	for _, r := range rs {
		if r.Outcome != results.Measured && r.Outcome != results.Dropped && r.Outcome != results.NotRun {
			r.Stats, r.Rounds, r.Bytes, r.Flops = nil, nil, 0, 0
			return r
		}
	}
	out := results.Result{Index: rs[0].Index, Name: rs[0].Name, Measurement: results.Measurement{Outcome: results.Dropped}}
	var bytes, flops float64 // one run's, from the first round that has it
	var pooled []float64
	batch, dropped := 0, 0
	var energy, lo, hi, power float64
	energies, intervals := 0, 0
	var cond telemetry.Conditions
	for _, r := range rs {
		if bytes == 0 && flops == 0 {
			bytes, flops = r.Bytes, r.Flops
		}
		if r.EnergyJ > 0 {
			energy, power, energies = energy+r.EnergyJ, power+r.PowerW, energies+1
			if r.EnergyLoJ > 0 {
				lo, hi, intervals = min(cmp.Or(lo, r.EnergyLoJ), r.EnergyLoJ), max(hi, r.EnergyHiJ), intervals+1
			}
		}
		if r.Conditions != nil {
			cond = telemetry.Merge(cond, *r.Conditions)
		}
		switch {
		case r.Outcome == results.NotRun:
		case r.Outcome == results.Measured:
			out.Outcome = results.Measured
		default:
			dropped++
			out.Error, out.Drop = r.Error, r.Drop
		}
		if out.Compiler == nil {
			out.Compiler = r.Compiler
		}
		for _, f := range r.Flags {
			if f != FlagDrift {
				addFlag(&out, f)
			}
		}
		if r.Stats == nil {
			continue
		}
		out.Rounds = append(out.Rounds, *r.Stats)
		pooled = append(pooled, r.Stats.Samples...)
		batch = max(batch, r.Stats.Batch)
	}
	if out.Outcome == results.Measured {
		out.Error, out.Drop = "", nil
	} else {
		out.Error = fmt.Sprintf("dropped early in each of %d rounds; in the last: %s", dropped, out.Error)
		if out.Drop != nil {
			d := *out.Drop
			d.Rounds = dropped
			out.Drop = &d
		}
	}
	// Energy is known only if every round measured it.
	if energies == len(rs) {
		out.EnergyJ, out.PowerW = energy/float64(energies), power/float64(energies)
		if intervals == energies {
			out.EnergyLoJ, out.EnergyHiJ = lo, hi
		}
	}
	if cond.Samples > 0 {
		out.Conditions = &cond
	}
	s := stats.Summarize(slices.Clone(pooled), batch)
	s.Samples = nil // kept by round
	out.Stats = &s
	setWork(&out, bytes, flops, peak, op)
	return out
}
