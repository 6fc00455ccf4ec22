package results

import (
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/telemetry"
)

// Outcome says what became of a measured candidate: one of the constants
// below, the same words in the tuner's entries and in results files.
type Outcome string

// The outcomes. A results file records all but Unevaluated.
const (
	// Measured candidates were verified and timed.
	Measured Outcome = "measured"
	// Dropped candidates were verified, then stopped early because they
	// were clearly slower than the leader.
	Dropped Outcome = "dropped"
	// Wrong candidates ran and computed a wrong result: the verification
	// against the reference failed.
	Wrong Outcome = "wrong"
	// Failed candidates failed to build or run.
	Failed Outcome = "failed"
	// Unsupported candidates need a feature the device lacks, or do not
	// apply at the size (a tuner leaves those out, vkbench run reports
	// them).
	Unsupported Outcome = "unsupported"
	// NotRun candidates were never run, for no fault of their own: the
	// device was lost running another before their turn (Error says
	// which). A gate cannot decide them (Compare, ab: unclear).
	NotRun Outcome = "not run"
	// Compiled candidates were only compiled (compile-only mode).
	Compiled Outcome = "compiled"
	// Unevaluated configurations are those of a searched space that the
	// search did not evaluate: its entry lists every configuration.
	Unevaluated Outcome = "unevaluated"
)

// LostBefore is a NotRun candidate's Error: the device was lost before
// its turn, measuring the candidate or operation named ("" where it was
// lost between operations).
func LostBefore(measuring string) string {
	if measuring == "" {
		return "the device was lost before"
	}
	return "the device was lost before, measuring " + measuring
}

// Measurement is the one record of a measured candidate (see the package
// doc). Rates are not kept: Rates computes them where they are printed.
type Measurement struct {
	Outcome Outcome `json:"outcome"`
	// Error says why a candidate failed, is unsupported or was dropped.
	Error string `json:"error,omitempty"`
	// Drop says, of a dropped candidate, when it was dropped and against
	// which leader, for a program to read (Error says it for a person);
	// nil for any other outcome.
	Drop *Drop `json:"drop,omitempty"`
	// Stats summarise the candidate's samples; with several rounds, those
	// of every round pooled.
	Stats *stats.Stats `json:"stats,omitempty"`
	// Rounds are the statistics of each round that sampled the candidate,
	// in the order measured, each with its samples.
	Rounds []stats.Stats `json:"rounds,omitempty"`
	// Bytes and Flops are moved and done by one run.
	Bytes float64 `json:"bytes_per_run,omitempty"`
	Flops float64 `json:"flops_per_run,omitempty"`
	// Flags are warnings about the numbers, e.g. "above-peak-bandwidth".
	Flags []string `json:"flags,omitempty"`
	// Compiler is what the driver's compiler reported of the candidate's
	// pipeline, by the driver's names ("Register Count", "Local Memory
	// Size"); absent where the driver reports nothing.
	Compiler map[string]float64 `json:"compiler,omitempty"`
	// Conditions are the GPU's at the moments the candidate's samples
	// were taken (its clocks, power, temperature, the throttles seen); nil
	// where they were not read.
	Conditions *telemetry.Conditions `json:"conditions,omitempty"`
	// EnergyJ is the energy of one run in joules, read off the device's
	// energy counter over windows of back-to-back runs (the median of the
	// windows, the GPU's idle time between submissions taken off), with
	// its 95% interval [EnergyLoJ, EnergyHiJ]; PowerW is the mean power
	// over the windows. All 0 where not measured.
	EnergyJ   float64 `json:"energy_per_run_j,omitempty"`
	EnergyLoJ float64 `json:"energy_ci_lo_j,omitempty"`
	EnergyHiJ float64 `json:"energy_ci_hi_j,omitempty"`
	PowerW    float64 `json:"power_w,omitempty"`
}

// ObjectiveValue is what objective ("time", "energy" or "edp") ranks m
// by: its median time per run, its energy per run, or their product, with
// its 95% interval [lo, hi] (zero where unknown), and whether m has it.
// The one ranking of a tune's pick and of the report's tables.
func (m Measurement) ObjectiveValue(objective string) (v, lo, hi float64, ok bool) {
	if m.Stats == nil {
		return 0, 0, 0, false
	}
	switch objective {
	case "energy":
		return m.EnergyJ, m.EnergyLoJ, m.EnergyHiJ, m.EnergyJ > 0
	case "edp":
		t := m.Stats.Median
		return m.EnergyJ * t, m.EnergyLoJ * t, m.EnergyHiJ * t, m.EnergyJ > 0
	}
	return m.Stats.Median, m.Stats.Lo, m.Stats.Hi, true
}

// Drop is the moment a candidate was dropped early as much slower: how
// many samples it had, its median then, and the leader's name and median
// then; where several rounds each dropped it, how many, and this in the
// last of them.
type Drop struct {
	Samples      int     `json:"samples"`
	Median       float64 `json:"median_s"`
	Leader       string  `json:"leader"`
	LeaderMedian float64 `json:"leader_median_s"`
	Rounds       int     `json:"rounds,omitempty"`
}

// Rates are the bandwidth (GB/s) and arithmetic rate (GFLOP/s) at the
// median time per run; 0 where there is no median or nothing was moved
// or done.
func (m *Measurement) Rates() (gbps, gflops float64) {
	if m.Stats == nil || !(m.Stats.Median > 0) {
		return 0, 0
	}
	return m.Bytes / m.Stats.Median / 1e9, m.Flops / m.Stats.Median / 1e9
}

// Ran reports whether the candidate was verified and timed (measured, or
// dropped early as slower), with statistics to show.
func (m *Measurement) Ran() bool {
	return (m.Outcome == Measured || m.Outcome == Dropped) && m.Stats != nil
}

// Result is one candidate's part in a tune: its index in the operation's
// candidates, its name, and its measurement.
type Result struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Measurement
}
