package autotune

import (
	"cmp"
	"log/slog"
	"math"
	"time"

	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// Mode is how caches are treated between samples.
type Mode string

const (
	// Hot runs back to back: inputs may sit in the GPU's caches.
	Hot Mode = "hot"
	// Cold flushes the last-level cache before every timed run (outside
	// the timed region) by filling a buffer several times its size.
	Cold Mode = "cold"
)

// Options configure measurement and tuning; a bound, mode, tuner or
// objective left zero is DefaultOptions'.
type Options struct {
	// Level buckets shapes into keys.
	Level Level
	Mode  Mode
	// TargetHalfWidth stops sampling once every surviving candidate's 95%
	// interval is within ±TargetHalfWidth of its median, or Budget (of
	// sampling one key) is spent, or a candidate has MaxSamples samples.
	TargetHalfWidth float64
	Budget          time.Duration
	// MinSamples is the fewest samples before any decision; MaxSamples the
	// most per candidate. MinSamples below stats.MinIntervalSamples is
	// InvalidArgument.
	MinSamples, MaxSamples int
	// MinSampleTime is how long a sample lasts at least: short runs are
	// batched, k runs per sample (at most MaxBatch), and divided by k.
	MinSampleTime time.Duration
	MaxBatch      int
	// Warmup is how much GPU time is spent running the candidates before
	// any sample counts: an idle GPU clocks down, and its first
	// milliseconds of work run several times slower than the rest.
	// Negative: none.
	Warmup time.Duration
	// Seed makes inputs and the shuffled order reproducible.
	Seed uint64
	// Peak, when known, flags results above it.
	Peak *Peak
	// Tuner names the cache table ("builtin" if empty).
	Tuner   string
	Version string
	// Progress, if set, is told about each step.
	Progress func(Progress)
	// Logger, if set, receives a debug record of where a tune's time went,
	// and an Info record as a wait for another machine's lock starts and
	// goes on.
	Logger *slog.Logger
	// Rounds is how many independent rounds measure a key (0 means 1),
	// each within its own Budget and in its own shuffled order; each
	// candidate's Result keeps every round's statistics (Result.Rounds),
	// so that a comparison of two runs can judge a difference by the
	// variation between rounds, as go test -count does.
	Rounds int
	// NoDrop keeps every candidate to the end: none is dropped early.
	NoDrop bool
	// Telemetry, where set, is read while the candidates are sampled:
	// each result carries the GPU's conditions at its samples' moments,
	// flagged where they call for it, and its energy per run
	// (EnergyWindow). Nil: the entry says why not, with TelemetryNote.
	Telemetry     telemetry.Source
	TelemetryNote string
	// EnergyWindow is how long, in all, each sampled candidate runs back
	// to back for its energy per run to be read off the device's energy
	// counter, in six windows. Zero means the default where the Objective
	// needs energy and none where it does not (time: it would decide
	// nothing, and add its windows to every measurement); negative, none.
	EnergyWindow time.Duration
	// Objective is what the winner is picked by. Energy needs Telemetry.
	Objective Objective
	// SameBatch batches every candidate's runs alike, as many per sample
	// as the shortest needs, so that their times per run compare like for
	// like (two versions of a kernel, say).
	SameBatch bool

	round int // the round being measured, from 0: its sampling order
}

// Progress reports a step of a tune.
type Progress struct {
	Key       string
	Candidate string
	// Step is "verify", "sample" or "energy"; or, while another
	// process holds Key's lock (in the shared store, or in the cache
	// file: InFile), "wait" as the wait starts and again after each lock
	// wait (store.Store.LockWait) it goes on, "waiting" at each look at
	// the lock between, for a display that redraws, and "waited" as it
	// ends; "took over" where the lock's Holder was a process of this
	// host that no longer exists.
	Step string
	// Done and Total count samples taken and the most there will be.
	Done, Total int
	// Holder names the process that holds Key's lock, by host and process
	// id; Waited is how long this one has waited, and MaxWait the most it
	// waits (0: as long as the holder renews its lock).
	Holder          string
	Waited, MaxWait time.Duration
	InFile          bool
}

// DefaultOptions measure to ±1% with up to 10 s per key.
var DefaultOptions = Options{
	Level:           Balanced,
	Mode:            Hot,
	TargetHalfWidth: 0.01,
	Budget:          10 * time.Second,
	MinSamples:      10,
	MaxSamples:      200,
	MinSampleTime:   500 * time.Microsecond,
	MaxBatch:        256,
	Warmup:          300 * time.Millisecond,
	Seed:            1,
	Tuner:           "builtin",
	EnergyWindow:    300 * time.Millisecond,
	Objective:       ObjectiveTime,
}

// fill sets the defaults of the bounds unset, or meaningless below zero.
func (o *Options) fill() {
	d := DefaultOptions
	o.TargetHalfWidth = cmp.Or(max(o.TargetHalfWidth, 0), d.TargetHalfWidth)
	o.Budget = cmp.Or(max(o.Budget, 0), d.Budget)
	o.MinSamples = cmp.Or(max(o.MinSamples, 0), d.MinSamples)
	if o.MaxSamples < o.MinSamples {
		o.MaxSamples = max(d.MaxSamples, o.MinSamples)
	}
	o.MinSampleTime = cmp.Or(max(o.MinSampleTime, 0), d.MinSampleTime)
	o.MaxBatch = cmp.Or(max(o.MaxBatch, 0), d.MaxBatch)
	o.Warmup = cmp.Or(o.Warmup, d.Warmup) // negative: none
	o.Mode = cmp.Or(o.Mode, Hot)
	o.Tuner = cmp.Or(o.Tuner, d.Tuner)
	o.Objective = cmp.Or(o.Objective, d.Objective)
	if o.Objective != ObjectiveTime {
		o.EnergyWindow = cmp.Or(o.EnergyWindow, d.EnergyWindow)
		// A candidate slower per run may use less energy: none is
		// dropped for being slower.
		o.NoDrop = true
	}
}

// check refuses options, defaults filled in, that cannot give what a
// result claims.
func (o *Options) check() error {
	if o.MinSamples < stats.MinIntervalSamples {
		return status.Newf(status.InvalidArgument, "autotune: MinSamples %d is fewer than the %d samples a 95%% confidence interval of the median needs", o.MinSamples, stats.MinIntervalSamples)
	}
	if !(o.TargetHalfWidth < math.Inf(1)) { // NaN too: max(NaN, 0) kept it
		return status.Newf(status.InvalidArgument, "autotune: TargetHalfWidth %g is no bound; want a finite fraction (0.01 for ±1%%; zero for the default)", o.TargetHalfWidth)
	}
	if _, err := ParseObjective(string(o.Objective)); err != nil {
		return err
	}
	if o.Objective != ObjectiveTime && o.Telemetry == nil {
		return status.Newf(status.FailedPrecondition, "autotune: objective %s needs the device's energy counter, which is not available here (%s)", o.Objective, cmp.Or(o.TelemetryNote, "no telemetry source"))
	}
	return nil
}
