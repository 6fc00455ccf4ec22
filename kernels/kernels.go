package kernels

import (
	"context"
	"slices"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/enum"
	"github.com/vkbench/vkbench/status"
)

// Operation is one computation vkbench knows how to run and check, such
// as "copy" or "gemm" (package catalogue) or a manifest's, with the
// candidate kernels that compute it.
// Implementations are safe for concurrent use; the Problems they prepare
// are not.
type Operation interface {
	// Name is the operation's name: lower case, digits and '-', such as
	// "copy" or "peak-fma-f32". It is unique among the operations offered
	// together.
	Name() string
	// Summary is a one-line description for people.
	Summary() string
	// DType is the element type of the operation's data.
	DType() DType
	// Dims names the dimensions of a Size, in order: ["N"] for a vector
	// operation, ["M", "N", "K"] for a matrix product.
	Dims() []string
	// DefaultSize is a size worth measuring on the device: megabytes on a
	// CPU such as lavapipe, enough to fill a large GPU on a GPU, within
	// the device's memory and buffer limits (ClassOf, Fits).
	DefaultSize(info hal.DeviceInfo) Size
	// Candidates are the kernels that compute the operation, in a fixed
	// order: an index into this list names a candidate, and the list's
	// Digest identifies it.
	Candidates() []Candidate
	// Prepare allocates the buffers of a problem of the given size on dev
	// and fills its inputs with random data drawn from seed, so that the
	// same seed gives the same problem. A size that does not fit the
	// operation (wrong number of dimensions, zero, past the kernels' or
	// the device's limits) is InvalidArgument or OutOfRange.
	Prepare(ctx context.Context, dev hal.Device, size Size, seed uint64) (Problem, error)
}

// VerifyReporter is implemented by operations that may not check their
// candidates' results (a manifest's "verify": "none").
type VerifyReporter interface {
	Verifies() bool
}

// Verifies reports whether op checks its candidates' results (see
// VerifyReporter): a result of one that does not is measured, not verified.
func Verifies(op Operation) bool {
	if v, ok := op.(VerifyReporter); ok {
		return v.Verifies()
	}
	return true
}

// Problem is an operation's data of one size on one device: the buffers,
// the work one run records, and the check of the results against a CPU
// reference. It is used by one goroutine at a time.
type Problem interface {
	// Size is the size the problem was prepared with.
	Size() Size
	// Bytes is the bytes one run must move to or from memory at least
	// (each input read once, each output written once): the numerator of
	// GB/s, whatever the candidate (unless a CandidateWorker).
	Bytes() float64
	// Flops is the arithmetic operations one run does (a fused
	// multiply-add counts 2): the numerator of FLOP/s, as Bytes is of GB/s;
	// 0 for operations that only move data.
	Flops() float64
	// Buffers lists the problem's buffers, inputs first.
	Buffers() []Operand
	// Record records one complete run of candidate cand (an index into
	// the operation's Candidates) into cb, using exe, built from that
	// candidate's Executable() (for a Sizer, see CandidateAt). A run may be
	// several dispatches with barriers between them, but none before its
	// first or after its last: a caller puts cb.Barrier() between runs.
	// Runs are idempotent (see Resetter for problems whose are not).
	Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error
	// Verify reads the outputs back and compares them with the CPU
	// reference, within the tolerance the operation documents. A wrong
	// result matches ErrWrongResult and says where: index, value got,
	// value wanted, tolerance. Calls of one problem must not overlap.
	Verify(ctx context.Context, cand int) error
	// Release frees the buffers. The problem must not be in use by the
	// GPU.
	Release() error
}

// Resetter is implemented by problems whose runs are not idempotent
// (atomics that accumulate into an output, say). The caller records
// RecordReset, then cb.Barrier(), before every run; a measurement keeps it
// outside the timed region where it can. No built-in operation needs it.
type Resetter interface {
	RecordReset(cb hal.CommandBuffer, cand int) error
}

// Refuser is implemented by problems that can tell, before a candidate's
// pipeline is built, that they will not run it: Refuse returns the
// UNIMPLEMENTED error Record would return for candidate cand (one that
// does not apply at their size, Candidate.Applies), nil for one they run.
type Refuser interface {
	Refuse(cand int) error
}

// Sizer is implemented by problems whose candidates' pipelines depend on
// their size (a manifest's constants worked out from its dims), where the
// operation's Candidates are those of a default size. SizedCandidate
// returns candidate cand as the problem runs it, or the error Record
// would return for it there. A caller that asks (CandidateAt) gives Record
// that candidate's Executable; one that does not, the operation's
// candidate's, which the problem uses only where it is the pipeline.
type Sizer interface {
	SizedCandidate(cand int) (Candidate, error)
}

// CandidateAt returns candidate cand of p's operation, c, as p runs it
// (Sizer): what to build for Record; and why not where the device cannot
// run it (Candidate.Supported) or p refuses it (Refuser).
func CandidateAt(p Problem, c Candidate, cand int, info hal.DeviceInfo) (Candidate, error) {
	if s, ok := p.(Sizer); ok {
		sized, err := s.SizedCandidate(cand)
		if err != nil {
			return c, err
		}
		c = sized
	}
	if err := c.Supported(info); err != nil {
		return c, err
	}
	if r, ok := p.(Refuser); ok {
		return c, r.Refuse(cand)
	}
	return c, nil
}

// CheckCandidate returns an error with code InvalidArgument, naming
// operation op, unless cand is the index of one of its n candidates: what
// a Problem's methods return for any other.
func CheckCandidate(op string, cand, n int) error {
	if cand < 0 || cand >= n {
		return status.Newf(status.InvalidArgument, "kernels: %s: candidate %d out of range [0, %d)", op, cand, n)
	}
	return nil
}

// OperationSizer is implemented by operations whose problems are Sizers:
// CandidatesAt works out each candidate as a problem of size on the device
// info describes would run it, or why it cannot (use the function
// CandidatesAt), without a problem; PipelinesAt, the pipelines such a
// problem builds besides (of later dispatches).
type OperationSizer interface {
	CandidatesAt(size Size, info hal.DeviceInfo) ([]Candidate, []error)
	PipelinesAt(size Size, info hal.DeviceInfo) []hal.ExecutableDesc
}

// CandidatesAt returns op's candidates as a problem of size on the device
// info describes runs them (OperationSizer), each with why it cannot
// (the size, or Candidate.Supported), preparing nothing: what Points
// judges, and what to compile for that size.
func CandidatesAt(op Operation, size Size, info hal.DeviceInfo) ([]Candidate, []error) {
	cands, errs := op.Candidates(), []error(nil)
	if s, ok := op.(OperationSizer); ok {
		cands, errs = s.CandidatesAt(size, info)
	}
	errs = append(errs, make([]error, len(cands)-len(errs))...)
	for i, c := range cands {
		if errs[i] == nil {
			errs[i] = c.Supported(info)
		}
	}
	return cands, errs
}

// CandidateWorker is implemented by problems whose work differs between
// candidates (a manifest's "flops": "20*N*LOOP", LOOP a candidate's
// unroll): CandidateWork is candidate cand's bytes and flops of one run,
// in place of Bytes and Flops. No built-in operation needs it.
type CandidateWorker interface {
	CandidateWork(cand int) (bytes, flops float64)
}

// Role says what a problem's buffer is for.
type Role uint8

const (
	// Input buffers are filled by Prepare and only read by runs.
	Input Role = iota
	// Output buffers are written by runs and read by Verify.
	Output
	// Scratch buffers hold intermediate results between a run's
	// dispatches, such as the partial sums of a reduction.
	Scratch
)

var roleNames = [...]string{Input: "input", Output: "output", Scratch: "scratch"}

// String returns "input", "output" or "scratch".
func (r Role) String() string { return enum.Name(r, roleNames[:], "role(%d)") }

// Operand is one of a problem's buffers, described.
type Operand struct {
	hal.Buffer
	// Name is the buffer's name in its operation ("src", "A", ...).
	Name string
	Role Role
	// DType and Len are the type and number of the elements it holds; its
	// Size may be larger.
	DType DType
	Len   int64
}

// DType is the type of an operation's elements.
type DType uint8

// The element types; the zero DType is none.
const (
	// F32 is IEEE 754 binary32.
	F32 DType = iota + 1
	// F16 is IEEE 754 binary16.
	F16
	// I32 is a two's-complement 32-bit integer.
	I32
	// U32 is an unsigned 32-bit integer.
	U32
	// I8 is a two's-complement 8-bit integer.
	I8
	// BF16 is bfloat16: float32's sign, exponent and upper 7 bits of
	// significand.
	BF16
)

var dtypeNames = [...]string{F32: "f32", F16: "f16", I32: "i32", U32: "u32", I8: "i8", BF16: "bf16"}

// String returns the type's short name: "f32", "f16", "i32", "u32", "i8"
// or "bf16".
func (d DType) String() string { return enum.Name(d, dtypeNames[:], "dtype(%d)") }

var dtypeBytes = [...]int{F32: 4, F16: 2, I32: 4, U32: 4, I8: 1, BF16: 2}

// Bytes returns the size of one element.
func (d DType) Bytes() int {
	if int(d) < len(dtypeBytes) {
		return dtypeBytes[d]
	}
	return 0
}

// ParseDType returns the type String names. Anything else is
// InvalidArgument.
func ParseDType(s string) (DType, error) {
	if d := slices.Index(dtypeNames[:], s); d > 0 {
		return DType(d), nil
	}
	return 0, status.Newf(status.InvalidArgument, "kernels: unknown element type %q (want f32, f16, i32, u32, i8 or bf16)", s)
}

// Errors of this package.
var (
	// ErrWrongResult is matched (errors.Is) by the errors of Verify when a
	// candidate's output differs from the reference by more than the
	// tolerance. Its code is FailedPrecondition: the kernel under test is
	// wrong, and running it again will not help until it is fixed. It is
	// a verdict on the kernel, not Internal (vkbench itself broken) nor
	// DataLoss (hal.ErrDeviceLost's code).
	ErrWrongResult = status.New(status.FailedPrecondition, "kernels: wrong result")
	// ErrDeferred is what an OperationSizer's CandidatesAt says of a
	// candidate it can judge only once built (a manifest's GLSL, compiled
	// when a search first needs it): Points keeps it, and CandidateAt
	// judges it. Its code is Deferred.
	ErrDeferred = status.New(status.Deferred, "kernels: judged when built")
)
