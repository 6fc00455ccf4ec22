package results

import (
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/telemetry"
)

// Result is the record of one measured candidate: what became of it,
// its statistics, rates and flags, what its compiler made of it and the
// GPU's conditions while it ran. autotune's entries and the tuning logs
// hold one per candidate; a results file writes the same words in its
// Benchmarks.
type Result struct {
	Index   int     `json:"index"`
	Name    string  `json:"name"`
	Outcome Outcome `json:"outcome"`
	// Error says why a candidate failed, is unsupported or was dropped.
	Error string `json:"error,omitempty"`
	// Stats summarise the candidate's samples; with several rounds
	// (autotune's Options.Rounds), those of every round pooled, the samples
	// themselves kept by round in Rounds rather than here.
	Stats *stats.Stats `json:"stats,omitempty"`
	// Rounds are the statistics of each round that sampled the candidate,
	// in the order measured, each with its samples; empty when the key was
	// measured in one round.
	Rounds []stats.Stats `json:"rounds,omitempty"`
	// GBps and GFLOPs are the achieved rates at the median.
	GBps   float64 `json:"gb_per_s,omitempty"`
	GFLOPs float64 `json:"gflop_per_s,omitempty"`
	// Flags are warnings about the numbers, e.g. "above-peak-bandwidth".
	Flags []string `json:"flags,omitempty"`
	// Compiler is what the driver's compiler reported of the candidate's
	// pipeline (hal.CompilerReporter), by statistic name, such as
	// "Register Count"; empty where the driver reports nothing.
	Compiler map[string]float64 `json:"compiler,omitempty"`
	// Conditions are the GPU's at the moments the candidate's samples
	// were taken (its clocks, power, temperature, the throttles seen);
	// nil where they were not read (autotune.Entry.ConditionsNote says why).
	Conditions *telemetry.Conditions `json:"conditions,omitempty"`
	// EnergyJ is the energy of one run in joules, read off the device's
	// energy counter over an energy pass of back-to-back runs, and PowerW
	// the mean power over it; 0 where not measured.
	EnergyJ float64 `json:"energy_per_run_j,omitempty"`
	PowerW  float64 `json:"power_w,omitempty"`
}
