package vkbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Op is one computation and the candidate Kernels that compute it, for a
// Tuner to choose among: every candidate takes the same buffers and push
// constants, and Prepare makes the data to measure them on.
//
// An Op is keyed in the tuning cache by its Name, its DType, and the size
// of the problem, one integer per name in Dims; the checksum of its
// candidates goes with every answer, so that changing any candidate makes
// old answers stop applying. An Op must not be changed once in use: a
// Tuner's call with an Op whose fields changed after its first use fails
// (FailedPrecondition), naming the field, so a Space is set before the
// first use. Nor may an Op be copied (go vet warns).
type Op struct {
	// Name names the operation in the cache: lower case, digits and '-'.
	Name string
	// Dims names the dimensions of a size, in order, such as {"N"} or
	// {"M", "N", "K"}; at most 4.
	Dims []string
	// DType is the type of the operation's elements, part of the cache
	// key; F32 if zero.
	DType DType
	// Candidates are the kernels, in a fixed order, that Tuner.Fastest
	// chooses among; none is needed for an Op that is only searched.
	Candidates []Kernel
	// Space, if set, is a family of kernels for Tuner.Search to explore,
	// verified and measured on the same Problems as the Candidates.
	Space *Space
	// Prepare makes a problem of the given size on d for the tuner to
	// measure the candidates on: it allocates the buffers, fills the
	// inputs with data drawn from seed, and says how to dispatch and
	// check. The size is that of the cache key's bucket: it may be larger
	// than the size asked about.
	Prepare func(ctx context.Context, d *Device, size []int, seed uint64) (*Problem, error)

	once sync.Once
	op   *operation
	err  error
}

// Problem is one problem of one size, on the device, for the tuner to run
// every candidate on. The tuner releases its buffers when it is done with
// them.
type Problem struct {
	// Buffers are bound in order at bindings 0, 1, ... of every candidate,
	// so there are as many as each candidate's Bindings; another count,
	// or one smaller than the block a candidate that applies at the size
	// declares there, is an InvalidArgument error naming the candidate.
	Buffers []Binding
	// Outputs are the buffers among Buffers that the candidates write,
	// filled with NaNs before each candidate's checked run, so that a
	// kernel that writes nothing cannot pass on what another left there.
	// One that is not among Buffers is an InvalidArgument error.
	Outputs []Binding
	// Push are the push constants of every candidate, as many bytes as
	// each one's PushConstantSize; nil if none. Another length, or a
	// small integer where a candidate has a float, is refused, as in Run.
	Push []byte
	// Groups returns the workgroups to dispatch for candidate k (whose
	// WorkgroupSize and Bindings are filled in from its module), at least
	// 1 in each of x, y and z.
	Groups func(k Kernel) [3]uint32
	// Check reads the outputs after a candidate's run and returns an error
	// if they are wrong. A candidate that fails its Check can never be the
	// fastest. A nil Check trusts every candidate.
	Check func(ctx context.Context) error
	// Bytes and Flops are how many bytes one run moves and how many
	// arithmetic operations it does, for the GB/s and GFLOP/s of the
	// tuning report; 0 if unknown.
	Bytes, Flops float64
	// Reset lists buffers to fill before every run of every candidate,
	// outside the timed region: for kernels that accumulate into their
	// output (a histogram adds to its bins).
	Reset []Fill
	// Release, if set, is called after the buffers are released, for
	// anything else Prepare made.
	Release func() error
}

// Fill is a buffer to fill, and the 32-bit value to fill it with
// (math.Float32bits for a float; 0 for zeros).
type Fill struct {
	// Buffer is the buffer filled, all of its Len elements.
	Buffer Binding
	// Value is the 32 bits every element is filled with.
	Value uint32
}

// operation checks op once, and then that it has not changed.
func (op *Op) operation() (*operation, error) {
	if op == nil {
		return nil, status.New(status.InvalidArgument, "vkbench: the Op is nil")
	}
	op.once.Do(func() { op.op, op.err = newOperation(op) })
	if op.err != nil {
		return nil, op.err
	}
	if op.op.given.same(op) {
		return op.op, nil
	}
	if what := op.op.given.changed(op); what != "" {
		return nil, status.Newf(status.FailedPrecondition, "vkbench: Op %q: its %s changed after its first use, which fixed them; an Op must not change once in use (make a new Op)", op.op.name, what)
	}
	return op.op, nil
}

// opFields are what an Op's fields were at its first use, to tell a
// change: shallow copies, compared without allocating (a Fastest that
// hits allocates nothing). The SPIR-V is compared by its slice, not its
// bytes, which must not be modified after use.
type opFields struct {
	name    string
	dims    []string
	dtype   DType
	kerns   []Kernel
	prepare uintptr
	space   *Space
}

// same reports whether op is as f says, the usual case, told by
// comparing memory, where changed's walk costs a third of an answer from
// memory per candidate. Memory that differs (padding, the same values
// set again) is left to changed.
func (f *opFields) same(op *Op) bool {
	return len(op.Name) == len(f.name) && unsafe.StringData(op.Name) == unsafe.StringData(f.name) &&
		len(op.Dims) == len(f.dims) && sameMemory(op.Dims, f.dims) &&
		op.DType == f.dtype && codeOf(op.Prepare) == f.prepare && op.Space == f.space &&
		len(op.Candidates) == len(f.kerns) && sameMemory(op.Candidates, f.kerns)
}

// changed names the first field of op that is not as f says, or "".
func (f *opFields) changed(op *Op) string {
	switch {
	case op.Name != f.name:
		return "Name"
	case !slices.Equal(op.Dims, f.dims):
		return "Dims"
	case op.DType != f.dtype:
		return "DType"
	case len(op.Candidates) != len(f.kerns):
		return "Candidates"
	case codeOf(op.Prepare) != f.prepare:
		return "Prepare"
	case op.Space != f.space:
		return "Space"
	}
	for i := range op.Candidates {
		a, b := &op.Candidates[i], &f.kerns[i]
		if a.Name != b.Name || a.EntryPoint != b.EntryPoint || a.WorkgroupSize != b.WorkgroupSize || a.Bindings != b.Bindings ||
			a.PushConstantSize != b.PushConstantSize || a.Requires != b.Requires ||
			a.SubgroupSize != b.SubgroupSize || a.FullSubgroups != b.FullSubgroups ||
			len(a.SPIRV) != len(b.SPIRV) || unsafe.SliceData(a.SPIRV) != unsafe.SliceData(b.SPIRV) ||
			len(a.Sets) != len(b.Sets) || unsafe.SliceData(a.Sets) != unsafe.SliceData(b.Sets) ||
			!sameMap(a.Constants, b.Constants) || !sameMap(a.Params, b.Params) ||
			codeOf(a.Applies) != codeOf(b.Applies) {
			return "Candidates"
		}
	}
	return ""
}

// sameMemory reports whether the elements of a and b, which have the
// same length, are the same bytes.
func sameMemory[T any](a, b []T) bool {
	n := uintptr(len(a)) * unsafe.Sizeof(*new(T))
	return unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(a))), n) == unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// sameMap reports whether a and b are the same map (or both nil): the
// first use keeps the Op's maps themselves, not copies, so what can be
// told is a map replaced by another.
func sameMap[M ~map[K]V, K comparable, V any](a, b M) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

// codeOf is the code a func value runs (0 for nil), as reflect's Pointer
// says: a func value points to a closure whose first word is its code.
func codeOf[F any](f F) uintptr {
	closure := *(*unsafe.Pointer)(unsafe.Pointer(&f))
	if closure == nil {
		return 0
	}
	return *(*uintptr)(closure)
}

// operation is an Op as a kernels.Operation, of copies of its fields.
type operation struct {
	name    string
	dims    []string
	dtype   kernels.DType
	cands   []kernels.Candidate
	kerns   []variant
	prepare func(ctx context.Context, d *Device, size []int, seed uint64) (*Problem, error)
	space   *kernels.Space // nil without a Space
	// given are the Op's fields at its first use.
	given opFields
}

var _ kernels.Operation = (*operation)(nil)

func newOperation(op *Op) (*operation, error) {
	bad := func(format string, args ...any) error {
		return status.Newf(status.InvalidArgument, "vkbench: Op %q: "+format, append([]any{op.Name}, args...)...)
	}
	if !validName(op.Name) {
		return nil, bad("the name must be lower case letters, digits and '-'")
	}
	if len(op.Dims) == 0 || len(op.Dims) > kernels.MaxDims {
		return nil, bad("%d dimensions; want 1 to %d", len(op.Dims), kernels.MaxDims)
	}
	if len(op.Candidates) == 0 && op.Space == nil {
		return nil, bad("no candidates, and no Space")
	}
	if op.Prepare == nil {
		return nil, bad("no Prepare")
	}
	dtype := cmp.Or(op.DType, F32)
	if dtype.kernels() == 0 {
		return nil, bad("unknown DType %d", op.DType)
	}
	o := &operation{name: op.Name, dims: slices.Clone(op.Dims), dtype: dtype.kernels(), prepare: op.Prepare}
	o.given = opFields{name: op.Name, dims: slices.Clone(op.Dims), dtype: op.DType, kerns: slices.Clone(op.Candidates),
		prepare: codeOf(op.Prepare), space: op.Space}
	seen := map[string]bool{}
	for _, k := range op.Candidates {
		if k.Name == "" || seen[k.Name] {
			return nil, bad("candidate names must be unique and not empty: %q", k.Name)
		}
		seen[k.Name] = true
		c, v, err := k.candidate()
		if err != nil {
			return nil, err
		}
		o.cands = append(o.cands, c)
		o.kerns = append(o.kerns, v)
	}
	if op.Space != nil {
		var err error
		if o.space, err = o.spaceOf(op.Space); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func validName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-')
	})
}

func (o *operation) Name() string                    { return o.name }
func (o *operation) Summary() string                 { return o.name }
func (o *operation) DType() kernels.DType            { return o.dtype }
func (o *operation) Dims() []string                  { return slices.Clone(o.dims) }
func (o *operation) Candidates() []kernels.Candidate { return slices.Clone(o.cands) }

// DefaultSize is for the tools that run an operation without a size: 1024
// in each dimension.
func (o *operation) DefaultSize(hal.DeviceInfo) kernels.Size {
	return kernels.SizeOf(slices.Repeat([]int{1024}, len(o.dims))...)
}

// tunerDevice is the hal.Device a Tuner measures on, with the way back to
// the Device the caller opened, for Prepare.
type tunerDevice struct {
	hal.Device
	owner *Device
}

func (o *operation) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	td, ok := dev.(*tunerDevice)
	switch {
	case !ok: // only its Tuner's autotune.Tuner, which measures on a tunerDevice, has it
		return nil, status.Newf(status.Internal, "vkbench: Op %q: Prepare on a device that is not its Tuner's", o.name)
	case size.Len() != len(o.dims):
		return nil, status.Newf(status.InvalidArgument, "vkbench: Op %q: size %v for dimensions %v", o.name, size, o.dims)
	}
	p, err := o.prepare(ctx, td.owner, size.Extents(), seed)
	if p == nil && err == nil {
		err = status.New(status.InvalidArgument, "returned no Problem and no error")
	}
	if err != nil {
		return nil, status.Annotatef(err, "vkbench: Op %q: Prepare(%v)", o.name, size)
	}
	pr := &problem{size: size, p: p}
	if err := pr.describe(o); err != nil {
		return nil, status.Join(err, pr.Release())
	}
	if len(p.Reset) > 0 {
		return resettingProblem{pr}, nil
	}
	return pr, nil
}

// resettingProblem is a problem with a Reset.
type resettingProblem struct{ *problem }

var _ kernels.Resetter = resettingProblem{}

func (pr resettingProblem) RecordReset(cb hal.CommandBuffer, cand int) error {
	for _, f := range pr.p.Reset {
		hb, _, n := f.Buffer.binding()
		if err := cb.Fill(hb, 0, 4*int64(n), f.Value); err != nil {
			return status.Annotatef(err, "vkbench: resetting a buffer")
		}
	}
	return nil
}

// problem is a Problem as a kernels.Problem.
type problem struct {
	size   kernels.Size
	p      *Problem
	binds  []hal.Binding
	bufs   []kernels.Operand
	groups [][3]uint32
}

var _ kernels.Problem = (*problem)(nil)

func (pr *problem) describe(o *operation) error {
	p := pr.p
	if p.Groups == nil {
		return status.Newf(status.InvalidArgument, "vkbench: Op %q: the Problem has no Groups", o.name)
	}
	isOutput := map[hal.Buffer]bool{}
	for i, b := range p.Outputs {
		hb, _, _ := bindingOf(b)
		if hb == nil {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: output %d is nil", o.name, i)
		}
		isOutput[hb] = true
	}
	for i, f := range p.Reset {
		if hb, _, _ := bindingOf(f.Buffer); hb == nil {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: reset buffer %d is nil", o.name, i)
		}
	}
	for i, b := range p.Buffers {
		hb, dt, n := bindingOf(b)
		if hb == nil {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: buffer %d is nil (or a Slice, which a Problem cannot take)", o.name, i)
		}
		role := kernels.Input
		if isOutput[hb] {
			role = kernels.Output
		}
		pr.binds = append(pr.binds, hal.Binding{Buffer: hb})
		pr.bufs = append(pr.bufs, kernels.Operand{Buffer: hb, Name: fmt.Sprintf("binding %d", i), Role: role, DType: dt, Len: int64(n)})
	}
	for i, b := range p.Outputs {
		hb, _, _ := bindingOf(b)
		if !slices.ContainsFunc(pr.binds, func(x hal.Binding) bool { return x.Buffer == hb }) {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: output %d is not one of the Problem's Buffers: it would be neither bound nor poisoned", o.name, i)
		}
	}
	for ci, c := range o.cands {
		k := o.kerns[ci]
		if len(pr.bufs) != k.Bindings {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: the Problem at size %v has %d buffers; candidate %q takes %d (its Bindings)", o.name, pr.size, len(pr.bufs), c.Name, k.Bindings)
		}
		if len(p.Push) != k.PushConstantSize {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: the Problem at size %v has %d bytes of push constants; candidate %q takes %d (its PushConstantSize)", o.name, pr.size, len(p.Push), c.Name, k.PushConstantSize)
		}
		if c.Applies != nil && !c.Applies(pr.size) {
			continue
		}
		l := k.layout
		for i, b := range pr.bufs {
			if what := l.tooSmall(i, 4*b.Len); what != "" {
				return status.Newf(status.InvalidArgument, "vkbench: Op %q: the Problem at size %v, for candidate %q: %s (or the candidate's Applies leaves this size out)", o.name, pr.size, c.Name, what)
			}
		}
		if what := l.intAsFloat(p.Push); what != "" {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: the Problem at size %v, for candidate %q: %s", o.name, pr.size, c.Name, what)
		}
	}
	for i, k := range o.kerns {
		g := p.Groups(k.Kernel)
		applies := o.cands[i].Applies == nil || o.cands[i].Applies(pr.size)
		if applies && (g[0] == 0 || g[1] == 0 || g[2] == 0) {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: the Problem's Groups at size %v gives candidate %q %v workgroups; each must be at least 1", o.name, pr.size, k.Name, g)
		}
		pr.groups = append(pr.groups, g)
	}
	return nil
}

func (pr *problem) Size() kernels.Size         { return pr.size }
func (pr *problem) Bytes() float64             { return pr.p.Bytes }
func (pr *problem) Flops() float64             { return pr.p.Flops }
func (pr *problem) Buffers() []kernels.Operand { return slices.Clone(pr.bufs) }

// Record records candidate cand's dispatch; the tuner poisons the
// Outputs, by their Role.
func (pr *problem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	return cb.Dispatch(hal.Dispatch{Executable: exe, Bindings: pr.binds, PushConstants: pr.p.Push, Groups: pr.groups[cand]})
}

func (pr *problem) Verify(ctx context.Context, cand int) error {
	if pr.p.Check == nil {
		return nil
	}
	err := pr.p.Check(ctx)
	// A Check that could not read the outputs says nothing of the
	// candidate; any other error is a wrong result.
	if err == nil || ctx.Err() != nil || errors.Is(err, hal.ErrDeviceLost) || errors.Is(err, kernels.ErrWrongResult) {
		return err
	}
	return fmt.Errorf("%w: %w", kernels.ErrWrongResult, err)
}

func (pr *problem) Release() error {
	var errs []error
	seen := map[Binding]bool{}
	all := slices.Concat(pr.p.Buffers, pr.p.Outputs)
	for _, f := range pr.p.Reset {
		all = append(all, f.Buffer)
	}
	for _, b := range all {
		if b == nil || seen[b] {
			continue
		}
		seen[b] = true
		hb, _, _ := b.binding()
		errs = append(errs, hb.Release())
	}
	if pr.p.Release != nil {
		errs = append(errs, pr.p.Release())
	}
	return status.Join(errs...)
}
