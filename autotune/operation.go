package autotune

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/vkbench/vkbench/hal"
)

// Candidate is one way to compute an operation: a compute pipeline.
type Candidate struct {
	// Name is unique among the operation's candidates.
	Name string
	// Executable builds the candidate's pipeline. Its SPIR-V, entry point
	// and constants (the workgroup size among them) enter the checksum.
	Executable hal.ExecutableDesc
	// WorkgroupSize is recorded in the checksum and the results.
	WorkgroupSize [3]uint32
	// Supported reports whether the device can run the candidate: nil, or
	// an error (code Unimplemented) saying what it lacks.
	Supported func(hal.DeviceInfo) error
}

// Problem is an operation prepared at one size on one device, with its
// inputs in place.
type Problem interface {
	// Record records one run of candidate cand, whose pipeline is exe: one
	// or more dispatches, with barriers between dependent passes. Runs
	// recorded back to back must each compute the whole result.
	Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error
	// Verify reads the output back after a run of cand and compares it
	// with the reference, returning an error that says where it differs.
	Verify(ctx context.Context, cand int) error
	// Bytes and Flops are moved and done by one run.
	Bytes() float64
	Flops() float64
	// Release frees the problem's buffers.
	Release() error
}

// Operation is what the tuner tunes: a set of candidates that compute the
// same thing, and problems to run them on. The tuner keeps per-operation
// state keyed by the Operation value, so implementations must be
// comparable: use pointer types.
type Operation interface {
	// Name and DType name the operation in keys ("gemm", "f32").
	Name() string
	DType() string
	// Candidates lists the candidates, in a fixed order: the tuner answers
	// with an index into it.
	Candidates() []Candidate
	// Prepare allocates a problem of the given shape on dev, its inputs
	// filled from seed.
	Prepare(ctx context.Context, dev hal.Device, shape Shape, seed uint64) (Problem, error)
}

// Checksum identifies a candidate list: names, SPIR-V bytes, entry points,
// specialization constants and workgroup sizes, in order. Change any of
// them and answers tuned under the old list stop applying.
func Checksum(cands []Candidate) string {
	h := sha256.New()
	var buf [8]byte
	num := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	str := func(s string) {
		num(uint64(len(s)))
		h.Write([]byte(s))
	}
	num(uint64(len(cands)))
	for _, c := range cands {
		str(c.Name)
		num(uint64(len(c.Executable.SPIRV)))
		h.Write(c.Executable.SPIRV)
		str(c.Executable.EntryPoint)
		num(uint64(len(c.Executable.Constants)))
		for _, k := range c.Executable.Constants {
			num(uint64(k.ID)<<32 | uint64(k.Value))
		}
		for _, w := range c.WorkgroupSize {
			num(uint64(w))
		}
		num(uint64(c.Executable.Bindings))
		num(uint64(c.Executable.PushConstantSize))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
