package manifest

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// manifestProblem is a Problem of a manifest operation.
type manifestProblem struct {
	op   *manifestOp
	dev  hal.Device
	size kernels.Size
	*layout
	// main is the candidate whose work Bytes and Flops report: the
	// reference, else the first that can run.
	main int
	bufs []hal.Buffer // by the manifest's buffer index
	// images and samplers are those of the image buffers, by the same
	// index; bufs holds each image's texels on their way in and out.
	images   []hal.Image
	samplers []hal.Sampler
	initial  []hal.Buffer // the initial contents of inout buffers
	listed   []kernels.Operand
	plans    [][]planStep // the layout's errs say why a candidate cannot run
	// mu guards what a search's compile threads change as they ask for
	// candidates (SizedCandidate): sized, laterBuilt, planned, exes, and
	// the plans and errs of candidates planned late (ensure).
	mu sync.Mutex
	// sized marks the candidates whose SizedCandidate was asked for:
	// Record is given their pipelines at this size.
	sized []bool
	// laterBuilt marks the candidates whose pipelines beyond their own
	// are built (buildLater); planned, the configurations of a GLSL
	// space that are planned (ensure).
	laterBuilt, planned []bool
	want                [][]byte // the reference's outputs, by buffer index
	// exes are the pipelines the problem built, by key.
	exes map[string]hal.Executable
	// host are the initial contents of the buffers that expected values
	// read, by name.
	host exprEnv
}

// resettingProblem is a manifestProblem with inout buffers, whose runs
// change their own inputs: before each run it copies them back.
type resettingProblem struct{ *manifestProblem }

var (
	_ kernels.Problem         = (*manifestProblem)(nil)
	_ kernels.Resetter        = resettingProblem{}
	_ kernels.CandidateWorker = (*manifestProblem)(nil)
	_ kernels.Sizer           = (*manifestProblem)(nil)
	_ kernels.OperationSizer  = (*manifestOp)(nil)
)

// Prepare allocates the buffers at size, fills the inputs as the
// manifest says, plans every candidate's dispatches, and runs the
// reference candidate once to have the results to verify against. The
// pipelines a candidate needs beyond its own are built when it is first
// asked for or run (buildLater).
func (op *manifestOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	p, err := op.prepare(ctx, dev, size, seed)
	if err != nil {
		return nil, err
	}
	return p.problem(), nil
}

// problem is p, a Resetter where the operation's runs change their own
// inputs.
func (p *manifestProblem) problem() kernels.Problem {
	if p.op.resets() {
		return resettingProblem{p}
	}
	return p
}

func (op *manifestOp) prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (_ *manifestProblem, err error) {
	if err := kernels.CheckSize(op.Name(), op.Dims(), size.Extents(), true); err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, status.New(status.InvalidArgument, "manifest: nil device")
	}
	defer func() { err = status.Annotatef(err, "manifest: %s at %v", op.name, size) }()
	info := dev.Info()
	lay, err := op.layout(size, &info)
	if err != nil {
		return nil, err
	}
	p := &manifestProblem{op: op, dev: dev, size: size, layout: lay, main: -1, exes: map[string]hal.Executable{}, host: exprEnv{},
		bufs: make([]hal.Buffer, len(op.bufs)), initial: make([]hal.Buffer, len(op.bufs)),
		images: make([]hal.Image, len(op.bufs)), samplers: make([]hal.Sampler, len(op.bufs)),
		sized: make([]bool, len(op.runs)), laterBuilt: make([]bool, len(op.runs)), planned: make([]bool, len(op.runs)), want: make([][]byte, len(op.bufs))}
	defer func() {
		if err != nil {
			err = status.Join(err, p.Release())
		}
	}()
	if err := p.allocate(ctx, info, seed); err != nil {
		return nil, err
	}
	if err := p.createImages(ctx, info); err != nil {
		return nil, err
	}
	p.plans = op.planAll(size, lay, &info)
	for c := range op.runs {
		if p.errs[c] != nil {
			continue
		}
		p.bind(c)
		if p.main < 0 || c == op.ref {
			p.main = c
		}
	}
	if err := p.runReference(ctx, info); err != nil {
		return nil, err
	}
	return p, nil
}

// bind gives the steps of candidate c's plan their bindings.
func (p *manifestProblem) bind(c int) {
	for k := range p.plans[c] {
		st := &p.plans[c][k]
		for k, b := range st.d.bindings {
			st.bindings = append(st.bindings, p.binding(st.d, k, b))
		}
	}
}

// buildLater builds, the first time it is asked for candidate c, the
// pipelines its runs at this size need beyond its own (the one Record is
// given: the candidate's at the default size, or at this one,
// kernels.Sizer): those of later dispatches and passes, one for each
// distinct set of constants, kept until Release. SizedCandidate and Record
// ask, so that the compile time is paid before the candidate's first run
// and a search builds those of the configurations it evaluates alone. A
// candidate the device cannot run builds nothing here. A candidate whose
// pipeline fails to build fails with that error from then on; a device
// that fails gives the device's error.
func (p *manifestProblem) buildLater(c int) error {
	p.mu.Lock()
	steps, built, err := p.plans[c], p.laterBuilt[c], p.errs[c]
	p.mu.Unlock()
	if built || err != nil || p.op.runs[c].sized(p.op.cands[c], steps).Supported(p.dev.Info()) != nil {
		return err
	}
	for _, st := range steps {
		if st.ps.key == p.op.runs[c].dispatches[0].fixed.key || st.ps.key == steps[0].ps.key {
			continue
		}
		if _, err := p.executable(st); err != nil {
			if derr := p.dev.Err(); derr != nil {
				return derr
			}
			p.mu.Lock()
			p.errs[c] = err
			p.mu.Unlock()
			return err
		}
	}
	p.mu.Lock()
	p.laterBuilt[c] = true
	p.mu.Unlock()
	return nil
}

// allocate creates the buffers and fills the inputs.
func (p *manifestProblem) allocate(ctx context.Context, info hal.DeviceInfo, seed uint64) error {
	op := p.op
	// Buffers a kernel writes get kernels.GuardBytes of slack past their
	// elements, within the binding, which kernels.Check requires to hold
	// Poison still: a kernel that writes past the end of its output fails,
	// as the library's kernels do, where an exact allocation let it pass.
	create := func(i int, label string, guarded bool) (hal.Buffer, error) {
		b := op.bufs[i]
		size := max((p.lens[i]*int64(b.typ.size)+3)&^3, 4)
		r := int64(info.Limits.MaxStorageBufferRange)
		if r > 0 && size > r {
			return nil, status.Newf(status.OutOfRange, "manifest: buffer %s needs %d bytes, past the device's maxStorageBufferRange of %d", b.name, size, r)
		}
		if guarded {
			size += kernels.GuardBytes
			if r > 0 {
				size = min(size, r&^3)
			}
		}
		buf, err := p.dev.CreateBuffer(hal.BufferDesc{Size: size, Memory: hal.DeviceLocal, Label: op.name + "." + label})
		return buf, status.Annotatef(err, "manifest: allocating buffer %s", b.name)
	}
	for i, b := range op.bufs {
		buf, err := create(i, b.name, b.role != roleInput)
		if err != nil {
			return err
		}
		p.bufs[i] = buf
		p.listed = append(p.listed, kernels.Operand{Buffer: buf, Name: b.name, DType: b.typ.dtype(), Len: p.lens[i], Role: operandRoles[b.role]})
		if b.role != roleInput && b.role != roleInOut {
			continue
		}
		dst := buf
		if b.role == roleInOut {
			if p.initial[i], err = create(i, b.name+".initial", false); err != nil {
				return err
			}
			p.listed = append(p.listed, kernels.Operand{Buffer: p.initial[i], Name: b.name + ".initial", DType: b.typ.dtype(), Len: p.lens[i]})
			dst = p.initial[i]
		}
		in := p.inits[i]
		r := kernels.NewRand(seed, uint64(i))
		if in.hasSeed {
			r = kernels.NewRand(in.seed, 0)
		}
		var keep []byte
		if b.read {
			// An expected value reads the contents: keep them.
			keep = make([]byte, p.lens[i]*int64(b.typ.size))
			p.host[b.name] = exprValue{arr: &hostArray{typ: b.typ, n: p.lens[i], data: keep}}
		}
		if err := fill(ctx, dst, p.lens[i], b.typ, in.source(b.typ, r), keep); err != nil {
			return status.Annotatef(err, "manifest: filling buffer %s", b.name)
		}
	}
	// Inputs first, then outputs, then scratch, each in the manifest's order.
	slices.SortStableFunc(p.listed, func(a, b kernels.Operand) int { return cmp.Compare(a.Role, b.Role) })
	return nil
}

// fillChunk is the most bytes fill makes at once: a gigabyte input
// needs no second gigabyte on the host.
const fillChunk = 32 << 20

// fillCheck is how many elements fill makes between two looks at its
// context: a cancelled fill stops within a fraction of a piece.
const fillCheck = 1 << 16

// fill writes n elements made by src into buf, a piece of at most
// fillChunk bytes at a time. Where keep is not nil, it holds the n
// elements: they are made there, to be kept, and written from there.
func fill(ctx context.Context, buf hal.Buffer, n int64, t scalarType, src elementSource, keep []byte) error {
	size := int64(t.size)
	chunk := keep
	if chunk == nil {
		chunk = make([]byte, min(fillChunk, max(n*size, 1)))
	}
	per := min(int64(len(chunk)), fillChunk) / size
	for first := int64(0); first < n; first += per {
		m := min(per, n-first)
		piece := chunk[:m*size]
		if keep != nil {
			piece = keep[first*size : (first+m)*size]
		}
		for i := range m {
			if i%fillCheck == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			src(first+i, piece[i*size:(i+1)*size])
		}
		if err := buf.Write(ctx, first*size, piece); err != nil {
			return err
		}
	}
	return nil
}

func readRange(ctx context.Context, buf hal.Buffer, off, n int64) ([]byte, error) {
	out := make([]byte, n)
	return out, buf.Read(ctx, off, out)
}

// runReference runs the reference candidate once and keeps its outputs,
// then poisons the outputs again, so that a candidate that writes nothing
// cannot pass on what the reference left.
func (p *manifestProblem) runReference(ctx context.Context, info hal.DeviceInfo) (err error) {
	op := p.op
	if op.ref < 0 {
		return nil
	}
	c := op.cands[op.ref]
	cannot := func(err error) error {
		return status.Wrapf(err, status.FailedPrecondition, "manifest: the reference candidate %q cannot run, so no candidate can be verified", c.Name)
	}
	if err := p.errs[op.ref]; err != nil {
		return cannot(err)
	}
	if err := op.runs[op.ref].sized(c, p.plans[op.ref]).Supported(info); err != nil {
		return cannot(err)
	}
	if err := p.buildLater(op.ref); err != nil {
		if derr := p.dev.Err(); derr != nil {
			return derr
		}
		return cannot(err)
	}
	// Without a pipeline of its own, Record builds the reference's (and
	// keeps them for the problem's life).
	if err := kernels.Run(ctx, p.dev, p.problem(), nil, op.ref); err != nil {
		return status.Annotatef(err, "manifest: running the reference candidate %q", c.Name)
	}
	if err := p.download(ctx); err != nil {
		return err
	}
	for i, b := range op.bufs {
		if !b.checked() || b.expects() {
			continue
		}
		if p.want[i], err = readRange(ctx, p.bufs[i], 0, p.lens[i]*int64(b.typ.size)); err != nil {
			return status.Annotatef(err, "manifest: reading the reference's %s", b.name)
		}
	}
	return kernels.Execute(ctx, p.dev, func(cb hal.CommandBuffer) error { return kernels.RecordPoison(cb, p) })
}

func (b *manifestBuffer) checked() bool {
	return b.check && (b.role == roleOutput || b.role == roleInOut)
}

// checkedBuffers returns the indices of the buffers that are checked, in
// order.
func (op *manifestOp) checkedBuffers() []int {
	var out []int
	for i, b := range op.bufs {
		if b.checked() {
			out = append(out, i)
		}
	}
	return out
}

func (p *manifestProblem) Size() kernels.Size { return p.size }

// Bytes and Flops are those of the reference candidate (else the first
// that can run); CandidateWork gives each candidate's.
func (p *manifestProblem) Bytes() float64 { b, _ := p.CandidateWork(p.main); return b }
func (p *manifestProblem) Flops() float64 { _, f := p.CandidateWork(p.main); return f }

// CandidateWork returns the bytes and flops of one run of candidate
// cand, whose "bytes" and "flops" may use its params; 0 for a candidate
// that cannot run at this size.
func (p *manifestProblem) CandidateWork(cand int) (bytes, flops float64) {
	if cand < 0 || cand >= len(p.work) {
		return 0, 0
	}
	return p.work[cand].bytes, p.work[cand].flops
}

func (p *manifestProblem) Buffers() []kernels.Operand {
	return append([]kernels.Operand(nil), p.listed...)
}

// candidate returns why candidate cand cannot run, planning it first
// where it is planned when first asked for (ensure).
func (p *manifestProblem) candidate(cand int) error {
	if err := kernels.CheckCandidate(p.op.name, cand, len(p.op.cands)); err != nil {
		return err
	}
	if err := p.ensure(cand); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.errs[cand]
}

// Record records the candidate's dispatches, with a barrier between
// each. exe runs the dispatches whose pipeline is the candidate's own (at
// this size where SizedCandidate was asked for it, else at the default
// size); the others use those buildLater built (or, for one it did not
// build, or with exe nil, that Record builds the first time and keeps
// until Release).
func (p *manifestProblem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	if err := p.candidate(cand); err != nil {
		return err
	}
	if err := p.buildLater(cand); err != nil {
		return err
	}
	own := p.op.runs[cand].dispatches[0].fixed.key
	p.mu.Lock()
	if p.sized[cand] {
		own = p.plans[cand][0].ps.key
	}
	p.mu.Unlock()
	for k, st := range p.plans[cand] {
		if k > 0 {
			if err := cb.Barrier(); err != nil {
				return err
			}
		}
		x := exe
		if st.ps.key != own || x == nil {
			var err error
			if x, err = p.executable(st); err != nil {
				return err
			}
		}
		err := cb.Dispatch(hal.Dispatch{Executable: x, Bindings: st.bindings, PushConstants: st.push, Groups: st.groups})
		if err != nil {
			return status.Annotatef(err, "manifest: %s", st.d.desc.Label)
		}
	}
	return nil
}

// SizedCandidate is candidate cand as it runs at the problem's size
// (kernels.Sizer), or the error of its plan there, or of a pipeline of
// its later dispatches (buildLater, which builds them now).
func (p *manifestProblem) SizedCandidate(cand int) (kernels.Candidate, error) {
	if err := p.candidate(cand); err != nil {
		return kernels.Candidate{}, err
	}
	if err := p.buildLater(cand); err != nil {
		return kernels.Candidate{}, err
	}
	p.mu.Lock()
	p.sized[cand] = true
	p.mu.Unlock()
	return p.op.runs[cand].sized(p.op.cands[cand], p.plans[cand]), nil
}

// CandidatesAt is each candidate as a problem of size prepared on the
// device info describes runs it, planned as Prepare plans it
// (kernels.OperationSizer).
func (op *manifestOp) CandidatesAt(size kernels.Size, info hal.DeviceInfo) ([]kernels.Candidate, []error) {
	lay, err := op.layout(size, &info)
	if err != nil {
		return op.Candidates(), slices.Repeat([]error{err}, len(op.runs))
	}
	cands, errs := op.Candidates(), make([]error, len(op.runs))
	for c, steps := range op.planAll(size, lay, &info) {
		if errs[c] = lay.errs[c]; errs[c] == nil {
			cands[c] = op.runs[c].sized(cands[c], steps)
		}
	}
	return cands, errs
}

// PipelinesAt is every pipeline a problem of size prepared on the device
// info describes builds beyond its candidates' own (CandidatesAt): those
// of their later dispatches and passes (kernels.OperationSizer).
func (op *manifestOp) PipelinesAt(size kernels.Size, info hal.DeviceInfo) []hal.ExecutableDesc {
	lay, err := op.layout(size, &info)
	if err != nil {
		return nil
	}
	var out []hal.ExecutableDesc
	seen := map[string]bool{}
	for c, steps := range op.planAll(size, lay, &info) {
		if lay.errs[c] != nil || op.runs[c].sized(op.cands[c], steps).Supported(info) != nil {
			continue
		}
		seen[steps[0].ps.key] = true
		for _, st := range steps {
			if !seen[st.ps.key] {
				seen[st.ps.key] = true
				out = append(out, st.d.executable(st.ps))
			}
		}
	}
	return out
}

// sized is cand, the run's candidate, as steps, its run at some size,
// run it: its own pipeline the first step's, its workgroup the largest of
// its steps' and its shared memory the most any of them declares (or its
// "requires" asks).
func (run *manifestRun) sized(cand kernels.Candidate, steps []planStep) kernels.Candidate {
	desc := steps[0].d.executable(steps[0].ps)
	cand.SPIRV, cand.EntryPoint, cand.Bindings, cand.Sets, cand.BindingKinds = desc.SPIRV, desc.EntryPoint, desc.Bindings, slices.Clone(desc.Sets), slices.Clone(desc.BindingKinds)
	cand.PushConstantSize, cand.Constants = desc.PushConstantSize, desc.Constants
	cand.SubgroupSize, cand.FullSubgroups = desc.SubgroupSize, desc.FullSubgroups
	cand.WorkgroupSize, cand.Requires.SharedMemory = [3]uint32{}, run.shared
	for _, st := range steps {
		if wg := st.ps.wg; (kernels.Candidate{WorkgroupSize: wg}).Invocations() > cand.Invocations() {
			cand.WorkgroupSize = wg
		}
		cand.Requires.SharedMemory = max(cand.Requires.SharedMemory, st.ps.shared)
	}
	return cand
}

// executable returns the pipeline of st, built the first time (outside
// the lock: two threads that build one at once keep the first).
func (p *manifestProblem) executable(st planStep) (hal.Executable, error) {
	p.mu.Lock()
	x, ok := p.exes[st.ps.key]
	p.mu.Unlock()
	if ok {
		return x, nil
	}
	desc := st.d.executable(st.ps)
	desc.Label = p.op.name + "/" + desc.Label
	x, err := p.dev.CreateExecutable(desc)
	if err != nil {
		return nil, status.Annotatef(err, "manifest: building %s", desc.Label)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if first, ok := p.exes[st.ps.key]; ok {
		_ = x.Release() // never used
		return first, nil
	}
	p.exes[st.ps.key] = x
	return x, nil
}

// RecordReset copies the initial contents of the inout buffers and
// images back, and the contents of the output images' buffers (poison,
// before a verified run) into the images.
func (p resettingProblem) RecordReset(cb hal.CommandBuffer, cand int) error {
	for i, b := range p.op.bufs {
		img, initial := p.images[i], p.initial[i]
		var err error
		what := "image " + b.name
		switch {
		case img != nil && b.role == roleInOut:
			err = cb.CopyBufferToImage(initial, 0, img)
		case img != nil && b.role == roleOutput:
			err = cb.CopyBufferToImage(p.bufs[i], 0, img)
		case img == nil && initial != nil:
			what = b.name
			err = cb.Copy(initial, 0, p.bufs[i], 0, initial.Size())
		}
		if err != nil {
			return status.Annotatef(err, "manifest: resetting %s", what)
		}
	}
	return nil
}

// Release frees the buffers, the images and samplers, and the pipelines
// Record built.
func (p *manifestProblem) Release() error {
	err := status.Join(releaseAll(p.bufs), releaseAll(p.initial), releaseAll(p.images), releaseAll(p.samplers),
		releaseAll(slices.Collect(maps.Values(p.exes))))
	clear(p.exes)
	p.listed = nil
	return err
}

// releaseAll releases the objects of xs that are there, and forgets them.
func releaseAll[T interface{ Release() error }](xs []T) error {
	var errs []error
	for _, x := range xs {
		if any(x) != nil {
			errs = append(errs, x.Release())
		}
	}
	clear(xs)
	return status.Join(errs...)
}
