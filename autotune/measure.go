package autotune

import (
	"cmp"
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// Measure verifies and times every candidate of op at size on dev, and
// returns the entry a tune would commit (Fastest is -1 when no candidate
// computed correctly). It commits nothing. An error that is not about one
// candidate (device loss above all) ends the measurement; where the device
// was lost running a candidate, the entry of what was measured comes with
// it: that candidate failed, those not sampled yet not run, no winner
// (FlagDeviceLost).
func Measure(ctx context.Context, dev hal.Device, op kernels.Operation, size kernels.Size, opts Options) (*Entry, error) {
	e, _, err := measure(ctx, dev, op, size, opts)
	return e, err
}

// measure is Measure, also returning each candidate's first error of
// any round (nil for those that did not fail), for the tuner to report as
// a cause; its opts.Rounds rounds are measured one after the other and
// merged (MergeRounds).
func measure(ctx context.Context, dev hal.Device, op kernels.Operation, size kernels.Size, opts Options) (*Entry, []error, error) {
	opts.fill()
	if err := opts.check(); err != nil {
		return nil, nil, err
	}
	var entries []*Entry
	errs := make([]error, len(op.Candidates()))
	for r := range max(opts.Rounds, 1) {
		o := opts
		o.round += r // after MeasureRound's round, 0 but there
		e, err := measureOnce(ctx, dev, op, size, o, errs)
		if e == nil {
			return nil, nil, err
		}
		if entries = append(entries, e); err != nil {
			return MergeRounds(op, entries, opts), errs, err
		}
	}
	return MergeRounds(op, entries, opts), errs, nil
}

// measureOnce measures one round, keeping in errs each candidate's first
// error; where the device was lost running a candidate, it returns the
// entry of what was measured with the loss.
func measureOnce(ctx context.Context, dev hal.Device, op kernels.Operation, size kernels.Size, opts Options, errs []error) (*Entry, error) {
	m := newMeasurement(dev, op, size, opts)
	defer m.release()
	err := m.run(ctx)
	if err != nil {
		if err = lossOr(dev, err); m.running == nil || !errors.Is(err, hal.ErrDeviceLost) {
			return nil, err
		}
		m.lose(err)
	}
	for i, c := range m.cands {
		errs[i] = cmp.Or(errs[i], c.err)
	}
	return m.entry(), err
}

// lose records the device's loss, err, running m.running: that candidate
// fails with err, those without samples yet were not run (results.NotRun,
// saying why), and every result is flagged FlagDeviceLost, which keeps the
// entry from having a winner (pickWinner). Those with samples keep them.
func (m *measurement) lose(err error) {
	lost := m.running
	lost.fail(err)
	for i := len(m.cands); i < len(m.op.Candidates()); i++ {
		m.cands = append(m.cands, &candState{res: results.Result{Index: i, Name: m.op.Candidates()[i].Name}})
	}
	for _, c := range m.cands {
		if c.res.Outcome == "" && len(c.samples) == 0 {
			c.res.Outcome, c.res.Error = results.NotRun, results.LostBefore(lost.res.Name)
		}
		addFlag(&c.res, FlagDeviceLost)
	}
}

type candState struct {
	res      results.Result
	exe      hal.Executable
	batch    int
	samples  []float64
	alive    bool
	ticks    int // samples whose timer did not tick
	failures int // samples whose submission failed
	err      error
	moments  []time.Time // when the kept samples were taken
}

// noTick records a sample whose timer did not tick, flags the result
// (once) and returns how many there have been.
func (c *candState) noTick() int {
	c.ticks++
	addFlag(&c.res, FlagTimerDidNotTick)
	return c.ticks
}

// fail records err as the candidate's: Unsupported where err's code is
// Unimplemented (it never ran), Wrong where it computed a wrong result,
// else Failed.
func (c *candState) fail(err error) {
	c.res.Error, c.err = err.Error(), err
	switch {
	case status.CodeOf(err) == status.Unimplemented:
		c.res.Outcome = results.Unsupported
	case errors.Is(err, kernels.ErrWrongResult):
		c.res.Outcome = results.Wrong
	default:
		c.res.Outcome = results.Failed
	}
}

type measurement struct {
	dev  hal.Device
	info hal.DeviceInfo
	op   kernels.Operation
	size kernels.Size
	opts Options
	key  string

	p     kernels.Problem
	reset kernels.Resetter
	cb    hal.CommandBuffer
	pool  hal.TimestampPool
	flush hal.Buffer
	cands []*candState
	// running is the candidate whose work the device was last given.
	running *candState
	spent   bool
	// conditions are the GPU's over the whole sampling (Entry's).
	conditions     *telemetry.Conditions
	conditionsNote string
}

func newMeasurement(dev hal.Device, op kernels.Operation, size kernels.Size, opts Options) *measurement {
	key := Key{Op: op.Name(), DType: op.DType().String(), Size: size}.String()
	return &measurement{dev: dev, op: op, size: size, opts: opts, info: dev.Info(), key: key}
}

// fatal reports whether err ends the whole measurement rather than one
// candidate: device loss, a cancelled context, a released device.
func fatal(ctx context.Context, dev hal.Device, err error) bool {
	return errors.Is(err, hal.ErrDeviceLost) || ctx.Err() != nil || dev.Err() != nil
}

// lossOr is err, which ends a measurement, or the device's loss where
// the device was lost meanwhile: a candidate's failure that came as the
// device was lost (a wrong result read then, a refused submission) is
// the loss's, and no verdict on the candidate.
func lossOr(dev hal.Device, err error) error {
	if lost := dev.Err(); errors.Is(lost, hal.ErrDeviceLost) && !errors.Is(err, hal.ErrDeviceLost) {
		return lost
	}
	return err
}

func (m *measurement) release() {
	// Best effort: failing to free must not hide the measurements.
	var rs []interface{ Release() error }
	for _, c := range m.cands {
		rs = append(rs, c.exe)
	}
	for _, r := range append(rs, m.cb, m.pool, m.flush, m.p) {
		if r != nil {
			_ = r.Release()
		}
	}
}

func (m *measurement) run(ctx context.Context) error {
	t0 := time.Now()
	defer func() { m.debug("measured", "total", time.Since(t0)) }()
	if err := m.setup(ctx); err != nil {
		return err
	}
	// A copy: the operation's own list is shared by every tune of it.
	cands := slices.Clone(m.op.Candidates())
	refused := make([]error, len(cands))
	for i, c := range cands {
		cands[i], refused[i] = kernels.CandidateAt(m.p, c, i, m.info)
	}
	jobs := m.startBuilds(ctx, cands, refused)
	defer abandon(jobs)
	most := 0 // the largest batch a candidate was calibrated to
	for i, c := range cands {
		// A build cannot be interrupted: a cancelled measurement builds
		// no more.
		if err := ctx.Err(); err != nil {
			return err
		}
		st := &candState{res: results.Result{Index: i, Name: c.Name}}
		m.cands, m.running = append(m.cands, st), st
		job := jobs[i]
		jobs[i] = nil // st owns what it built
		if err := m.prepareCandidate(ctx, c, st, job, refused[i]); err != nil {
			if fatal(ctx, m.dev, err) {
				return err
			}
			st.fail(err)
			continue
		}
		st.alive = true
		most = max(most, st.batch)
	}
	if m.opts.SameBatch {
		// A sample of k runs costs, per run, a little less than one of
		// fewer (the barriers between them are cheaper than what a
		// sample pays to start), so candidates compared run for run
		// must batch alike: every one batches the most runs any does.
		for _, c := range m.survivors() {
			c.batch = most
		}
	}
	return m.sample(ctx)
}

// buildThreads is how many pipelines a measurement builds at once, on CPU
// threads, while it verifies those built before: a driver takes a tenth
// of a second or more for each.
var buildThreads = min(runtime.GOMAXPROCS(0), 8)

// compileJob is one pipeline being built; done is closed when it is.
// refused is why its candidate cannot run (kernels.CandidateAt): then
// nothing was built.
type compileJob struct {
	done    chan struct{}
	exe     hal.Executable
	err     error
	refused error
	took    time.Duration
}

// build starts building, in one of slots and ahead of prebuilds, the
// pipeline of the candidate that at returns, unless at refuses it; the
// time of both is the job's.
func build(ctx context.Context, dev hal.Device, slots *buildSlots, at func() (kernels.Candidate, error)) *compileJob {
	j := &compileJob{done: make(chan struct{})}
	go func() {
		defer close(j.done)
		slots.acquire(true)
		defer slots.release()
		if j.err = ctx.Err(); j.err != nil {
			return
		}
		t0 := time.Now()
		c, refused := at()
		if j.refused = refused; refused == nil {
			j.exe, j.err = dev.CreateExecutable(c.Executable())
		}
		j.took = time.Since(t0)
	}()
	return j
}

// startBuilds starts building the pipeline of every candidate not
// refused (nil for the others): by the time one is verified, the next are
// built.
func (m *measurement) startBuilds(ctx context.Context, cands []kernels.Candidate, refused []error) []*compileJob {
	jobs := make([]*compileJob, len(cands))
	if buildThreads < 2 {
		return jobs
	}
	slots := slotsFor(m.dev)
	for i, c := range cands {
		if refused[i] == nil {
			jobs[i] = build(ctx, m.dev, slots, func() (kernels.Candidate, error) { return c, nil })
		}
	}
	return jobs
}

// buildSlots bounds how many pipelines build at once on one device; a
// measurement's builds (urgent) take a free slot before any prebuild.
type buildSlots struct {
	mu      sync.Mutex
	cond    sync.Cond
	free    int
	waiting int // urgent acquirers waiting for a slot
}

func newBuildSlots(n int) *buildSlots {
	s := &buildSlots{free: n}
	s.cond.L = &s.mu
	return s
}

// acquire waits for a free slot and takes it; one not urgent also waits
// while an urgent one waits.
func (s *buildSlots) acquire(urgent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if urgent {
		s.waiting++
	}
	for s.free == 0 || !urgent && s.waiting > 0 {
		s.cond.Wait()
	}
	s.free--
	if urgent {
		s.waiting--
		if s.waiting == 0 && s.free > 0 {
			s.cond.Broadcast() // prebuilds may go on
		}
	}
}

func (s *buildSlots) release() {
	s.mu.Lock()
	s.free++
	s.mu.Unlock()
	s.cond.Broadcast()
}

// abandon waits for the jobs not taken and releases what they built.
func abandon(jobs []*compileJob) {
	for _, j := range jobs {
		if j == nil {
			continue
		}
		<-j.done
		releaseExe(j.exe) // never used
	}
}

// releaseExe releases exe, if there is one: a failure has nobody to tell.
func releaseExe(exe hal.Executable) {
	if exe != nil {
		_ = exe.Release()
	}
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
		size := int64(64 << 20)
		if m.info.Type == hal.DiscreteGPU {
			size = 512 << 20
		}
		if m.flush, err = m.dev.CreateBuffer(hal.BufferDesc{Size: size, Label: "cold-flush"}); err != nil {
			return status.Annotate(err, "autotune: allocating the cold-mode flush buffer")
		}
	}
	t0 := time.Now()
	if m.p, err = m.op.Prepare(ctx, m.dev, m.size, m.opts.Seed); err != nil {
		return status.Annotatef(err, "autotune: preparing %s", m.key)
	}
	m.reset, _ = m.p.(kernels.Resetter)
	m.debug("prepared", "took", time.Since(t0))
	return nil
}

// prepareCandidate returns refused, or takes the pipeline job built (or
// builds it, where job is nil) and verifies the candidate
// (verifyCandidate).
func (m *measurement) prepareCandidate(ctx context.Context, c kernels.Candidate, st *candState, job *compileJob, refused error) error {
	if refused != nil {
		return refused
	}
	m.progress(c.Name, "verify", 0, 0)
	if job == nil {
		job = build(ctx, m.dev, newBuildSlots(1), func() (kernels.Candidate, error) { return c, nil })
	}
	<-job.done
	if job.err != nil {
		return status.Annotatef(job.err, "building %s", c.Name)
	}
	st.exe = job.exe
	return m.verifyCandidate(ctx, c, st, job.took)
}

// verifyCandidate runs candidate c, whose pipeline st.exe took build to
// make, once, verifies it, and calibrates its batch size.
func (m *measurement) verifyCandidate(ctx context.Context, c kernels.Candidate, st *candState, build time.Duration) error {
	i := st.res.Index
	st.res.Compiler = m.compilerStats(c.Name, st.exe)
	// The outputs are poisoned first, so that a candidate that writes
	// nothing cannot pass on what an earlier one left.
	start := time.Now()
	if err := kernels.Run(ctx, m.dev, m.p, st.exe, i); err != nil {
		return status.Annotatef(err, "running %s", c.Name)
	}
	ran := time.Now()
	if err := kernels.Check(ctx, m.p, i); err != nil {
		return status.Annotatef(err, "verifying %s", c.Name)
	}
	m.debug("verified", "candidate", c.Name, "build", build, "run", ran.Sub(start), "verify", time.Since(ran))
	if !kernels.Verifies(m.op) {
		st.res.Flags = append(st.res.Flags, FlagNotVerified)
	}
	// Calibrate: time one run, then batch enough runs to last
	// MinSampleTime.
	t, err := m.timed(ctx, st, 1)
	switch {
	case errors.Is(err, hal.ErrNoTick):
		// Too short for the timer (t is 0): batch as many runs as allowed.
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

// timed records k runs of candidate st, submits them, waits, and returns
// the GPU time of one run in seconds.
func (m *measurement) timed(ctx context.Context, st *candState, k int) (float64, error) {
	cb, i := m.cb, st.res.Index
	m.running = st
	// Recording stops at the first command that fails: its error is
	// timed's.
	var err error
	rec := func(cmd func() error) {
		if err == nil {
			err = cmd()
		}
	}
	stamp := func(q int) func() error { return func() error { return cb.Timestamp(m.pool, q) } }
	rec(cb.Begin)
	// Runs are timed one by one (a pair of timestamps each) when a flush
	// or a reset must come between them, outside the timed region.
	cold := m.opts.Mode == Cold
	pairs := m.reset != nil || cold
	if !pairs {
		rec(stamp(0))
	}
	for r := 0; r < k; r++ {
		if pairs {
			if cold {
				rec(func() error { return cb.Fill(m.flush, 0, m.flush.Size(), uint32(r)) })
				rec(cb.Barrier)
			}
			if m.reset != nil {
				rec(func() error { return m.reset.RecordReset(cb, i) })
				rec(cb.Barrier)
			}
			rec(stamp(2 * r))
		} else if r > 0 {
			rec(cb.Barrier)
		}
		rec(func() error { return m.p.Record(cb, st.exe, i) })
		if pairs {
			rec(stamp(2*r + 1))
			rec(cb.Barrier)
		}
	}
	if !pairs {
		rec(stamp(1))
	}
	rec(cb.End)
	if err != nil {
		return 0, err
	}
	f, err := m.dev.Submit(cb)
	if err != nil {
		return 0, err
	}
	if err := status.Join(f.Wait(ctx), f.Release()); err != nil {
		return 0, err
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
// logs it at debug level; nil where the driver reports nothing.
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
