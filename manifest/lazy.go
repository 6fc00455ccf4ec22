package manifest

import (
	"maps"
	"slices"
	"sync"

	"github.com/vkbench/vkbench/kernels"
)

// A space of GLSL kernels compiles a configuration when a search first
// needs it, not when it enumerates the space: the decode of the space's
// configurations (spaceKernels) reads each configuration's candidate as
// far as its JSON goes (decodeCandidate: its name, params, asserts,
// "requires" and the buffers it binds, its template's), and leaves its
// dispatches, which need the compiled module, for resolve. What the
// module says (its capabilities, shared memory, workgroup, bindings) is
// judged then, at the point's evaluation: kernels.CandidatesAt reports
// such a candidate kernels.ErrDeferred, and a problem plans it when it is
// first asked for (manifestProblem.ensure). A configuration that does not
// compile fails alone, with the compiler's words.

// lazyConfigs is what an operation needs to decode its deferred
// configurations later.
type lazyConfigs struct {
	// mu guards the decoder and, while one is decoded, the operation's
	// candidates and runs: readers of every run (layout, planAll,
	// Candidates) hold it for reading.
	mu sync.RWMutex
	d  *opDecoder
	// shallow are the deferred candidates as Candidates gives them,
	// whether decoded since or not, so that a candidate list's checksum
	// does not depend on what a search happened to compile; tag is their
	// "#manifest".
	shallow []kernels.Candidate
	tag     int
	once    []sync.Once
	errs    []error
}

// defers reports whether candidate c is a configuration of a GLSL space
// whose dispatches are decoded when first needed.
func (d *opDecoder) defers(c int) bool {
	return d.space != nil && d.space.glsl && c >= d.space.nnamed
}

// sourcesDigest is the text of every file the decoded GLSL modules were
// compiled from, for an operation whose deferred configurations'
// modules its digest cannot cover: editing a source or a header its
// named point reads changes the candidates' "#manifest".
func (d *opDecoder) sourcesDigest() []byte {
	var files []string
	for _, m := range d.modules {
		files = append(files, m.includes...)
	}
	slices.Sort(files)
	var out []byte
	for _, f := range slices.Compact(files) {
		text, err := readModule(f)
		if err != nil {
			text = []byte(err.Error())
		}
		out = append(out, digest(text)...)
	}
	return out
}

// deferConfigs keeps d, the decoder of op, for its deferred candidates.
func (op *manifestOp) deferConfigs(d *opDecoder) {
	lz := &lazyConfigs{d: d, shallow: make([]kernels.Candidate, len(op.cands)), once: make([]sync.Once, len(op.cands)), errs: make([]error, len(op.cands))}
	for c, run := range op.runs {
		if run.lazy {
			lz.shallow[c] = op.cands[c].Clone()
			lz.tag = op.cands[c].Params["#manifest"]
		}
	}
	op.lazy = lz
}

// readRuns holds op's runs still while the caller reads them, and
// returns what lets them go.
func (op *manifestOp) readRuns() func() {
	if op.lazy == nil {
		return func() {}
	}
	op.lazy.mu.RLock()
	return op.lazy.mu.RUnlock
}

// candidate is candidate c as Candidates gives it.
func (op *manifestOp) candidate(c int) kernels.Candidate {
	defer op.readRuns()()
	if op.runs[c].lazy {
		return op.lazy.shallow[c].Clone()
	}
	return op.cands[c].Clone()
}

// resolve decodes deferred candidate c, once, compiling the GLSL it
// needs: nil for any other candidate, else the error of its decode,
// naming the configuration, from then on. Safe for concurrent use.
func (op *manifestOp) resolve(c int) error {
	lz := op.lazy
	if lz == nil || !op.runs[c].lazy {
		return nil
	}
	lz.once[c].Do(func() { lz.errs[c] = lz.decode(c) })
	return lz.errs[c]
}

// decode compiles what candidate c's dispatches need and the cache does
// not hold, outside the lock (so that several configurations compile at
// once), then decodes them.
func (lz *lazyConfigs) decode(c int) error {
	d := lz.d
	for {
		lz.mu.Lock()
		jobs := d.gatherOne(c)
		lz.mu.Unlock()
		if len(jobs) == 0 {
			break
		}
		modules, failed := map[string]*manifestModule{}, map[string]error{}
		opts := &Options{Context: d.opts.context()} // a search's progress tells of these
		if err := compileJobs(d.op.name, jobs, modules, failed, opts); err != nil {
			return err
		}
		lz.mu.Lock()
		maps.Copy(d.modules, modules)
		maps.Copy(d.failed, failed)
		lz.mu.Unlock()
	}
	lz.mu.Lock()
	defer lz.mu.Unlock()
	undo := d.op.runs[c].keep()
	// The error is the point's, which names the configuration.
	cand, err := d.decodeCandidate(c, d.candObjs[c])
	if err != nil {
		undo()
		return err
	}
	cand.Applies = d.op.applies(c)
	cand.Params["#manifest"] = lz.tag
	d.op.cands[c] = cand
	return nil
}

// gatherOne returns the GLSL that decoding candidate c needs and the
// cache does not hold (compileAhead's first pass, for one candidate),
// leaving the candidate as it was.
func (d *opDecoder) gatherOne(c int) map[string]glslJob {
	undo, warned := d.op.runs[c].keep(), len(d.op.warnings)
	d.gather = map[string]glslJob{}
	_, _ = d.decodeCandidate(c, d.candObjs[c])
	undo()
	d.op.warnings = d.op.warnings[:warned]
	jobs := d.gather
	d.gather = nil
	return jobs
}

// keep returns what puts back the fields of r that decodeCandidate sets
// (not lazy, which others read without the lock).
func (r *manifestRun) keep() (undo func()) {
	asserts, dispatches, shared, size, full := r.asserts, r.dispatches, r.shared, r.subgroupSize, r.fullSubgroups
	return func() {
		r.asserts, r.dispatches, r.shared, r.subgroupSize, r.fullSubgroups = asserts, dispatches, shared, size, full
	}
}

// ensure decodes deferred candidate c (resolve) and plans it at the
// problem's size, the first time it is asked for: a configuration that
// does not compile, or whose plan fails, fails with that error from
// then on. Nothing for any other candidate. Safe for concurrent use.
func (p *manifestProblem) ensure(c int) error {
	if c < 0 || c >= len(p.op.runs) || !p.op.runs[c].lazy {
		return nil
	}
	err := p.op.resolve(c)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.planned[c] {
		return p.errs[c]
	}
	p.planned[c] = true
	switch {
	case p.errs[c] != kernels.ErrDeferred: // the size refuses it: no plan to make
	case err != nil:
		p.errs[c] = err
	default:
		info := p.dev.Info()
		if p.plans[c], p.errs[c] = p.op.plan(p.size, c, p.envs[c], &info); p.errs[c] == nil {
			p.bind(c)
		}
	}
	return p.errs[c]
}
