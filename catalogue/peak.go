package catalogue

import (
	"context"
	"fmt"
	"math"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
)

// peakOp is one of the arithmetic-peak operations: N independent chains
// x ← x·a + b, each stepped ITERS times, a and b push constants. Every
// invocation carries several chains (ACC accumulators, each LANES chains
// wide) so that the arithmetic pipeline's latency is hidden, and writes
// the sum of its chains so that no step can be dropped. Flops: 2·N·ITERS.
type peakOp struct {
	opInfo // all but the dimensions and the candidates, which newPeak adds
	shader string
	lanes  int // chains per accumulator: 2 for f16vec2
	req    kernels.Requirements
	shapes []peakShape
}

// The peak candidates. The loop's own counting and branching take issue
// slots from the arithmetic: on an H200, 8 accumulators unrolled 8 steps
// (64 FMAs a loop) reached 0.87 of 2·132·128·clock, unrolled 32 steps
// 0.94 (CUDA's own FMA loop: 0.95). More accumulators than 8 did not help.
var peakShapes = []peakShape{{8, 8, 256}, {4, 32, 256}, {8, 16, 256}, {8, 32, 256}, {16, 16, 256}, {16, 16, 128}}

var (
	peakF32 = peakOp{
		opInfo: opInfo{name: "peak-fma-f32", dtype: kernels.F32, summary: "independent fp32 FMA chains: peak fp32 FLOP/s"},
		shader: "peak_fma_f32", lanes: 1, shapes: peakShapes,
	}
	// peakF16 measures what Vulkan code reaches, which on NVIDIA's driver
	// is not the hardware's packed fp16 rate: on an H100 (driver 580)
	// these candidates reached 64 TFLOP/s, fp32's rate, where CUDA's
	// fma.rn.f16x2 reached 125 in the same run, its compiler issuing half
	// of them on the tensor cores' pipe (HFMA2.MMA). Every SPIR-V shape
	// tried did the same: f16vec2 by fma or by multiply and add, f16vec4,
	// scalar float16_t, and f16vec2 kept packed in 32-bit registers
	// (unpackFloat2x16; half the registers and a third less power, the
	// same rate). bench/RESULTS.md, 2026-12-07, has the figures.
	peakF16 = peakOp{
		opInfo: opInfo{name: "peak-fma-f16", dtype: kernels.F16,
			summary: "independent fp16 FMA chains on f16vec2: peak fp16 FLOP/s"},
		shader: "peak_fma_f16", lanes: 2,
		req:    kernels.Requirements{Float16: true},
		shapes: peakShapes[:4],
	}
	peakI32 = peakOp{
		opInfo: opInfo{name: "peak-mad-i32", dtype: kernels.I32, summary: "independent int32 multiply-add chains: peak int32 OP/s"},
		shader: "peak_mad_i32", lanes: 1, shapes: peakShapes[:4],
	}
)

// peakShape is one peak candidate: ACC accumulators per invocation, the
// inner loop unrolled UNROLL steps, workgroups of WG.
type peakShape struct{ acc, unroll, wg uint32 }

func newPeak(k peakOp) *peakOp {
	k.dims = []string{"N", "ITERS"}
	for _, s := range k.shapes {
		k.cands = append(k.cands, candidate(k.shader, fmt.Sprintf("acc%d-unroll%d-wg%d", s.acc, s.unroll, s.wg), 2, 16, [3]uint32{s.wg, 1, 1},
			map[string]int{"WG": int(s.wg), "ACC": int(s.acc), "UNROLL": int(s.unroll), "LANES": k.lanes}, k.req, s.wg, s.acc, s.unroll))
	}
	return &k
}

// DefaultSize is 2²² chains of 2¹⁴ steps (2³⁷ operations, milliseconds on
// an H200) on a discrete GPU, 2²⁰ × 2¹² on an integrated one, and 2¹⁴ ×
// 2¹⁰ on a CPU.
func (op *peakOp) DefaultSize(info hal.DeviceInfo) kernels.Size {
	return [...]kernels.Size{kernels.SmallDevice: kernels.SizeOf(1<<14, 1<<10), kernels.MediumDevice: kernels.SizeOf(1<<20, 1<<12), kernels.LargeDevice: kernels.SizeOf(1<<22, 1<<14)}[kernels.ClassOf(info)]
}

type peakProblem struct {
	*problem
	kind     *peakOp
	n, iters int64
	x0       []int32 // starting values, as integers (converted for floats)
	a, b     int32
	in, out  hal.Buffer
}

func (op *peakOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	return prepare(op, dev, size, func(base *problem) (checker, error) {
		n, iters := int64(size.Dim(0)), int64(size.Dim(1))
		p := &peakProblem{problem: base, kind: op, n: n, iters: iters}
		p.bytes, p.flops = 4*float64(n), 2*float64(n)*float64(iters)
		r := kernels.NewRand(seed, 0)
		p.x0 = make([]int32, n)
		if op.dtype == kernels.I32 {
			// Any a and b: integer arithmetic wraps exactly, and the reference
			// jumps ITERS steps at once (see affinePower).
			for i := range p.x0 {
				p.x0[i] = int32(r.Uint32())
			}
			p.a, p.b = int32(r.Uint32()), int32(r.Uint32())
		} else {
			// a = -1 and small integers: x alternates between x0 and b - x0,
			// every value exact in fp16 and fp32, so the result is exact
			// whatever the rounding and whether the device fuses.
			for i := range p.x0 {
				p.x0[i] = int32(r.IntN(65)) - 32
			}
			p.a, p.b = -1, int32(r.IntN(64))-32
		}
		push := []uint32{uint32(n), uint32(iters), uint32(p.a), uint32(p.b)}
		// fp16 chains, as fp32 ones, start from fp32 values in memory (see
		// peak_fma_f16).
		inType, input := kernels.I32, asWords(p.x0)
		if op.dtype != kernels.I32 {
			inType, input = kernels.F32, par.Map(p.x0, func(v int32) uint32 { return math.Float32bits(float32(v)) })
			push[2], push[3] = math.Float32bits(float32(p.a)), math.Float32bits(float32(p.b))
		}
		// One output per invocation; n covers the candidate with the fewest
		// chains per invocation.
		if err := p.alloc(bufferDesc{&p.in, "x0", kernels.Input, inType, n}, bufferDesc{&p.out, "y", kernels.Output, inType, n}); err != nil {
			return nil, err
		}
		p.dispatches(p.grid, pushConstants(push...), p.in, p.out)
		return p, kernels.WriteWords(ctx, p.in, input)
	})
}

// chains returns how many chains one invocation of c carries.
func (p *peakProblem) chains(c kernels.Candidate) int64 {
	return int64(param(c, "ACC")) * int64(param(c, "LANES"))
}

func (p *peakProblem) grid(c kernels.Candidate) ([3]uint32, error) {
	threads := ceilDiv(uint64(p.n), uint64(p.chains(c)))
	return p.grid1D(ceilDiv(threads, param(c, "WG")))
}

// affinePower returns (A, B) such that ITERS steps of x ← a·x + b take x
// to A·x + B, in wrapping 32-bit arithmetic, by repeated squaring of the
// map: log₂ ITERS compositions instead of ITERS steps per chain.
func affinePower(a, b uint32, iters int64) (uint32, uint32) {
	ra, rb := uint32(1), uint32(0) // the identity
	for ; iters > 0; iters >>= 1 {
		if iters&1 == 1 {
			ra, rb = a*ra, a*rb+b
		}
		a, b = a*a, a*b+b
	}
	return ra, rb
}

// verify compares every invocation's sum exactly. For fp32 and fp16 the
// chains alternate between x0 and b − x0 (a = −1), small integers that
// every step and the sum represent exactly; for int32 every chain ends at
// A·x0 + B (affinePower), wrapping as the device does.
func (p *peakProblem) verify(ctx context.Context, cand int, m *kernels.Mismatches) (int64, error) {
	per := p.chains(p.cands[cand])
	threads := (p.n + per - 1) / per
	got, err := p.download(ctx, p.out, threads)
	if err != nil {
		return 0, err
	}
	bigA, bigB := affinePower(uint32(p.a), uint32(p.b), p.iters)
	parallel(threads, per, m, func(lo, hi int64, m *kernels.Mismatches) {
		for t := lo; t < hi; t++ {
			first, last := t*per, min((t+1)*per, p.n)
			if p.kind.dtype == kernels.I32 {
				var want uint32
				for _, x := range p.x0[first:last] {
					want += bigA*uint32(x) + bigB
				}
				if got[t] != want {
					m.Add(func() string {
						return fmt.Sprintf("y[%d] (chains %d to %d): got %d, want %d (exact)", t, first, last-1, int32(got[t]), int32(want))
					})
				}
				continue
			}
			var want float32
			for _, x := range p.x0[first:last] {
				if p.iters%2 == 1 {
					x = p.b - x
				}
				want += float32(x)
			}
			if g := math.Float32frombits(got[t]); g != want {
				m.Add(func() string {
					return fmt.Sprintf("y[%d] (chains %d to %d): got %.9g, want %.9g (exact)", t, first, last-1, g, want)
				})
			}
		}
	})
	return threads, nil
}
