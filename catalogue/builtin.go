package catalogue

import (
	"fmt"
	"slices"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/shaders"
	"github.com/vkbench/vkbench/status"
)

// builtins are the built-in operations, built once: their candidates embed
// SPIR-V from package shaders.
var builtins = []kernels.Operation{
	newCopy(),
	newTriad(),
	newReduce(),
	newTranspose(),
	newGEMM(),
	newGEMMF16(),
	newGEMMBF16(),
	newPeak(peakF32),
	newPeak(peakF16),
	newPeak(peakI32),
	newCoopmatPeak(peakCoopmatF16),
	newCoopmatPeak(peakCoopmatF16Acc),
	newCoopmatPeak(peakCoopmatS8),
	newCoopmatPeak(peakCoopmatBF16),
}

// Builtin returns the built-in operations, in the order of the package
// doc's list.
func Builtin() []kernels.Operation {
	return append([]kernels.Operation(nil), builtins...)
}

// Lookup returns the built-in operation called name, or NotFound.
func Lookup(name string) (kernels.Operation, error) {
	if i := slices.IndexFunc(builtins, func(op kernels.Operation) bool { return op.Name() == name }); i >= 0 {
		return builtins[i], nil
	}
	return nil, status.Newf(status.NotFound, "catalogue: no operation %q (built in: %v)", name, par.Map(builtins, kernels.Operation.Name))
}

// opInfo is what a built-in operation says of itself, and the methods of
// Operation that only report it, and what its flops run on
// (kernels.ArithmeticOf).
type opInfo struct {
	name, summary string
	dtype         kernels.DType
	dims          []string
	cands         []kernels.Candidate
	arithmetic    kernels.Arithmetic
}

func (o *opInfo) Name() string                   { return o.name }
func (o *opInfo) Summary() string                { return o.summary }
func (o *opInfo) DType() kernels.DType           { return o.dtype }
func (o *opInfo) Arithmetic() kernels.Arithmetic { return o.arithmetic }

// Dims and Candidates return copies, so that a caller who edits them
// (a candidate's Params, its Constants) changes nothing here. The SPIR-V
// bytes stay shared: they are read-only.
func (o *opInfo) Dims() []string { return slices.Clone(o.dims) }

func (o *opInfo) Candidates() []kernels.Candidate { return par.Map(o.cands, kernels.Candidate.Clone) }

// candidate builds a built-in candidate from a kernel of package shaders.
// constants are the values of specialization constants 0, 1, 2, ... in
// order: every built-in kernel numbers its constants from 0, workgroup
// size first.
func candidate(shader, name string, bindings, push int, wg [3]uint32, params map[string]int, req kernels.Requirements, constants ...uint32) kernels.Candidate {
	c := kernels.Candidate{
		Name:             name,
		Shader:           shader,
		SPIRV:            shaders.MustGet(shader),
		EntryPoint:       "main",
		Bindings:         bindings,
		PushConstantSize: push,
		WorkgroupSize:    wg,
		Params:           params,
		Requires:         req,
	}
	for i, v := range constants {
		c.Constants = append(c.Constants, hal.Constant{ID: uint32(i), Value: v})
	}
	return c
}

// variant is c with param name set to v, as its specialization constant
// id, and suffix added to its name.
func variant(c kernels.Candidate, suffix, name string, id, v uint32) kernels.Candidate {
	c.Name += suffix
	c.Params[name] = int(v)
	c.Constants = append(c.Constants, hal.Constant{ID: id, Value: v})
	return c
}

// pick returns the size of info's class of device (ClassOf) among sizes,
// halved while buffers of it, each of bytes(n), do not fit (Fits).
func pick(info hal.DeviceInfo, sizes [3]int64, buffers int, bytes func(n int64) int64) int64 {
	n := sizes[kernels.ClassOf(info)]
	for n > 1024 && !kernels.Fits(info, slices.Repeat([]int64{bytes(n)}, buffers)...) {
		n /= 2
	}
	return n
}

// streamSize is the default size of an operation of buffers vectors of
// N words (copy, triad, reduce): 2²⁸ on a discrete GPU, 2²⁵ on an
// integrated one and 2²⁰ on a CPU.
func streamSize(info hal.DeviceInfo, buffers int) kernels.Size {
	return kernels.SizeOf(int(pick(info, [3]int64{1 << 20, 1 << 25, 1 << 28}, buffers, func(n int64) int64 { return 4 * n })))
}

func param(c kernels.Candidate, name string) uint64 {
	v, ok := c.Params[name]
	if !ok {
		panic(fmt.Sprintf("catalogue: candidate %s has no param %s", c.Name, name))
	}
	return uint64(v)
}
