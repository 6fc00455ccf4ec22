package manifest

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// assertFailed marks (as a payload) the error of a size that fails an
// assert: at load time a candidate may refuse the default size.
type assertFailed struct{}

func isAssertFailure(err error) bool {
	_, ok := status.Payload[assertFailed](err)
	return ok
}

// Limits on what one run may record, so that a manifest cannot ask for
// millions of dispatches by mistake.
const (
	maxRepeat    = 1 << 16
	maxSteps     = 1 << 16
	maxBufferLen = 1 << 48
)

// dimsEnv is the environment of expressions that use only dimensions and
// the lets made of them.
func (op *manifestOp) dimsEnv(size kernels.Size) (exprEnv, error) {
	env := exprEnv{}
	for i, name := range op.dims {
		env[name] = intValue(int64(size[i]))
	}
	for _, l := range op.lets {
		if l.usesParams {
			continue
		}
		v, err := l.eval(env)
		if err != nil {
			return nil, l.errorf(status.InvalidArgument, err)
		}
		env[l.name] = v
	}
	return env, nil
}

// env is the environment of candidate c's expressions at size: the
// dimensions, its params, and the lets it can evaluate.
func (op *manifestOp) env(size kernels.Size, c int) (exprEnv, error) {
	env := exprEnv{}
	for i, name := range op.dims {
		env[name] = intValue(int64(size[i]))
	}
	run := op.runs[c]
	for k, v := range run.params {
		env[k] = intValue(int64(v))
	}
	for i, l := range op.lets {
		if !run.lets[i] {
			continue
		}
		v, err := l.eval(env)
		if err != nil {
			return nil, l.errorf(status.InvalidArgument, err)
		}
		env[l.name] = v
	}
	return env, nil
}

// checkAsserts checks the operation's asserts at size.
func (op *manifestOp) checkAsserts(size kernels.Size) error {
	env, err := op.dimsEnv(size)
	if err != nil {
		return err
	}
	return op.checkAssertList(op.asserts, env, size, "operation")
}

// checkAssertList checks asserts (the operation's or a candidate's, as
// whose says) in env.
func (op *manifestOp) checkAssertList(asserts []manifestExpr, env exprEnv, size kernels.Size, whose string) error {
	for _, a := range asserts {
		v, err := a.evalInt(env)
		if err != nil {
			return a.errorf(status.InvalidArgument, err)
		}
		if v == 0 {
			var dims []string
			for i, d := range op.dims {
				dims = append(dims, fmt.Sprintf("%s=%d", d, size[i]))
			}
			err := status.Newf(status.InvalidArgument, "kernels: manifest %s: size %s fails the %s's assert %q", a.where, strings.Join(dims, ","), whose, a.src)
			return status.WithPayload(err, assertFailed{})
		}
	}
	return nil
}

// bufferLen evaluates the length of b in env.
func (op *manifestOp) bufferLen(b *manifestBuffer, env exprEnv) (int64, error) {
	n, err := b.len.evalInt(env)
	if err != nil {
		return 0, b.len.errorf(status.InvalidArgument, err)
	}
	if n < 0 || n > maxBufferLen/int64(b.typ.size) {
		return 0, b.len.errorf(status.InvalidArgument, fmt.Errorf("is %d elements, outside [0, 2⁴⁸ bytes]", n))
	}
	return n, nil
}

// layout is what a size makes of an operation: each candidate's
// environment (or why it has none), each buffer's length.
type layout struct {
	envs    []exprEnv
	errs    []error // per candidate
	lens    []int64
	counted exprEnv
}

// layout checks the operation's asserts and evaluates what every
// candidate needs at size. A failure that concerns one candidate is kept
// in errs; one that concerns the operation is returned.
func (op *manifestOp) layout(size kernels.Size) (*layout, error) {
	if err := op.checkAsserts(size); err != nil {
		return nil, err
	}
	l := &layout{envs: make([]exprEnv, len(op.runs)), errs: make([]error, len(op.runs)), lens: make([]int64, len(op.bufs))}
	var err error
	if l.counted, err = op.dimsEnv(size); err != nil {
		return nil, err
	}
	for c, run := range op.runs {
		if l.envs[c], l.errs[c] = op.env(size, c); l.errs[c] != nil {
			continue
		}
		l.errs[c] = op.checkAssertList(run.asserts, l.envs[c], size, "candidate")
	}
	for i, b := range op.bufs {
		if !b.len.usesParams {
			// The same for every candidate: a failure is the operation's.
			if l.lens[i], err = op.bufferLen(b, l.counted); err != nil {
				return nil, err
			}
			continue
		}
		for c, uses := range b.users {
			if !uses || l.errs[c] != nil {
				continue
			}
			n, err := op.bufferLen(b, l.envs[c])
			if err != nil {
				l.errs[c] = err
				continue
			}
			l.lens[i] = max(l.lens[i], n)
		}
	}
	return l, nil
}

// counts returns the bytes and flops of one run: the manifest's
// expressions, or by default no flops and each input read once and each
// output written once.
func (op *manifestOp) counts(env exprEnv, lens []int64) (bytes, flops float64, err error) {
	if op.bytes != nil {
		v, err := op.bytes.eval(env)
		if err != nil {
			return 0, 0, op.bytes.errorf(status.InvalidArgument, err)
		}
		bytes = v.float()
	} else {
		for i, b := range op.bufs {
			n := float64(lens[i]) * float64(b.typ.size)
			switch b.role {
			case roleInput, roleOutput:
				bytes += n
			case roleInOut:
				bytes += 2 * n
			}
		}
	}
	if op.flops != nil {
		v, err := op.flops.eval(env)
		if err != nil {
			return 0, 0, op.flops.errorf(status.InvalidArgument, err)
		}
		flops = v.float()
	}
	if bytes < 0 || flops < 0 || math.IsNaN(bytes+flops) {
		return 0, 0, status.Newf(status.InvalidArgument, "kernels: manifest: %s: bytes %g and flops %g must not be negative", op.name, bytes, flops)
	}
	return bytes, flops, nil
}

// planStep is one dispatch of a run, ready to record.
type planStep struct {
	d        *manifestDispatch
	push     []byte
	groups   [3]uint32
	bindings []hal.Binding
}

// plan evaluates candidate c's dispatches at size in env: repeat counts,
// groups (checked against limits when given) and push constants.
func (op *manifestOp) plan(size kernels.Size, c int, env exprEnv, limits *hal.Limits) ([]planStep, error) {
	var steps []planStep
	// Vulkan guarantees 65535 workgroups in each direction; the device's
	// own limits replace them when known.
	maxGroups := [3]uint32{65535, 65535, 65535}
	if limits != nil {
		maxGroups = limits.MaxWorkgroupCount
	}
	env["max_groups_x"], env["max_groups_y"], env["max_groups_z"] = intValue(int64(maxGroups[0])), intValue(int64(maxGroups[1])), intValue(int64(maxGroups[2]))
	for _, d := range op.runs[c].dispatches {
		env["local_size_x"], env["local_size_y"], env["local_size_z"] = intValue(int64(d.wg[0])), intValue(int64(d.wg[1])), intValue(int64(d.wg[2]))
		delete(env, "pass")
		count := int64(1)
		if d.repeat != nil {
			var err error
			if count, err = d.repeat.evalInt(env); err != nil {
				return nil, d.repeat.errorf(status.InvalidArgument, err)
			}
			if count < 0 || count > maxRepeat {
				return nil, d.repeat.errorf(status.InvalidArgument, fmt.Errorf("is %d, outside [0, %d]", count, maxRepeat))
			}
		}
		for pass := range count {
			env["pass"] = intValue(pass)
			st := planStep{d: d}
			for i, g := range d.groups {
				v, err := g.evalInt(env)
				if err != nil {
					return nil, g.errorf(status.InvalidArgument, err)
				}
				if v < 1 || v > math.MaxUint32 {
					return nil, g.errorf(status.InvalidArgument, fmt.Errorf("is %d; a dispatch needs 1 or more workgroups in each of x, y and z", v))
				}
				if limits != nil && uint64(v) > uint64(limits.MaxWorkgroupCount[i]) {
					return nil, g.errorf(status.OutOfRange, fmt.Errorf("is %d, past the device's limit of %d workgroups in %c", v, limits.MaxWorkgroupCount[i], "xyz"[i]))
				}
				st.groups[i] = uint32(v)
			}
			if d.pushSize > 0 {
				st.push = make([]byte, d.pushSize)
			}
			for _, f := range d.push {
				v, err := f.value.eval(env)
				if err != nil {
					return nil, f.value.errorf(status.InvalidArgument, err)
				}
				if err := f.typ.encode(st.push[f.offset:], v); err != nil {
					return nil, f.value.errorf(status.InvalidArgument, err)
				}
			}
			steps = append(steps, st)
			if len(steps) > maxSteps {
				return nil, status.Newf(status.InvalidArgument, "kernels: manifest %s: a run of %q would record more than %d dispatches", d.where, op.cands[c].Name, maxSteps)
			}
		}
	}
	if len(steps) == 0 {
		return nil, status.Newf(status.InvalidArgument, "kernels: %s/%s at %v: every dispatch repeats 0 times; a run must dispatch something", op.name, op.cands[c].Name, size)
	}
	return steps, nil
}

// manifestProblem is a Problem of a manifest operation.
type manifestProblem struct {
	op           *manifestOp
	dev          hal.Device
	size         kernels.Size
	bytes, flops float64
	lens         []int64
	bufs         []hal.Buffer // by the manifest's buffer index
	initial      []hal.Buffer // the initial contents of inout buffers
	listed       []kernels.Operand
	plans        [][]planStep
	planErrs     []error
	want         [][]byte // the reference's outputs, by buffer index
	exes         map[string]hal.Executable
}

// resettingProblem is a manifestProblem with inout buffers, whose runs
// change their own inputs: before each run it copies them back.
type resettingProblem struct{ *manifestProblem }

var (
	_ kernels.Problem  = (*manifestProblem)(nil)
	_ kernels.Resetter = resettingProblem{}
)

// Prepare allocates the buffers at size, fills the inputs as the
// manifest says, plans every candidate's dispatches, and runs the
// reference candidate once to have the results to verify against.
func (op *manifestOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (_ kernels.Problem, err error) {
	if err := kernels.CheckSize(op, size); err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, status.New(status.InvalidArgument, "kernels: nil device")
	}
	defer func() { err = status.Annotatef(err, "kernels: %s at %v", op.name, size) }()
	info := dev.Info()
	lay, err := op.layout(size)
	if err != nil {
		return nil, err
	}
	p := &manifestProblem{op: op, dev: dev, size: size, lens: lay.lens, exes: map[string]hal.Executable{},
		bufs: make([]hal.Buffer, len(op.bufs)), initial: make([]hal.Buffer, len(op.bufs)),
		plans: make([][]planStep, len(op.runs)), planErrs: lay.errs, want: make([][]byte, len(op.bufs))}
	if p.bytes, p.flops, err = op.counts(lay.counted, lay.lens); err != nil {
		return nil, err
	}
	if err := p.allocate(ctx, info, seed); err != nil {
		return nil, status.Join(err, p.Release())
	}
	for c := range op.runs {
		if p.planErrs[c] != nil {
			continue
		}
		if p.plans[c], p.planErrs[c] = op.plan(size, c, lay.envs[c], &info.Limits); p.planErrs[c] != nil {
			continue
		}
		for k := range p.plans[c] {
			st := &p.plans[c][k]
			for _, b := range st.d.bindings {
				st.bindings = append(st.bindings, hal.Binding{Buffer: p.bufs[b]})
			}
		}
	}
	var prob kernels.Problem = p
	for _, b := range op.bufs {
		if b.role == roleInOut {
			prob = resettingProblem{p}
			break
		}
	}
	if err := p.runReference(ctx, prob, info); err != nil {
		return nil, status.Join(err, p.Release())
	}
	return prob, nil
}

// allocate creates the buffers and fills the inputs.
func (p *manifestProblem) allocate(ctx context.Context, info hal.DeviceInfo, seed uint64) error {
	op := p.op
	create := func(b *manifestBuffer, label string) (hal.Buffer, int64, error) {
		size := max((p.lens[slicesIndex(op.bufs, b)]*int64(b.typ.size)+3)&^3, 4)
		if r := info.Limits.MaxStorageBufferRange; r > 0 && uint64(size) > r {
			return nil, 0, status.Newf(status.OutOfRange, "kernels: buffer %s needs %d bytes, past the device's maxStorageBufferRange of %d", b.name, size, r)
		}
		buf, err := p.dev.CreateBuffer(hal.BufferDesc{Size: size, Memory: hal.DeviceLocal, Label: op.name + "." + label})
		return buf, size, status.Annotatef(err, "kernels: allocating buffer %s", b.name)
	}
	var inputs, outputs, scratch []kernels.Operand
	for i, b := range op.bufs {
		buf, _, err := create(b, b.name)
		if err != nil {
			return err
		}
		p.bufs[i] = buf
		desc := kernels.Operand{Buffer: buf, Name: b.name, DType: b.typ.dtype(), Len: p.lens[i]}
		switch b.role {
		case roleInput:
			inputs = append(inputs, desc)
		case roleOutput, roleInOut:
			desc.Role = kernels.Output
			outputs = append(outputs, desc)
		case roleScratch:
			desc.Role = kernels.Scratch
			scratch = append(scratch, desc)
		}
		if b.role != roleInput && b.role != roleInOut {
			continue
		}
		dst := buf
		if b.role == roleInOut {
			if p.initial[i], _, err = create(b, b.name+".initial"); err != nil {
				return err
			}
			inputs = append(inputs, kernels.Operand{Buffer: p.initial[i], Name: b.name + ".initial", DType: b.typ.dtype(), Len: p.lens[i]})
			dst = p.initial[i]
		}
		r := kernels.NewRand(seed, uint64(i))
		if b.init.hasSeed {
			r = kernels.NewRand(b.init.seed, 0)
		}
		if err := fill(ctx, dst, p.lens[i], b.typ, b.init.source(b.typ, r)); err != nil {
			return status.Annotatef(err, "kernels: filling buffer %s", b.name)
		}
	}
	p.listed = append(append(inputs, outputs...), scratch...)
	return nil
}

func slicesIndex(bufs []*manifestBuffer, b *manifestBuffer) int {
	for i, x := range bufs {
		if x == b {
			return i
		}
	}
	return -1
}

// fill writes n elements of type t made by src into buf.
func fill(ctx context.Context, buf hal.Buffer, n int64, t scalarType, src elementSource) error {
	size := int64(t.size)
	chunk := make([]byte, min(kernels.TransferChunk, max(n*size, 1)))
	per := int64(len(chunk)) / size
	for first := int64(0); first < n; first += per {
		m := min(per, n-first)
		for i := range m {
			src(first+i, chunk[i*size:(i+1)*size])
		}
		if err := buf.Write(ctx, first*size, chunk[:m*size]); err != nil {
			return err
		}
	}
	return nil
}

// readAll reads the first n bytes of buf.
func readAll(ctx context.Context, buf hal.Buffer, n int64) ([]byte, error) {
	out := make([]byte, n)
	for first := int64(0); first < n; first += kernels.TransferChunk {
		if err := buf.Read(ctx, first, out[first:min(n, first+kernels.TransferChunk)]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runReference runs the reference candidate once and keeps its outputs,
// then poisons the outputs again, so that a candidate that writes nothing
// cannot pass on what the reference left.
func (p *manifestProblem) runReference(ctx context.Context, prob kernels.Problem, info hal.DeviceInfo) (err error) {
	op := p.op
	if op.ref < 0 {
		return nil
	}
	c := op.cands[op.ref]
	cannot := func(err error) error {
		return status.Wrapf(err, status.FailedPrecondition, "kernels: the reference candidate %q cannot run, so no candidate can be verified", c.Name)
	}
	if err := p.planErrs[op.ref]; err != nil {
		return cannot(err)
	}
	if err := c.Supported(info); err != nil {
		return cannot(err)
	}
	desc := c.Executable()
	desc.Label = op.name + "/" + c.Name + " (reference)"
	exe, err := p.dev.CreateExecutable(desc)
	if err != nil {
		return status.Annotatef(err, "kernels: building the reference candidate %q", c.Name)
	}
	err = kernels.Run(ctx, p.dev, prob, exe, op.ref)
	if rerr := exe.Release(); err == nil {
		err = rerr
	}
	if err != nil {
		return status.Annotatef(err, "kernels: running the reference candidate %q", c.Name)
	}
	for i, b := range op.bufs {
		if !b.checked() {
			continue
		}
		if p.want[i], err = readAll(ctx, p.bufs[i], p.lens[i]*int64(b.typ.size)); err != nil {
			return status.Annotatef(err, "kernels: reading the reference's %s", b.name)
		}
	}
	return kernels.Execute(ctx, p.dev, func(cb hal.CommandBuffer) error { return kernels.RecordPoison(cb, p) })
}

func (b *manifestBuffer) checked() bool {
	return b.check && (b.role == roleOutput || b.role == roleInOut)
}

func (p *manifestProblem) Size() kernels.Size { return p.size }
func (p *manifestProblem) Bytes() float64     { return p.bytes }
func (p *manifestProblem) Flops() float64     { return p.flops }
func (p *manifestProblem) Buffers() []kernels.Operand {
	return append([]kernels.Operand(nil), p.listed...)
}

func (p *manifestProblem) candidate(cand int) error {
	if cand < 0 || cand >= len(p.op.cands) {
		return status.Newf(status.InvalidArgument, "kernels: %s: candidate %d out of range [0, %d)", p.op.name, cand, len(p.op.cands))
	}
	return p.planErrs[cand]
}

// Record records the candidate's dispatches, with a barrier between
// each. Dispatches that use another pipeline than the first build it the
// first time they are recorded and keep it until Release.
func (p *manifestProblem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	if err := p.candidate(cand); err != nil {
		return err
	}
	first := p.op.runs[cand].dispatches[0].key
	for k, st := range p.plans[cand] {
		if k > 0 {
			if err := cb.Barrier(); err != nil {
				return err
			}
		}
		x := exe
		if st.d.key != first {
			var err error
			if x, err = p.executable(st.d); err != nil {
				return err
			}
		}
		err := cb.Dispatch(hal.Dispatch{Executable: x, Bindings: st.bindings, PushConstants: st.push, Groups: st.groups})
		if err != nil {
			return status.Annotatef(err, "kernels: %s", st.d.desc.Label)
		}
	}
	return nil
}

func (p *manifestProblem) executable(d *manifestDispatch) (hal.Executable, error) {
	if x, ok := p.exes[d.key]; ok {
		return x, nil
	}
	desc := d.desc
	desc.Label = p.op.name + "/" + desc.Label
	x, err := p.dev.CreateExecutable(desc)
	if err != nil {
		return nil, status.Annotatef(err, "kernels: building %s", desc.Label)
	}
	p.exes[d.key] = x
	return x, nil
}

// RecordReset copies the initial contents of the inout buffers back.
func (p resettingProblem) RecordReset(cb hal.CommandBuffer, cand int) error {
	for i, b := range p.initial {
		if b == nil {
			continue
		}
		if err := cb.Copy(b, 0, p.bufs[i], 0, b.Size()); err != nil {
			return status.Annotatef(err, "kernels: resetting %s", p.op.bufs[i].name)
		}
	}
	return nil
}

// Verify compares every checked output of the candidate with the
// reference's: integers exactly, floats within the tolerance.
func (p *manifestProblem) Verify(ctx context.Context, cand int) error {
	if err := p.candidate(cand); err != nil {
		return err
	}
	op := p.op
	if op.ref < 0 {
		return nil
	}
	m := kernels.Mismatches{What: op.name + "/" + op.cands[cand].Name}
	var checked int64
	for i, b := range op.bufs {
		if !b.checked() {
			continue
		}
		got, err := readAll(ctx, p.bufs[i], p.lens[i]*int64(b.typ.size))
		if err != nil {
			return status.Annotatef(err, "kernels: reading %s", b.name)
		}
		compareElements(&m, b, got, p.want[i])
		checked += p.lens[i]
	}
	return m.Err(checked)
}

// compareElements adds to m every element of got that differs from want.
func compareElements(m *kernels.Mismatches, b *manifestBuffer, got, want []byte) {
	size := b.typ.size
	for i := 0; i+size <= len(got); i += size {
		g, w := got[i:i+size], want[i:i+size]
		if bytes.Equal(g, w) {
			continue
		}
		idx := i / size
		if b.typ.kind != floatKind {
			m.Add("%s[%d]: got %s, want %s (integers are compared exactly)", b.name, idx, b.typ.formatInt(g), b.typ.formatInt(w))
			continue
		}
		gf, wf := b.typ.decodeFloat(g), b.typ.decodeFloat(w)
		if math.IsNaN(gf) && math.IsNaN(wf) {
			continue
		}
		if tol := b.tol.of(wf); !(math.Abs(gf-wf) <= tol) {
			m.Add("%s[%d]: got %.9g, want %.9g (|difference| %.3g > tolerance %.3g)", b.name, idx, gf, wf, math.Abs(gf-wf), tol)
		}
	}
}

// Release frees the buffers and the pipelines Record built.
func (p *manifestProblem) Release() error {
	var errs []error
	for _, list := range [][]hal.Buffer{p.bufs, p.initial} {
		for i, b := range list {
			if b != nil {
				errs = append(errs, b.Release())
				list[i] = nil
			}
		}
	}
	for k, x := range p.exes {
		errs = append(errs, x.Release())
		delete(p.exes, k)
	}
	p.listed = nil
	return status.Join(errs...)
}
