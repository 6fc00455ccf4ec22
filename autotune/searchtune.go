package autotune

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// SearchOptions bound and seed a search of a parameter space, and say
// how its points are measured.
type SearchOptions struct {
	search.Options
	// CompileThreads is how many proposed points' pipelines compile at
	// once while the GPU measures; negative compiles each just before
	// measuring it. Zero means DefaultCompileThreads.
	CompileThreads int
	// Force measures every point again instead of answering from the
	// tuning log (and replaces its records).
	Force bool
	// Progress, if set, is told of each evaluation as it completes.
	Progress func(SearchProgress)
	// KeepWinner keeps the pipeline of the winning point (by the tuner's
	// Objective), where this search built and measured it, for the caller
	// (SearchResult.Pipeline), who would otherwise build it again.
	KeepWinner bool
}

// SearchProgress reports one evaluation of a search: the evaluations so
// far, this one included, of Budget at most; its median (0 for a
// failure), and whether the tuning log answered; the winner so far by
// the tuner's Objective, as the search's answer is picked, and its
// median. Value and BestValue are the two's figures by Objective
// (results.Measurement.ObjectiveValue: joules per run by energy, joule
// seconds by edp, the median by time; 0 where there is none).
type SearchProgress struct {
	Eval, Budget     int
	Name             string
	Seconds          float64
	FromLog          bool
	Best             string
	BestSeconds      float64
	Objective        Objective
	Value, BestValue float64
}

// DefaultCompileThreads is how many pipelines a search compiles at once
// by default.
var DefaultCompileThreads = 4

// SpaceSuffix ends the name under which a search's answer is stored: the
// key "gemm.space/f32/4096x4096x4096" is the winner among the points of
// gemm's space, apart from "gemm/f32/4096x4096x4096", the winner among
// its named candidates.
const SpaceSuffix = ".space"

// SearchResult is what a search found and did.
type SearchResult struct {
	// Entry is the answer committed to the local file (none where the
	// device was lost): one result per candidate of Op (Unevaluated for
	// those neither the search nor its tuning log evaluated).
	Entry *Entry
	// Op has the space's valid points among its candidates (at
	// Points.Index), named op.Name() + SpaceSuffix: Entry's indices are
	// its candidates'.
	Op     kernels.Operation
	Points *kernels.Points
	// Search is the search as the tuning log records it (Log); empty for
	// an answer read from a tier of the store (Entry.From).
	Search search.LogSearch
	Log    store.LogRef
	// Pipeline is the winner's pipeline as the search built and measured
	// it (at the key's size: kernels.CandidateAt), with
	// SearchOptions.KeepWinner; nil where the search failed or did not
	// measure the winner (the tuning log's answer, or a tier's). The
	// caller owns it and releases it.
	Pipeline hal.Executable
}

// spaceOperation is a space's points under the name of their answers.
type spaceOperation struct {
	kernels.Operation
	name string
}

func (o spaceOperation) Name() string { return o.name }

// Search searches op's parameter space (kernels.Searchable) at size's key,
// as the package doc's Searching says, and commits the winner by the
// tuner's Objective under op's name and SpaceSuffix: in the local file,
// replacing an earlier search's answer with the winner of the points the
// tuning log knows
// (this search's or another's), and in the shared store by Commit's rule
// (Force replaces its answer). A machine whose log has nothing of the key
// takes a stored answer instead (Entry.From says which tier's, Search is
// empty). A device lost while a point ran returns, with the loss, the
// uncommitted entry of what was evaluated (Measure's rule): that point
// failed, those proposed after it not run, no winner.
func (t *Tuner) Search(ctx context.Context, op kernels.Operation, size kernels.Size, sopts SearchOptions) (*SearchResult, error) {
	if err := t.Err(); err != nil {
		return nil, err
	}
	space := kernels.SpaceOf(op)
	if space == nil {
		return nil, status.Newf(status.InvalidArgument, "autotune: %s has no parameter space to search", op.Name())
	}
	k := t.Key(op, size)
	info := t.dev.Info()
	// Enumerating the points may do what every kernel needs (the space's
	// Load: a manifest decodes its configurations): counted as compile.
	t0 := time.Now()
	pts, err := space.Points(op.Dims(), k.Size, info)
	enumerated := time.Since(t0)
	if err != nil {
		return nil, err
	}
	sop := spaceOperation{Operation: pts.Op, name: op.Name() + SpaceSuffix}
	if err := sopts.Fill(len(pts.Configs)); err != nil {
		return nil, err
	}
	strat, err := search.NewStrategy(sopts.Strategy, search.GridOf(pts), sopts.Seed, sopts.MaxEvals)
	if err != nil {
		return nil, err
	}
	ref := store.LogRef{Table: t.table, Key: k.String(), Mode: string(t.opts.Mode)}
	skey := Key{Op: sop.name, DType: k.DType, Size: k.Size}
	sum := Checksum(sop.Candidates())
	logged := map[string]search.LogRecord{}
	if !sopts.Force {
		// An unreadable log is a warning: everything is measured. ctx
		// ending while it waited for the file is claim's to say.
		logged, _ = search.LogEvals(ctx, t.store, ref)
	}
	// A machine that has searched skey searches again, continuing from
	// its log, so that a larger budget finds what a smaller one missed:
	// under the lock, taking no answer, as a forced search does.
	c, err := t.claim(ctx, sop, skey, sum, whileRenewed, !sopts.Force && len(logged) == 0, new(string))
	if err != nil {
		return nil, err
	}
	if c.lease != nil {
		defer func() { _ = c.lease.Release() }() // one that fails expires
	}
	res := &SearchResult{Entry: c.answer, Op: sop, Points: pts, Log: ref}
	if c.answer != nil {
		return res, nil
	}
	if !sopts.Force && c.waited { // the process it waited for may have logged more meanwhile
		logged, _ = search.LogEvals(ctx, t.store, ref)
	}
	// A file that cannot be written has warned; the search goes on.
	_ = search.SaveLogHeader(ctx, t.store, ref, search.LogHeader{Key: ref.Key, Table: ref.Table, Mode: ref.Mode, Space: search.LogSpaceOf(space),
		Points: len(pts.Configs), Device: deviceName(info), Version: t.opts.Version, Time: time.Now().UTC()})
	src := &deviceSource{ctx: ctx, t: t, op: sop, size: k.Size, cands: pts.Candidates(), pts: pts, ref: ref, logged: newLogged(space, logged),
		jobs: map[int]*compileJob{}, running: -1, t0: time.Now(), compile: enumerated, keep: sopts.KeepWinner}
	if n := cmp.Or(sopts.CompileThreads, DefaultCompileThreads); n > 0 { // negative: in line
		src.sem = newBuildSlots(n)
	}
	evals, serr := search.Drive(ctx, strat, src, sopts.Options, progressOf(sopts, src.cands, t.opts.Objective))
	defer src.releaseKept() // but the one handed to the caller
	rec := search.LogSearchOf(sopts.Options, evals)
	best, by := BestOf(evals, string(t.opts.Objective))
	rec.Best, rec.Objective = best.Record.Name, by
	rec.Measured, rec.Interrupted = src.measured, serr != nil
	rec.CompileSeconds, rec.WallSeconds = src.compile.Seconds(), (time.Since(src.t0) + enumerated).Seconds()
	res.Search = rec
	// A search that ctx ended is recorded too, so that the log says so:
	// that write waits for the file as long as the store's lock timeout
	// allows, not as ctx does.
	wctx := ctx
	if ctx.Err() != nil {
		wctx = context.WithoutCancel(ctx)
	}
	_ = search.AddLogSearch(wctx, t.store, ref, rec)
	if serr != nil {
		err := status.Annotatef(serr, "autotune: searching %s (%d of %d evaluated, %d measured; the tuning log keeps them)", k, len(evals), sopts.MaxEvals, src.measured)
		if src.running < 0 || !errors.Is(serr, hal.ErrDeviceLost) && !errors.Is(t.dev.Err(), hal.ErrDeviceLost) {
			return nil, err // lost preparing the problem: nothing ran, as Measure says
		}
		res.Entry = t.searchEntry(sop, pts, k.Size, evals)
		src.lose(res.Entry, serr)
		return res, err
	}
	e := t.searchEntry(sop, pts, k.Size, withLogged(evals, pts, src.logged))
	res.Entry = e
	if e.Fastest < 0 || len(evals) == 0 {
		return res, status.Newf(status.FailedPrecondition, "autotune: no configuration of %s that the search evaluated (%d) computed correctly on %s", k, len(evals), info.Name)
	}
	// A file that cannot be written has warned; ctx ending while the
	// commit waited for the file is the caller's to hear.
	if _, err := t.publish(ctx, sop, skey, sum, e, sopts.Force, true); err != nil && ctx.Err() != nil {
		return res, status.Annotatef(err, "autotune: storing the answer of the search of %s (the tuning log keeps its evaluations)", k)
	}
	if i := slices.IndexFunc(src.kept, func(k keptPoint) bool { return pts.Index[k.Point] == e.Fastest }); i >= 0 {
		res.Pipeline, src.kept[i].exe = src.kept[i].exe, nil
	}
	return res, nil
}

// withLogged returns evals and the evaluations of the points that logged
// (the tuning log) has and evals lack: a search commits the winner of the
// points the log knows, so that a smaller search run after a larger one
// does not replace its answer with a worse one.
func withLogged(evals []search.Evaluation, pts *kernels.Points, logged loggedPoints) []search.Evaluation {
	known := slices.Clone(evals)
	for i := range pts.Configs {
		if rec, ok := logged.of(pts, i); ok && !slices.ContainsFunc(evals, func(e search.Evaluation) bool { return e.Point == i }) {
			known = append(known, search.Evaluation{Point: i, Record: rec})
		}
	}
	return known
}

// loggedPoints are the tuning log's records of a search's key, by
// identity, and the configurations they are of.
type loggedPoints struct {
	byID    map[string]search.LogRecord
	configs map[string]bool // by Space.Name
}

func newLogged(space *kernels.Space, byID map[string]search.LogRecord) loggedPoints {
	l := loggedPoints{byID: byID, configs: map[string]bool{}}
	for _, rec := range byID {
		l.configs[space.Name(rec.Config)] = true
	}
	return l
}

// of returns the record of point i, where the log has one of its
// kernel: a point whose kernel is identified only once built
// (kernels.Points.Deferred) is built for the question only where the log
// has a record of its configuration.
func (l loggedPoints) of(pts *kernels.Points, i int) (search.LogRecord, bool) {
	if pts.Deferred(i) && !l.configs[pts.Space.Name(pts.Configs[i])] {
		return search.LogRecord{}, false
	}
	rec, ok := l.byID[pts.ID(i)]
	return rec, ok
}

// progressOf returns the callback that reports each evaluation, with
// the winner so far by obj (BestOf).
func progressOf(sopts SearchOptions, cands []kernels.Candidate, obj Objective) func(search.Evaluation) bool {
	var seen []search.Evaluation
	return func(s search.Evaluation) bool {
		if sopts.Progress == nil {
			return false
		}
		seen = append(seen, s)
		sec, v := figures(s, obj)
		best, _ := BestOf(seen, string(obj))
		bestSec, bestV := figures(best, obj)
		sopts.Progress(SearchProgress{Eval: len(seen), Budget: sopts.MaxEvals, Name: cands[s.Point].Name, Seconds: sec,
			FromLog: !s.Measured, Best: best.Record.Name, BestSeconds: bestSec, Objective: obj, Value: v, BestValue: bestV})
		return false
	}
}

// figures returns s's median and its figure by obj, where s may win; 0
// for what it lacks.
func figures(s search.Evaluation, obj Objective) (sec, v float64) {
	if !s.Record.Verified() {
		return 0, 0
	}
	v, _, _, _ = s.Record.ObjectiveValue(string(obj))
	return s.Record.Stats.Median, v
}

// BestOf returns the winner of evals by objective (time, energy or edp),
// picked as a tuner's answer is, zero where none is verified, and what it
// won by as the tuning log says it (search.LogSearch.Objective): the
// objective, or "" for time, where it is time or one of them has no
// energy. A replay of a log searched by energy or edp picks with it
// (search.ReplayOptions.Pick).
func BestOf(evals []search.Evaluation, objective string) (search.Evaluation, string) {
	e := &Entry{Objective: Objective(objective), Results: make([]results.Result, len(evals))}
	var ranked []int
	for i, s := range evals {
		e.Results[i] = s.Record.Result
		if s.Record.Verified() {
			ranked = append(ranked, i)
		}
	}
	crown(e, ranked)
	switch {
	case e.Fastest < 0:
		return search.Evaluation{}, ""
	case e.Objective == ObjectiveTime:
		return evals[e.Fastest], ""
	}
	return evals[e.Fastest], string(e.Objective)
}

// searchEntry is the entry a search commits: a result for each candidate
// of sop, those of the points it evaluated at their index, the winner by
// the tuner's objective.
func (t *Tuner) searchEntry(sop spaceOperation, pts *kernels.Points, size kernels.Size, evals []search.Evaluation) *Entry {
	e := newEntry(Key{Op: sop.name, DType: sop.DType().String(), Size: size}.String(), size, t.opts, t.dev.Info())
	cands := sop.Candidates()
	e.Results = make([]results.Result, len(cands))
	for i, c := range cands {
		e.Results[i] = results.Result{Index: i, Name: c.Name, Measurement: results.Measurement{Outcome: results.Unevaluated, Error: "not evaluated by the search"}}
	}
	var ranked []int // the verified points
	for _, s := range evals {
		j := pts.Index[s.Point]
		r := s.Record.Result
		r.Index, r.Name = j, cands[j].Name
		e.Results[j] = r
		if s.Record.Verified() {
			ranked = append(ranked, j)
		}
	}
	crown(e, ranked) // by the objective where the evaluations have it
	return e
}

// searchIdle is how long the GPU may wait between points before the next
// is warmed up again, for a quarter of Options.Warmup.
const searchIdle = 100 * time.Millisecond

// deviceSource evaluates points on the tuner's device, or from the log.
type deviceSource struct {
	ctx    context.Context
	t      *Tuner
	op     kernels.Operation
	size   kernels.Size
	cands  []kernels.Candidate
	pts    *kernels.Points
	ref    store.LogRef
	logged loggedPoints // none when forced
	sem    *buildSlots  // compile threads; nil compiles in line
	jobs   map[int]*compileJob
	t0     time.Time
	// proposed are the points the search proposed, in order; running is
	// the one being built, verified or sampled, -1 for none (before the
	// problem is prepared, or between points).
	proposed []int
	running  int
	// base's problem, prepared for the first point, is every point's;
	// last is when the GPU last ran a sample: a GPU idle for a while
	// (waiting for a compile) clocks down and is warmed up again.
	base *measurement
	last time.Time

	compile  time.Duration // summed over the compile threads
	measured int
	// keep keeps the points measured that may yet win, with their
	// pipelines (SearchOptions.KeepWinner), one of which Search hands
	// over, releasing the others.
	keep bool
	kept []keptPoint
}

type keptPoint struct {
	search.Evaluation
	exe hal.Executable
}

var _ search.Evaluator = (*deviceSource)(nil)

// Start starts building point i on a compile thread, as the search's
// problem runs it at its size (startPoint), unless the log has the point.
func (d *deviceSource) Start(i int) {
	d.proposed = append(d.proposed, i)
	if _, ok := d.fromLog(i); ok || d.sem == nil {
		return
	}
	if err := d.prepare(); err == nil {
		d.jobs[i] = d.startPoint(i, d.sem)
	}
}

// fromLog returns point i's record in the tuning log, if it has one;
// building the point's kernel to identify it counts as compile time.
func (d *deviceSource) fromLog(i int) (search.LogRecord, bool) {
	t0 := time.Now()
	rec, ok := d.logged.of(d.pts, i)
	if d.pts.Deferred(i) {
		d.compile += time.Since(t0)
	}
	return rec, ok
}

// prepare prepares, the first time, the problem every point runs on; its
// error ends the search.
func (d *deviceSource) prepare() error {
	if d.base != nil {
		return nil
	}
	if err := d.t.opts.check(); err != nil {
		return err
	}
	m := newMeasurement(d.t.dev, d.op, d.size, d.t.opts)
	if err := m.setup(d.ctx); err != nil {
		m.release()
		return err
	}
	d.base = m
	return nil
}

// startPoint starts point i's job in one of slots: what base's problem
// makes of it at its size (kernels.CandidateAt, which builds the
// pipelines of a manifest's later dispatches, and compiles a
// configuration of a GLSL space), or why it refuses the point; then its
// pipeline, unless refused.
func (d *deviceSource) startPoint(i int, slots *buildSlots) *compileJob {
	p, c, index, info := d.base.p, d.cands[i], d.pts.Index[i], d.base.info
	return build(d.ctx, d.t.dev, slots, func() (kernels.Candidate, error) { return kernels.CandidateAt(p, c, index, info) })
}

// Evaluate returns point i's evaluation, from the log or measured now.
func (d *deviceSource) Evaluate(ctx context.Context, i int) (search.Evaluation, error) {
	if rec, ok := d.fromLog(i); ok {
		rec.Index, rec.Name = d.pts.Index[i], d.cands[i].Name
		return search.Evaluation{Point: i, Record: rec}, nil
	}
	if err := d.prepare(); err != nil {
		return search.Evaluation{}, err
	}
	d.running = i // from its build on, as Measure counts a candidate's
	c := d.cands[i]
	st := &candState{res: results.Result{Index: d.pts.Index[i], Name: c.Name}}
	j, ok := d.jobs[i]
	if !ok {
		j = d.startPoint(i, newBuildSlots(1))
		d.jobs[i] = j
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return search.Evaluation{}, ctx.Err()
	}
	delete(d.jobs, i)
	d.compile += j.took
	rec := search.LogRecord{Config: d.pts.Configs[i]}
	err := j.refused // then neither built nor run
	if err == nil {
		rec.CompileSeconds = j.took.Seconds()
		if err = status.Annotatef(j.err, "building %s", c.Name); err == nil {
			t0 := time.Now()
			err = d.measure(ctx, c, st, j)
			rec.MeasureSeconds = time.Since(t0).Seconds()
			d.keepBest(search.Evaluation{Point: i, Record: search.LogRecord{Result: st.res}}, err, j.exe)
		}
	}
	switch {
	case err != nil && fatal(ctx, d.t.dev, err):
		return search.Evaluation{}, lossOr(d.t.dev, err) // a loss (a refusal too), not the point's
	case err != nil:
		st.fail(err)
	}
	d.running = -1
	rec.ID, rec.Result = d.pts.ID(i), st.res
	rec.Time = time.Now().UTC()
	// A file that cannot be written has warned. ctx ending while the
	// record waited for the file ends the search without it: the point
	// is measured again by the next.
	if err := search.AppendLog(ctx, d.t.store, d.ref, rec); err != nil && ctx.Err() != nil {
		return search.Evaluation{}, err
	}
	d.measured++
	return search.Evaluation{Point: i, Record: rec, Measured: true}, nil
}

// measure verifies, calibrates and samples candidate c, st, with the
// pipeline j built, as Measure does a candidate (Options.Budget is per
// point). Its energy windows run in turn with no other's: a search
// measures one point at a time (Drive's lookahead compiles ahead, it
// does not measure), so there is no batch whose windows Measure's energy
// pass could interleave.
func (d *deviceSource) measure(ctx context.Context, c kernels.Candidate, st *candState, j *compileJob) error {
	m := *d.base
	m.opts.Warmup = -1
	switch {
	case d.last.IsZero():
		m.opts.Warmup = d.base.opts.Warmup
	case time.Since(d.last) > searchIdle && d.base.opts.Warmup > 0:
		m.opts.Warmup = d.base.opts.Warmup / 4
	}
	st.exe = j.exe
	m.cands = []*candState{st} // the one candidate, at its index in the problem
	if err := m.verifyCandidate(ctx, c, st, j.took); err != nil {
		return err
	}
	st.alive = true
	if err := m.sample(ctx); err != nil {
		return err
	}
	d.last = time.Now()
	st.res = m.entry().Results[0]
	return nil
}

// keepBest keeps exe, the pipeline of point e, measured (err nil and
// verified), where the search keeps its winner and no point kept
// outranks e, releasing those that e outranks; else it releases exe: the
// measurement is over.
func (d *deviceSource) keepBest(e search.Evaluation, err error, exe hal.Executable) {
	obj := d.t.opts.Objective
	if !d.keep || err != nil || !e.Record.Verified() || slices.ContainsFunc(d.kept, func(k keptPoint) bool { return outranks(k.Record.Result, e.Record.Result, obj) }) {
		releaseExe(exe)
		return
	}
	d.kept = slices.DeleteFunc(d.kept, func(k keptPoint) bool {
		out := outranks(e.Record.Result, k.Record.Result, obj)
		if out {
			releaseExe(k.exe)
		}
		return out
	})
	d.kept = append(d.kept, keptPoint{e, exe})
}

func (d *deviceSource) releaseKept() {
	for _, k := range d.kept {
		releaseExe(k.exe)
	}
}

// outranks reports whether q, measured faster than p, leaves p no way to
// win an entry that ranks both, whatever else it ranks, by obj as
// pickByObjective picks: by time the fastest wins; by another objective
// the fastest of those tied with the least value, and q is tied wherever
// p is, its value and its interval's low end no higher and both with an
// interval or neither. Where either lacks an energy, time picks.
func outranks(q, p results.Result, obj Objective) bool {
	qv, qlo, _, qok := q.ObjectiveValue(string(obj))
	pv, plo, _, pok := p.ObjectiveValue(string(obj))
	return q.Stats.Median < p.Stats.Median && (obj == ObjectiveTime || !qok || !pok || qv <= pv && qlo <= plo && (qlo > 0) == (plo > 0))
}

// lose records in e, the entry of the search's evaluations, the device's
// loss, err, as Measure does: the point running fails with err, the others
// proposed and not evaluated were not run (results.NotRun, saying why),
// and every point of the search is flagged FlagDeviceLost: no winner.
func (d *deviceSource) lose(e *Entry, err error) {
	st := candState{res: e.Results[d.pts.Index[d.running]]}
	st.fail(err)
	e.Results[st.res.Index] = st.res
	for _, i := range d.proposed {
		if r := &e.Results[d.pts.Index[i]]; r.Outcome == results.Unevaluated {
			r.Outcome, r.Error = results.NotRun, results.LostBefore(st.res.Name)
		}
	}
	for i, r := range e.Results {
		if r.Outcome != results.Unevaluated {
			addFlag(&e.Results[i], FlagDeviceLost)
		}
	}
	crown(e, nil)
}

func (d *deviceSource) Elapsed() time.Duration { return time.Since(d.t0) }

func (d *deviceSource) Close() {
	abandon(slices.Collect(maps.Values(d.jobs)))
	d.jobs = map[int]*compileJob{}
	if d.base != nil {
		d.base.release()
		d.base = nil
	}
}
