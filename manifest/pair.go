package manifest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Pair returns an operation that measures two versions of a manifest
// operation side by side: old and new, from two manifests (a kernel before
// and after a change), with the same name and dimensions. Its candidates
// come in pairs, for each of names (candidates both have), old's then
// new's: candidate 2i is old's names[i], named "old:NAME", and 2i+1 new's,
// "new:NAME". A measurement of it therefore samples both in the same
// shuffled passes, so that whatever drifts hits both alike.
//
// Its problem prepares old's and new's with the same seed, so both compute
// on the same inputs, and verifies each candidate as its own operation
// does; new's, in addition, against what old's computed on those inputs:
// every checked output buffer (which the two must have alike) within new's
// tolerance, integers exactly. An operation with "verify": "none" checks
// neither. Sizes, counts and default sizes are old's.
func Pair(old, new kernels.Operation, names []string) (kernels.Operation, error) {
	o, ok1 := old.(*manifestOp)
	n, ok2 := new.(*manifestOp)
	if !ok1 || !ok2 {
		return nil, status.New(status.InvalidArgument, "manifest: Pair takes operations of manifests")
	}
	if o.name != n.name {
		return nil, status.Newf(status.InvalidArgument, "manifest: Pair of %s and %s: the names differ", o.name, n.name)
	}
	if !slices.Equal(o.dims, n.dims) {
		return nil, status.Newf(status.InvalidArgument, "manifest: %s: old's dimensions are %s, new's %s", o.name, strings.Join(o.dims, ", "), strings.Join(n.dims, ", "))
	}
	// New's results are compared with old's in the output buffers both
	// check, of the same types.
	outs := func(op *manifestOp) []string {
		return par.Map(op.checkedBuffers(), func(i int) string { return op.bufs[i].name + " " + op.bufs[i].typ.name })
	}
	if a, b := outs(o), outs(n); !slices.Equal(a, b) {
		return nil, status.Newf(status.InvalidArgument, "manifest: %s: old checks the outputs [%s], new [%s]; their results cannot be compared", o.name, strings.Join(a, ", "), strings.Join(b, ", "))
	}
	p := &pairOp{old: o, new: n}
	for _, name := range names {
		oi := slices.IndexFunc(o.cands, func(c kernels.Candidate) bool { return c.Name == name })
		ni := slices.IndexFunc(n.cands, func(c kernels.Candidate) bool { return c.Name == name })
		if oi < 0 || ni < 0 {
			return nil, status.Newf(status.NotFound, "manifest: %s: candidate %q is not in both versions", o.name, name)
		}
		oc, nc := o.cands[oi], n.cands[ni]
		oc.Name, nc.Name = "old:"+name, "new:"+name
		p.oldIdx, p.newIdx = append(p.oldIdx, oi), append(p.newIdx, ni)
		p.cands = append(p.cands, oc, nc)
	}
	if len(p.cands) == 0 {
		return nil, status.Newf(status.NotFound, "manifest: %s: no candidate to pair", o.name)
	}
	return p, nil
}

// pairOp is the kernels.Operation Pair returns.
type pairOp struct {
	old, new       *manifestOp
	oldIdx, newIdx []int // pair i is old's candidate oldIdx[i] and new's newIdx[i]
	cands          []kernels.Candidate
	// prepared counts the problems prepared: they alternate which version
	// allocates its buffers first, so that neither always gets the memory
	// a first allocation gets.
	prepared atomic.Uint64
}

func (p *pairOp) Name() string                                 { return p.old.name }
func (p *pairOp) Summary() string                              { return p.old.summary + " (old and new)" }
func (p *pairOp) DType() kernels.DType                         { return p.old.dtype }
func (p *pairOp) Dims() []string                               { return slices.Clone(p.old.dims) }
func (p *pairOp) DefaultSize(info hal.DeviceInfo) kernels.Size { return p.old.DefaultSize(info) }
func (p *pairOp) Candidates() []kernels.Candidate              { return par.Map(p.cands, kernels.Candidate.Clone) }

// Verifies is false when either version checks nothing.
func (p *pairOp) Verifies() bool { return p.old.Verifies() && p.new.Verifies() }

var _ kernels.OperationSizer = (*pairOp)(nil)

// CandidatesAt is each version's candidate as a problem of size prepared
// on the device info describes runs it, under the pair's name
// (kernels.OperationSizer), as the pair's problem's SizedCandidate is.
func (p *pairOp) CandidatesAt(size kernels.Size, info hal.DeviceInfo) ([]kernels.Candidate, []error) {
	olds, oldErrs := p.old.CandidatesAt(size, info)
	news, newErrs := p.new.CandidatesAt(size, info)
	cands, errs := make([]kernels.Candidate, len(p.cands)), make([]error, len(p.cands))
	for i := range p.oldIdx {
		cands[2*i], errs[2*i] = olds[p.oldIdx[i]], oldErrs[p.oldIdx[i]]
		cands[2*i+1], errs[2*i+1] = news[p.newIdx[i]], newErrs[p.newIdx[i]]
		cands[2*i].Name, cands[2*i+1].Name = p.cands[2*i].Name, p.cands[2*i+1].Name
	}
	return cands, errs
}

// PipelinesAt is old's and new's (kernels.OperationSizer): those of their
// candidates left unpaired among them.
func (p *pairOp) PipelinesAt(size kernels.Size, info hal.DeviceInfo) []hal.ExecutableDesc {
	return append(p.old.PipelinesAt(size, info), p.new.PipelinesAt(size, info)...)
}

func (p *pairOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	first, second, names := p.old, p.new, [2]string{"old", "new"}
	if p.prepared.Add(1)%2 == 0 {
		first, second, names = p.new, p.old, [2]string{"new", "old"}
	}
	a, err := first.prepare(ctx, dev, size, seed)
	if err != nil {
		return nil, status.Annotate(err, "manifest: preparing "+names[0])
	}
	b, err := second.prepare(ctx, dev, size, seed)
	if err != nil {
		return nil, status.Join(status.Annotate(err, "manifest: preparing "+names[1]), a.Release())
	}
	pp := &pairProblem{op: p, old: a, new: b, wantPair: -1}
	if first == p.new {
		pp.old, pp.new = b, a
	}
	if p.old.resets() || p.new.resets() {
		return resettingPair{pp}, nil
	}
	return pp, nil
}

// pairProblem is the problem of a pairOp.
type pairProblem struct {
	op       *pairOp
	old, new *manifestProblem
	// want holds what old's candidate of pair wantPair computed, by
	// checked buffer in order, for new's of the same pair to be compared
	// with.
	want     [][]byte
	wantPair int
}

// resettingPair is a pairProblem one of whose versions is a Resetter.
type resettingPair struct{ *pairProblem }

var (
	_ kernels.Problem         = (*pairProblem)(nil)
	_ kernels.Resetter        = resettingPair{}
	_ kernels.CandidateWorker = (*pairProblem)(nil)
	_ kernels.Sizer           = (*pairProblem)(nil)
)

// side returns the problem and its candidate index for candidate cand.
func (p *pairProblem) side(cand int) (*manifestProblem, int, error) {
	if err := kernels.CheckCandidate(p.op.Name(), cand, len(p.op.cands)); err != nil {
		return nil, 0, err
	}
	if cand%2 == 0 {
		return p.old, p.op.oldIdx[cand/2], nil
	}
	return p.new, p.op.newIdx[cand/2], nil
}

func (p *pairProblem) Size() kernels.Size { return p.old.Size() }
func (p *pairProblem) Bytes() float64     { return p.old.Bytes() }
func (p *pairProblem) Flops() float64     { return p.old.Flops() }

// CandidateWork is the work of the version's candidate that candidate cand
// is: old's and new's may differ.
func (p *pairProblem) CandidateWork(cand int) (bytes, flops float64) {
	side, i, err := p.side(cand)
	if err != nil {
		return 0, 0
	}
	return side.CandidateWork(i)
}

func (p *pairProblem) Buffers() []kernels.Operand {
	return append(p.old.Buffers(), p.new.Buffers()...)
}

// SizedCandidate is the version's candidate at the problem's size, under
// the pair's name.
func (p *pairProblem) SizedCandidate(cand int) (kernels.Candidate, error) {
	side, i, err := p.side(cand)
	if err != nil {
		return kernels.Candidate{}, err
	}
	c, err := side.SizedCandidate(i)
	c.Name = p.op.cands[cand].Name
	return c, err
}

func (p *pairProblem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	side, i, err := p.side(cand)
	if err != nil {
		return err
	}
	return side.Record(cb, exe, i)
}

// RecordReset resets the version's candidate that candidate cand is, as
// its own problem does (nothing, where the version has nothing to reset).
func (p resettingPair) RecordReset(cb hal.CommandBuffer, cand int) error {
	side, i, err := p.side(cand)
	if err != nil {
		return err
	}
	return resettingProblem{side}.RecordReset(cb, i)
}

// Verify verifies old's candidates as old does, keeping what they
// computed; new's as new does, and against what old's of the same pair
// computed.
func (p *pairProblem) Verify(ctx context.Context, cand int) error {
	side, i, err := p.side(cand)
	if err != nil {
		return err
	}
	if err := side.Verify(ctx, i); err != nil {
		return err
	}
	if !p.op.Verifies() {
		return nil
	}
	pair := cand / 2
	if cand%2 == 0 {
		p.want, p.wantPair = nil, -1
		for _, k := range p.op.old.checkedBuffers() {
			b := p.op.old.bufs[k]
			data, err := readRange(ctx, p.old.bufs[k], 0, p.old.lens[k]*int64(b.typ.size))
			if err != nil {
				return status.Annotatef(err, "manifest: reading old's %s", b.name)
			}
			p.want = append(p.want, data)
		}
		p.wantPair = pair
		return nil
	}
	if p.wantPair != pair {
		return status.Newf(status.FailedPrecondition, "manifest: %s: old's %s computed nothing to compare new's with", p.op.Name(), p.op.cands[cand-1].Name)
	}
	return p.compareWithOld(ctx, cand)
}

// compareWithOld compares new's checked outputs with old's, buffer by
// buffer in the order both list them.
func (p *pairProblem) compareWithOld(ctx context.Context, cand int) error {
	m := kernels.Mismatches{What: fmt.Sprintf("%s/%s against %s", p.op.Name(), p.op.cands[cand].Name, p.op.cands[cand-1].Name)}
	var checked int64
	for j, k := range p.op.new.checkedBuffers() {
		b := p.op.new.bufs[k]
		got, err := readRange(ctx, p.new.bufs[k], 0, p.new.lens[k]*int64(b.typ.size))
		if err != nil {
			return status.Annotatef(err, "manifest: reading new's %s", b.name)
		}
		want := p.want[j]
		if len(got) != len(want) {
			m.Add(func() string {
				return fmt.Sprintf("%s: new has %d elements, old %d", b.name, len(got)/b.typ.size, len(want)/b.typ.size)
			})
			continue
		}
		compareElements(&m, b, got, want, 0)
		checked += p.new.lens[k]
	}
	return m.Err(checked)
}

func (p *pairProblem) Release() error {
	return status.Join(p.old.Release(), p.new.Release())
}
