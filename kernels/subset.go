package kernels

import (
	"context"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// Subset returns op with only the candidates that keep accepts, in their
// order; its problems are op's, with candidate indices into the subset,
// and it is an OperationSizer where op is. It returns op itself when keep
// accepts every candidate, and NotFound when it accepts none. A subset's
// digest is its own, so a tune cache keeps its answers apart from the
// whole operation's.
func Subset(op Operation, keep func(Candidate) bool) (Operation, error) {
	all := op.Candidates()
	var index []int
	for i, c := range all {
		if keep(c) {
			index = append(index, i)
		}
	}
	switch len(index) {
	case 0:
		return nil, status.Newf(status.NotFound, "kernels: %s: no candidate is selected (of %d)", op.Name(), len(all))
	case len(all):
		return op, nil
	}
	sub := &subsetOp{Operation: op, index: index}
	if s, ok := op.(OperationSizer); ok {
		return &sizingSubset{sub, s}, nil
	}
	return sub, nil
}

// subsetOp is an Operation with some of its candidates.
type subsetOp struct {
	Operation
	index []int // candidate i of the subset is candidate index[i] of the operation
}

func (s *subsetOp) Verifies() bool { return Verifies(s.Operation) }

// Arithmetic is the operation's: a subset's flops run where its
// operation's do, and its percent of peak is of that rate.
func (s *subsetOp) Arithmetic() Arithmetic { return ArithmeticOf(s.Operation) }

func (s *subsetOp) Candidates() []Candidate { return picked(s.Operation.Candidates(), s.index) }

// picked returns all[j] for each j of index, in index's order.
func picked[T any](all []T, index []int) []T {
	out := make([]T, len(index))
	for i, j := range index {
		out[i] = all[j]
	}
	return out
}

func (s *subsetOp) Prepare(ctx context.Context, dev hal.Device, size Size, seed uint64) (Problem, error) {
	p, err := s.Operation.Prepare(ctx, dev, size, seed)
	if err != nil {
		return nil, err
	}
	sp := subsetProblem{Problem: p, name: s.Name(), index: s.index, cands: s.Candidates()}
	if r, ok := p.(Resetter); ok {
		return resettingSubset{sp, r}, nil
	}
	return sp, nil
}

// sizingSubset is a subsetOp whose operation is an OperationSizer: a
// subset of one that is not claims no sizes.
type sizingSubset struct {
	*subsetOp
	sizer OperationSizer
}

var _ OperationSizer = (*sizingSubset)(nil)

// CandidatesAt is the operation's CandidatesAt of the subset's candidates.
func (s *sizingSubset) CandidatesAt(size Size, info hal.DeviceInfo) ([]Candidate, []error) {
	all, errs := s.sizer.CandidatesAt(size, info)
	errs = append(errs, make([]error, len(all)-len(errs))...) // those left off are nil
	return picked(all, s.index), picked(errs, s.index)
}

// PipelinesAt is the operation's, those of the candidates left out among
// them: OperationSizer does not say which candidate builds which.
func (s *sizingSubset) PipelinesAt(size Size, info hal.DeviceInfo) []hal.ExecutableDesc {
	return s.sizer.PipelinesAt(size, info)
}

// subsetProblem maps a subset's candidate indices to its operation's.
type subsetProblem struct {
	Problem
	name  string // the operation's
	index []int
	cands []Candidate // the subset's
}

// candidate returns the operation's index of the subset's candidate i.
func (p subsetProblem) candidate(i int) (int, error) {
	if err := CheckCandidate(p.name, i, len(p.index)); err != nil {
		return 0, err
	}
	return p.index[i], nil
}

// as calls f with the operation's index of the subset's candidate cand.
func (p subsetProblem) as(cand int, f func(j int) error) error {
	j, err := p.candidate(cand)
	if err != nil {
		return err
	}
	return f(j)
}

func (p subsetProblem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	return p.as(cand, func(j int) error { return p.Problem.Record(cb, exe, j) })
}

func (p subsetProblem) Verify(ctx context.Context, cand int) error {
	return p.as(cand, func(j int) error { return p.Problem.Verify(ctx, j) })
}

// Refuse is the operation's problem's refusal of the subset's cand, where
// it refuses candidates (Refuser).
func (p subsetProblem) Refuse(cand int) error {
	return p.as(cand, func(j int) error {
		if r, ok := p.Problem.(Refuser); ok {
			return r.Refuse(j)
		}
		return nil
	})
}

// SizedCandidate is the operation's problem's, where it is a Sizer, else
// the candidate.
func (p subsetProblem) SizedCandidate(cand int) (Candidate, error) {
	j, err := p.candidate(cand)
	if err != nil {
		return Candidate{}, err
	}
	if s, ok := p.Problem.(Sizer); ok {
		return s.SizedCandidate(j)
	}
	return p.cands[cand], nil
}

// CandidateWork is the operation's problem's, where it is a
// CandidateWorker, else Bytes and Flops.
func (p subsetProblem) CandidateWork(cand int) (bytes, flops float64) {
	j, err := p.candidate(cand)
	if err != nil {
		return 0, 0
	}
	if w, ok := p.Problem.(CandidateWorker); ok {
		return w.CandidateWork(j)
	}
	return p.Bytes(), p.Flops()
}

// resettingSubset is a subsetProblem whose problem is a Resetter.
type resettingSubset struct {
	subsetProblem
	r Resetter
}

func (p resettingSubset) RecordReset(cb hal.CommandBuffer, cand int) error {
	return p.as(cand, func(j int) error { return p.r.RecordReset(cb, j) })
}
