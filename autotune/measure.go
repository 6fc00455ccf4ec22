package autotune

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
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

// Peak is a device's measured peak, for percent-of-peak and plausibility.
type Peak struct {
	// BandwidthGBps is the copy bandwidth (bytes read + written) in GB/s.
	BandwidthGBps float64 `json:"bandwidth_gb_per_s"`
	// GFLOPs is the fp32 FMA rate.
	GFLOPs float64 `json:"gflop_per_s"`
	// FP16GFLOPs and Int32GOPs are the fp16 FMA and int32 multiply-add
	// rates; 0 when unsupported or not measured.
	FP16GFLOPs float64 `json:"fp16_gflop_per_s,omitempty"`
	Int32GOPs  float64 `json:"int32_gop_per_s,omitempty"`
	// MatrixF16GFLOPs, MatrixF16AccGFLOPs and MatrixS8GOPs are the matrix
	// units' (tensor cores') rates, measured by peak-coopmat-f16, -f16acc
	// and -s8: fp16 with fp32 sums, fp16 with fp16 sums, int8 with int32
	// sums; 0 where the device has none or they were not measured.
	MatrixF16GFLOPs    float64 `json:"matrix_f16_gflop_per_s,omitempty"`
	MatrixF16AccGFLOPs float64 `json:"matrix_f16acc_gflop_per_s,omitempty"`
	MatrixS8GOPs       float64 `json:"matrix_s8_gop_per_s,omitempty"`
	// SMClockMHz and MemClockMHz are the highest SM and memory clocks
	// seen while the peak kernels were measured, where they could be read
	// (telemetry): a rate measured at another clock is no percentage of
	// this peak (FlagPeakOtherClock).
	SMClockMHz  float64 `json:"sm_clock_mhz,omitempty"`
	MemClockMHz float64 `json:"mem_clock_mhz,omitempty"`
}

// ComputeOf returns the peak rate that bounds op's arithmetic: for an
// operation on the matrix units (kernels.ArithmeticOf), their rate at its
// precision where it was measured; otherwise, and for every other
// operation, Compute of its element type. gemm-f16 is thus a percentage
// of the tensor cores' fp16 rate on a GPU that has them, and of the fp16
// FMA rate elsewhere.
func (p *Peak) ComputeOf(op kernels.Operation) float64 {
	if p == nil {
		return 0
	}
	var m float64
	switch kernels.ArithmeticOf(op) {
	case kernels.MatrixF16:
		m = p.MatrixF16GFLOPs
	case kernels.MatrixF16Acc:
		m = p.MatrixF16AccGFLOPs
	case kernels.MatrixS8:
		m = p.MatrixS8GOPs
	}
	if m > 0 {
		return m
	}
	return p.Compute(op.DType())
}

// Compute returns the peak arithmetic rate for operations on elements of
// dtype: fp16, int32/uint32, or else fp32; 0 when unknown.
func (p *Peak) Compute(dtype kernels.DType) float64 {
	if p == nil {
		return 0
	}
	switch dtype {
	case kernels.F16:
		return p.FP16GFLOPs
	case kernels.I32, kernels.U32:
		return p.Int32GOPs
	}
	return p.GFLOPs
}

// Options configure measurement and tuning.
type Options struct {
	// Level buckets shapes into keys.
	Level Level
	Mode  Mode
	// TargetHalfWidth stops sampling once every surviving candidate's 95%
	// interval is within ±TargetHalfWidth of its median. Sampling also
	// stops when Budget is spent or a candidate has MaxSamples samples;
	// a result short of the target is flagged with the reason
	// (FlagBudgetSpent, FlagMaxSamples).
	TargetHalfWidth float64
	// Budget bounds the time spent sampling one key (compilation and
	// verification come on top).
	Budget time.Duration
	// MinSamples is the fewest samples before any decision; MaxSamples the
	// most per candidate. Zero means the default. MinSamples may not be
	// below stats.MinIntervalSamples, the fewest a 95% interval of the
	// median needs: Measure and the Tuner refuse such options
	// (InvalidArgument).
	MinSamples, MaxSamples int
	// MinSampleTime is how long a sample lasts at least: short runs are
	// batched, k runs per sample, and divided by k.
	MinSampleTime time.Duration
	// MaxBatch bounds k.
	MaxBatch int
	// Warmup is how much GPU time is spent running the candidates before
	// any sample counts: an idle GPU clocks down, and its first
	// milliseconds of work run several times slower than the rest. Zero
	// means the default; negative, none.
	Warmup time.Duration
	// DropMargin: a candidate whose interval's low end is above the
	// leader's high end by more than this fraction is dropped early.
	DropMargin float64
	// FlushBytes is the size of the cold-mode flush buffer; 0 chooses by
	// device type.
	FlushBytes int64
	// Seed makes inputs and the shuffled order reproducible.
	Seed uint64
	// Peak, when known, flags results above it.
	Peak *Peak
	// Tuner names the cache table; "builtin" if empty.
	Tuner string
	// Version is recorded with every result.
	Version string
	// Progress, if set, is told about each step.
	Progress func(Progress)
	// Logger, if set, receives a debug record of where a tune's time went
	// (preparing, building, verifying, warming up, sampling).
	Logger *slog.Logger
	// Rounds is how many independent rounds measure a key (0 means 1).
	// Each round prepares the problem again (same inputs), builds,
	// verifies, warms up and samples in its own shuffled order, within
	// its own Budget; each candidate's Result keeps every round's
	// statistics (Result.Rounds), so that a comparison of two runs can
	// judge a difference by the variation between rounds rather than
	// between the samples of one. As go test -count does.
	Rounds int
	// NoDrop keeps every candidate to the end: none is dropped early.
	NoDrop bool
	// Telemetry, where set, is read while the candidates are sampled:
	// each result carries the GPU's conditions at its samples' moments
	// (clocks, power, temperature, throttling), flagged
	// telemetry.FlagThrottled or FlagClocksMoved where they call for it,
	// and its energy per run from an energy pass (EnergyWindow). Nil: the
	// entry says the conditions are not available, with TelemetryNote.
	Telemetry telemetry.Source
	// TelemetryNote says why there is no Telemetry, for the entry.
	TelemetryNote string
	// EnergyWindow is how long each sampled candidate runs back to back
	// for its energy per run to be read off the device's energy counter
	// (Telemetry only). Zero means the default (200 ms); negative, none.
	EnergyWindow time.Duration
	// Objective is what the winner is picked by: time (the default),
	// energy per run, or their product (edp). Energy needs Telemetry.
	Objective Objective
	// SameBatch batches every candidate's runs alike, as many per sample
	// as the shortest needs, so that their times per run compare like for
	// like (two versions of a kernel, say).
	SameBatch bool

	// round is the round being measured, from 0: it changes the sampling
	// order, not the inputs.
	round int
}

// Progress reports a step of a tune.
type Progress struct {
	Key       string
	Candidate string
	// Step is "verify", "sample" or "done".
	Step string
	// Done and Total count samples taken and the most there will be.
	Done, Total int
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
	DropMargin:      0.05,
	Seed:            1,
	Tuner:           "builtin",
	EnergyWindow:    200 * time.Millisecond,
	Objective:       ObjectiveTime,
}

func (o *Options) fill() {
	d := DefaultOptions
	if o.TargetHalfWidth <= 0 {
		o.TargetHalfWidth = d.TargetHalfWidth
	}
	if o.Budget <= 0 {
		o.Budget = d.Budget
	}
	if o.MinSamples <= 0 {
		o.MinSamples = d.MinSamples
	}
	if o.MaxSamples < o.MinSamples {
		o.MaxSamples = max(d.MaxSamples, o.MinSamples)
	}
	if o.MinSampleTime <= 0 {
		o.MinSampleTime = d.MinSampleTime
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = d.MaxBatch
	}
	if o.Warmup == 0 {
		o.Warmup = d.Warmup
	}
	if o.DropMargin <= 0 {
		o.DropMargin = d.DropMargin
	}
	if o.Mode == "" {
		o.Mode = Hot
	}
	if o.Tuner == "" {
		o.Tuner = d.Tuner
	}
	if o.EnergyWindow == 0 {
		o.EnergyWindow = d.EnergyWindow
	}
	if o.Objective == "" {
		o.Objective = d.Objective
	}
	if o.Objective != ObjectiveTime {
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
	if _, err := ParseObjective(string(o.Objective)); err != nil {
		return err
	}
	if o.Objective != ObjectiveTime && o.Telemetry == nil {
		why := o.TelemetryNote
		if why == "" {
			why = "no telemetry source"
		}
		return status.Newf(status.FailedPrecondition, "autotune: objective %s needs the device's energy counter, which is not available here (%s)", o.Objective, why)
	}
	return nil
}

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
	// 3% from the one the peak was measured at: its percentage of peak
	// compares unlike with unlike.
	FlagPeakOtherClock = "peak-at-other-clock"
	// FlagRemeasured marks the candidates measured a second time because
	// one dropped early ended with a median below the leader's: the
	// device's speed had drifted under the first measurement.
	FlagRemeasured = "remeasured-after-drift"
	// FlagDrift marks a dropped candidate whose median is below the
	// winner's, and the winner: the device's speed drifted while they
	// were measured, and which is faster is not known.
	FlagDrift = "drift"
	// FlagNotVerified marks the candidates of an operation that checks no
	// result (a manifest's "verify": "none").
	FlagNotVerified = "not-verified"
)

// TieRule is how a tie between overlapping intervals is broken.
const TieRule = "lowest median; the 95% intervals of the two fastest overlap"

// Measure verifies and times every candidate of op at shape on dev, and
// returns the entry a tune would commit (Fastest is -1 when no candidate
// computed correctly). It commits nothing. An error that is not about one
// candidate — device loss above all — ends the measurement with that
// error.
func Measure(ctx context.Context, dev hal.Device, op kernels.Operation, shape Shape, opts Options) (*Entry, error) {
	e, _, err := measure(ctx, dev, op, shape, opts)
	return e, err
}

// measure is Measure, also returning each candidate's error (nil for those
// that did not fail), for the tuner to report as a cause.
func measure(ctx context.Context, dev hal.Device, op kernels.Operation, shape Shape, opts Options) (*Entry, []error, error) {
	opts.fill()
	if err := opts.check(); err != nil {
		return nil, nil, err
	}
	if opts.Rounds > 1 {
		return measureRounds(ctx, dev, op, shape, opts)
	}
	return measureOnce(ctx, dev, op, shape, opts)
}

// work is what one run of a problem moves and computes: the numerators of
// its rates.
type work struct{ bytes, flops float64 }

// measureOnce measures one round.
func measureOnce(ctx context.Context, dev hal.Device, op kernels.Operation, shape Shape, opts Options) (*Entry, []error, error) {
	m := &measurement{dev: dev, op: op, shape: shape, opts: opts, info: dev.Info()}
	m.key = Key{Op: op.Name(), DType: op.DType().String(), Shape: shape}.String()
	defer m.release()
	if err := m.run(ctx); err != nil {
		return nil, nil, err
	}
	errs := make([]error, len(m.cands))
	for i, c := range m.cands {
		errs[i] = c.err
	}
	return m.entry(), errs, nil
}

type candState struct {
	res      Result
	exe      hal.Executable
	batch    int
	samples  []float64
	alive    bool
	ticks    int // samples whose timer did not tick
	failures int // samples whose submission failed
	err      error
	// moments are when the kept samples were taken, for the conditions
	// at them.
	moments []time.Time
}

// noTick records a sample whose timer did not tick, flags the result
// (once) and returns how many there have been.
func (c *candState) noTick() int {
	c.ticks++
	if c.ticks == 1 {
		c.res.Flags = append(c.res.Flags, FlagTimerDidNotTick)
	}
	return c.ticks
}

type measurement struct {
	dev   hal.Device
	info  hal.DeviceInfo
	op    kernels.Operation
	shape Shape
	opts  Options
	key   string

	p     kernels.Problem
	reset kernels.Resetter
	cb    hal.CommandBuffer
	pool  hal.TimestampPool
	flush hal.Buffer
	cands []*candState
	spent bool
	// conditions are the GPU's over the whole sampling, where read;
	// conditionsNote says why they or energies are missing.
	conditions     *telemetry.Conditions
	conditionsNote string
}

// fatal reports whether err ends the whole measurement rather than one
// candidate: device loss, a cancelled context, a released device.
func fatal(ctx context.Context, dev hal.Device, err error) bool {
	if errors.Is(err, hal.ErrDeviceLost) || ctx.Err() != nil {
		return true
	}
	return dev.Err() != nil
}

func (m *measurement) release() {
	// Best effort: failing to free must not hide the measurements.
	for _, c := range m.cands {
		if c.exe != nil {
			_ = c.exe.Release()
		}
	}
	if m.cb != nil {
		_ = m.cb.Release()
	}
	if m.pool != nil {
		_ = m.pool.Release()
	}
	if m.flush != nil {
		_ = m.flush.Release()
	}
	if m.p != nil {
		_ = m.p.Release()
	}
}

func (m *measurement) run(ctx context.Context) error {
	t0 := time.Now()
	defer func() { m.debug("measured", "total", time.Since(t0)) }()
	if err := m.setup(ctx); err != nil {
		return err
	}
	for i, c := range m.op.Candidates() {
		// Building a pipeline cannot be interrupted, and may take a
		// second: a cancelled measurement builds no more.
		if err := ctx.Err(); err != nil {
			return err
		}
		st := &candState{res: Result{Index: i, Name: c.Name}}
		m.cands = append(m.cands, st)
		if err := m.prepareCandidate(ctx, i, c, st); err != nil {
			if fatal(ctx, m.dev, err) {
				return err
			}
			st.res.Error, st.err = err.Error(), err
			if st.res.Outcome == "" {
				st.res.Outcome = Failed
			}
			continue
		}
		st.alive = true
	}
	if m.opts.SameBatch {
		m.sameBatch()
	}
	return m.sample(ctx)
}

// setup makes what every sample uses (command buffer, timestamps, the
// cold-mode flush buffer) and prepares the problem.
func (m *measurement) setup(ctx context.Context) error {
	if err := m.dev.Err(); err != nil {
		return err
	}
	var err error
	if m.cb, err = m.dev.CreateCommandBuffer(); err != nil {
		return err
	}
	if m.pool, err = m.dev.CreateTimestampPool(2 * m.opts.MaxBatch); err != nil {
		return status.Annotate(err, "autotune: timestamps are needed to measure")
	}
	if m.opts.Mode == Cold {
		size := m.opts.FlushBytes
		if size <= 0 {
			size = 64 << 20
			if m.info.Type == hal.DiscreteGPU {
				size = 512 << 20
			}
		}
		if m.flush, err = m.dev.CreateBuffer(hal.BufferDesc{Size: size, Label: "cold-flush"}); err != nil {
			return status.Annotate(err, "autotune: allocating the cold-mode flush buffer")
		}
	}
	t0 := time.Now()
	if m.p, err = m.op.Prepare(ctx, m.dev, m.shape.Size(), m.opts.Seed); err != nil {
		return status.Annotatef(err, "autotune: preparing %s", m.key)
	}
	m.reset, _ = m.p.(kernels.Resetter)
	m.debug("prepared", "took", time.Since(t0))
	return nil
}

// sameBatch gives every candidate the largest batch any was calibrated
// to: a sample of k runs costs, per run, a little less than one of fewer
// (the barriers between them are cheaper than what a sample pays to
// start), so candidates compared run for run must batch alike.
func (m *measurement) sameBatch() {
	most := 0
	for _, c := range m.cands {
		if c.alive {
			most = max(most, c.batch)
		}
	}
	for _, c := range m.cands {
		if c.alive {
			c.batch = most
		}
	}
}

// prepareCandidate checks support, builds, runs once and verifies, then
// calibrates the batch size.
func (m *measurement) prepareCandidate(ctx context.Context, i int, c kernels.Candidate, st *candState) error {
	if err := c.Supported(m.info); err != nil {
		st.res.Outcome = Unsupported
		return err
	}
	m.progress(c.Name, "verify", 0, 0)
	t0 := time.Now()
	exe, err := m.dev.CreateExecutable(c.Executable())
	built := time.Now()
	if err != nil {
		if status.CodeOf(err) == status.Unimplemented {
			st.res.Outcome = Unsupported
		}
		return status.Annotatef(err, "building %s", c.Name)
	}
	st.exe = exe
	return m.verifyCandidate(ctx, i, c, st, built.Sub(t0))
}

// verifyCandidate runs candidate i, whose pipeline st.exe took build to
// make, once, verifies it, and calibrates its batch size.
func (m *measurement) verifyCandidate(ctx context.Context, i int, c kernels.Candidate, st *candState, build time.Duration) error {
	st.res.Compiler = m.compilerStats(c.Name, st.exe)
	// The outputs are poisoned first, so that a candidate that writes
	// nothing cannot pass on what an earlier one left.
	start := time.Now()
	if err := kernels.Run(ctx, m.dev, m.p, st.exe, i); err != nil {
		return status.Annotatef(err, "running %s", c.Name)
	}
	ran := time.Now()
	if err := kernels.Check(ctx, m.p, i); err != nil {
		if errors.Is(err, kernels.ErrWrongResult) {
			st.res.Outcome = Wrong
		}
		return status.Annotatef(err, "verifying %s", c.Name)
	}
	m.debug("verified", "candidate", c.Name, "build", build, "run", ran.Sub(start), "verify", time.Since(ran))
	if !kernels.Verifies(m.op) {
		st.res.Flags = append(st.res.Flags, FlagNotVerified)
	}
	// Calibrate: time one run, then batch enough runs to last
	// MinSampleTime.
	t, err := m.timed(ctx, st, i, 1)
	switch {
	case errors.Is(err, hal.ErrNoTick):
		// Too short for the timer: batch as many runs as allowed.
		t = 0
		st.noTick()
	case err != nil:
		return status.Annotatef(err, "timing %s", c.Name)
	}
	st.batch = m.opts.MaxBatch
	if t > 0 {
		st.batch = int(math.Ceil(m.opts.MinSampleTime.Seconds() / t))
	}
	st.batch = min(max(st.batch, 1), m.opts.MaxBatch)
	return nil
}

// timed records k runs of candidate i, submits them, waits, and returns the
// GPU time of one run in seconds.
func (m *measurement) timed(ctx context.Context, st *candState, i, k int) (float64, error) {
	cb := m.cb
	if err := cb.Begin(); err != nil {
		return 0, err
	}
	// Runs are timed one by one (a pair of timestamps each) when something
	// must happen between them outside the timed region: the cold-mode
	// flush, or a reset of a problem whose runs are not idempotent.
	cold := m.opts.Mode == Cold
	pairs := m.reset != nil || cold
	if !pairs {
		if err := cb.Timestamp(m.pool, 0); err != nil {
			return 0, err
		}
	}
	for r := 0; r < k; r++ {
		if pairs {
			if cold {
				if err := cb.Fill(m.flush, 0, m.flush.Size(), uint32(r)); err != nil {
					return 0, err
				}
				if err := cb.Barrier(); err != nil {
					return 0, err
				}
			}
			if m.reset != nil {
				if err := m.reset.RecordReset(cb, i); err != nil {
					return 0, err
				}
				if err := cb.Barrier(); err != nil {
					return 0, err
				}
			}
			if err := cb.Timestamp(m.pool, 2*r); err != nil {
				return 0, err
			}
		} else if r > 0 {
			if err := cb.Barrier(); err != nil {
				return 0, err
			}
		}
		if err := m.p.Record(cb, st.exe, i); err != nil {
			return 0, err
		}
		if pairs {
			if err := cb.Timestamp(m.pool, 2*r+1); err != nil {
				return 0, err
			}
			if err := cb.Barrier(); err != nil {
				return 0, err
			}
		}
	}
	if !pairs {
		if err := cb.Timestamp(m.pool, 1); err != nil {
			return 0, err
		}
	}
	if err := cb.End(); err != nil {
		return 0, err
	}
	f, err := m.dev.Submit(cb)
	if err != nil {
		return 0, err
	}
	werr := f.Wait(ctx)
	if rerr := f.Release(); werr == nil {
		werr = rerr
	}
	if werr != nil {
		return 0, werr
	}
	var total time.Duration
	n := 1
	if pairs {
		n = k
	}
	for r := 0; r < n; r++ {
		d, err := m.pool.Elapsed(2*r, 2*r+1)
		if err != nil {
			return 0, err // hal.ErrNoTick among others
		}
		total += d
	}
	return total.Seconds() / float64(k), nil
}

func (m *measurement) debug(msg string, args ...any) {
	if m.opts.Logger != nil {
		m.opts.Logger.Debug("autotune: "+msg, append([]any{"key", m.key}, args...)...)
	}
}

// compilerStats returns what the driver's compiler reports of a
// candidate's pipeline (registers, spills, shared memory), by name, and
// logs it at debug level: the first thing to look at when a kernel is
// slower than it should be. Nil where the driver reports nothing (most
// drivers lack the extension).
func (m *measurement) compilerStats(cand string, exe hal.Executable) map[string]float64 {
	r, ok := exe.(hal.CompilerReporter)
	if !ok {
		return nil
	}
	stats, err := r.CompilerStats()
	if err != nil || len(stats) == 0 {
		return nil
	}
	out := make(map[string]float64, len(stats))
	args := []any{"candidate", cand}
	for _, s := range stats {
		name := s.Name
		if s.Executable != stats[0].Executable {
			name = s.Executable + ": " + name
		}
		out[name] = s.Value
		args = append(args, name, s.Value)
	}
	m.debug("compiled", args...)
	return out
}

func (m *measurement) progress(cand, step string, done, total int) {
	if m.opts.Progress != nil {
		m.opts.Progress(Progress{Key: m.key, Candidate: cand, Step: step, Done: done, Total: total})
	}
}

// overlap reports whether the intervals of a (the faster) and b overlap;
// a candidate without an interval overlaps every other.
func overlap(a, b stats.Stats) bool {
	_, aHi := interval(a)
	bLo, _ := interval(b)
	return aHi >= bLo
}

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
	e := m.newEntry()
	for i, c := range m.cands {
		r := c.res
		if len(c.samples) > 0 && (r.Outcome == "" || r.Outcome == Dropped) {
			s := stats.Summarize(c.samples, c.batch)
			r.Stats = &s
			if r.Outcome == "" {
				r.Outcome = Measured
				// Short of the target, a survivor stopped at MaxSamples
				// or when the budget ran out (decide says which can end
				// sampling); at MaxSamples, more budget would not have
				// sampled it again.
				if s.HalfWidth() > m.opts.TargetHalfWidth {
					switch {
					case len(c.samples) >= m.opts.MaxSamples:
						r.Flags = append(r.Flags, FlagMaxSamples)
					case m.spent:
						r.Flags = append(r.Flags, FlagBudgetSpent)
					}
				}
			}
			setRates(&r, m.work(i), m.opts.Peak, m.op)
		} else if r.Outcome == "" {
			r.Outcome = Failed
			if r.Error == "" {
				r.Error = "no samples"
			}
		}
		e.Results = append(e.Results, r)
	}
	e.Conditions, e.ConditionsNote = m.conditions, m.conditionsNote
	if m.opts.Telemetry == nil {
		e.ConditionsNote = "not available"
		if m.opts.TelemetryNote != "" {
			e.ConditionsNote += ": " + m.opts.TelemetryNote
		}
	}
	pickWinner(e)
	return e
}

// work returns what one run of candidate i moves and computes: the
// problem's, unless its candidates do different amounts of work
// (kernels.CandidateWorker).
func (m *measurement) work(i int) work {
	if w, ok := m.p.(kernels.CandidateWorker); ok {
		b, f := w.CandidateWork(i)
		return work{b, f}
	}
	return work{m.p.Bytes(), m.p.Flops()}
}

// newEntry is the entry of this measurement, without results.
func (m *measurement) newEntry() *Entry {
	return &Entry{
		Schema:  SchemaVersion,
		Key:     m.key,
		Fastest: -1,
		Shape:   m.shape.String(),
		Level:   m.opts.Level.String(),
		Mode:    string(m.opts.Mode),
		Bounds: Bounds{TargetHalfWidth: m.opts.TargetHalfWidth, Budget: m.opts.Budget, MinSamples: m.opts.MinSamples,
			MaxSamples: m.opts.MaxSamples, MinSampleTime: m.opts.MinSampleTime, Seed: m.opts.Seed},
		Hardware:  m.info.Hardware(),
		Device:    fmt.Sprintf("%d:%s:%x", m.info.Index, m.info.Name, m.info.DeviceUUID),
		Version:   m.opts.Version,
		Time:      time.Now().UTC(),
		Objective: m.opts.Objective,
	}
}

// setRates sets r's rates at its median and flags those above peak.
func setRates(r *Result, w work, peak *Peak, op kernels.Operation) {
	r.Flags = slices.DeleteFunc(r.Flags, func(f string) bool {
		return f == FlagAbovePeakBandwidth || f == FlagAbovePeakFLOPs || f == FlagPeakOtherClock
	})
	if len(r.Flags) == 0 {
		r.Flags = nil
	}
	r.GBps, r.GFLOPs = 0, 0
	if r.Stats == nil || r.Stats.Median <= 0 {
		return
	}
	r.GBps = w.bytes / r.Stats.Median / 1e9
	r.GFLOPs = w.flops / r.Stats.Median / 1e9
	if peak == nil {
		return
	}
	if peak.BandwidthGBps > 0 && r.GBps > peak.BandwidthGBps*1.05 {
		r.Flags = append(r.Flags, FlagAbovePeakBandwidth)
	}
	if c := peak.ComputeOf(op); c > 0 && r.GFLOPs > c*1.05 {
		r.Flags = append(r.Flags, FlagAbovePeakFLOPs)
	}
	if c := r.Conditions; c != nil && peak.SMClockMHz > 0 && c.SMClockMHz.Max > 0 {
		lo, hi := min(peak.SMClockMHz, c.SMClockMHz.Max), max(peak.SMClockMHz, c.SMClockMHz.Max)
		if hi > lo*1.03 {
			r.Flags = append(r.Flags, FlagPeakOtherClock)
		}
	}
}

// pickWinner sets e's winner: of the candidates measured to the end, the
// one with the lowest median (of the dropped ones when none was: the
// leader failed later on), and a tie when its 95% interval overlaps the
// runner-up's. Dropped candidates were shown slower than the leader when
// they were dropped, so they do not compete; but one whose median is
// nevertheless below the winner's is flagged FlagDrift, with the winner:
// the device's speed drifted, and the answer is not to be trusted
// unnoticed.
func pickWinner(e *Entry) {
	type ranked struct {
		i int
		s stats.Stats
	}
	var measured, dropped []ranked
	for i, r := range e.Results {
		switch {
		case r.Stats == nil:
		case r.Outcome == Measured:
			measured = append(measured, ranked{i, *r.Stats})
		case r.Outcome == Dropped:
			dropped = append(dropped, ranked{i, *r.Stats})
		}
	}
	if len(measured) == 0 {
		measured = dropped
	}
	slices.SortStableFunc(measured, func(a, b ranked) int {
		switch {
		case a.s.Median < b.s.Median:
			return -1
		case a.s.Median > b.s.Median:
			return 1
		}
		return a.i - b.i
	})
	e.Fastest, e.FastestName, e.Tie, e.TieRule = -1, "", false, ""
	if len(measured) == 0 {
		return
	}
	e.Fastest = measured[0].i
	e.FastestName = e.Results[e.Fastest].Name
	if len(measured) > 1 && overlap(measured[0].s, measured[1].s) {
		e.Tie = true
		e.TieRule = TieRule
	}
	drift := false
	for _, d := range dropped {
		if d.i != e.Fastest && d.s.Median < measured[0].s.Median {
			addFlag(&e.Results[d.i], FlagDrift)
			drift = true
		}
	}
	if drift {
		addFlag(&e.Results[e.Fastest], FlagDrift)
	}
	order := make([]int, len(measured))
	for k, r := range measured {
		order[k] = r.i
	}
	pickByObjective(e, order)
}

// addFlag adds flag to r's flags, once.
func addFlag(r *Result, flag string) {
	if !slices.Contains(r.Flags, flag) {
		r.Flags = append(r.Flags, flag)
	}
}
