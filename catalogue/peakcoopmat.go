package catalogue

import (
	"context"
	"fmt"
	"math"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
)

// coopmatPeakOp is one of the matrix-unit peaks: N independent chains of
// fragment multiply-adds C ← A·B + C, each stepped ITERS times (see
// shaders/peak_coopmat.glsl), on fragments of FM×FK times FK×FN. Every
// warp of 32 invocations carries ACC chains and writes their sum. Flops:
// 2·FM·FN·FK·N·ITERS.
type coopmatPeakOp struct {
	opInfo  // all but the dimensions and the candidates, which newCoopmatPeak adds
	in, sum hal.ComponentType
	// shader is the candidates' NV kernel, khrShader their KHR twin's;
	// shader is empty where NV's matrices have no such type.
	shader, khrShader string
	// shape is the fragments' FM, FN, FK; set as specialization constants
	// 3, 4 and 5 where the shader takes them (sized says so).
	shape [3]uint32
	sized bool
}

var (
	// peakCoopmatF16's fragments are 16×8×16, one NVIDIA matrix
	// instruction each: on an H200 they ran 2–5% faster than 16×16×16.
	peakCoopmatF16 = coopmatPeakOp{
		opInfo: opInfo{name: "peak-coopmat-f16", dtype: kernels.F16,
			summary:    "independent chains of cooperative-matrix multiply-adds, fp16 with fp32 sums: peak matrix-unit (tensor core) FLOP/s",
			arithmetic: kernels.MatrixF16},
		in: hal.ComponentF16, sum: hal.ComponentF32, shader: "peak_coopmat_f16_nv",
		khrShader: "peak_coopmat_f16_khr", shape: [3]uint32{16, 8, 16}, sized: true,
	}
	peakCoopmatF16Acc = coopmatPeakOp{
		opInfo: opInfo{name: "peak-coopmat-f16acc", dtype: kernels.F16,
			summary:    "independent chains of cooperative-matrix multiply-adds, fp16 with fp16 sums: peak matrix-unit FLOP/s",
			arithmetic: kernels.MatrixF16Acc},
		in: hal.ComponentF16, sum: hal.ComponentF16, shader: "peak_coopmat_f16acc_nv",
		khrShader: "peak_coopmat_f16acc_khr", shape: [3]uint32{16, 16, 16},
	}
	// peakCoopmatS8's fragments are 16×16×32, the int8 shape NVIDIA's
	// drivers list for their matrix units (a device that lists another
	// reports the candidates unsupported, naming the shape).
	peakCoopmatS8 = coopmatPeakOp{
		opInfo: opInfo{name: "peak-coopmat-s8", dtype: kernels.I8,
			summary:    "independent chains of cooperative-matrix multiply-adds, int8 with int32 sums: peak matrix-unit OP/s",
			arithmetic: kernels.MatrixS8},
		in: hal.ComponentS8, sum: hal.ComponentS32, shader: "peak_coopmat_s8_nv",
		khrShader: "peak_coopmat_s8_khr", shape: [3]uint32{16, 16, 32}, sized: true,
	}
	// peakCoopmatBF16 is on KHR's matrices only (VK_NV_cooperative_matrix
	// has no bfloat16), 16×16×16: gemm-bf16's fragments.
	peakCoopmatBF16 = coopmatPeakOp{
		opInfo: opInfo{name: "peak-coopmat-bf16", dtype: kernels.BF16,
			summary:    "independent chains of cooperative-matrix multiply-adds, bfloat16 with fp32 sums: peak matrix-unit FLOP/s",
			arithmetic: kernels.MatrixBF16},
		in: hal.ComponentBF16, sum: hal.ComponentF32,
		khrShader: "peak_coopmat_bf16_khr", shape: [3]uint32{16, 16, 16}, sized: true,
	}
)

// coopmatPeakShapes are the chains per warp (ACC), the pairs of steps per
// loop iteration (UNROLL) and the warps per workgroup of the candidates;
// khrPeakShapes those of the KHR twins, the fastest on an H200 (where KHR
// ran within 1% of NV).
var (
	coopmatPeakShapes = []struct{ acc, unroll, warps uint32 }{
		{4, 4, 4}, {8, 4, 4}, {8, 4, 8}, {16, 2, 4}, {16, 2, 8},
		{16, 4, 4}, {12, 4, 4}, {8, 8, 4}, {16, 8, 4},
	}
	khrPeakShapes = []struct{ acc, unroll, warps uint32 }{{4, 4, 4}, {12, 4, 4}, {16, 8, 4}}
)

func newCoopmatPeak(k coopmatPeakOp) *coopmatPeakOp {
	k.dims = []string{"N", "ITERS"}
	for _, s := range coopmatPeakShapes {
		if k.shader == "" {
			break
		}
		k.cands = append(k.cands, k.candidate(k.shader, s.acc, s.unroll, s.warps))
	}
	for _, s := range khrPeakShapes {
		k.cands = append(k.cands, k.candidate(k.khrShader, s.acc, s.unroll, s.warps))
	}
	return &k
}

// candidate is a candidate of shader (the NV kernel, the KHR one, whose
// names start "khr-", or in the tests the emulated twin, which needs
// nothing): acc chains a warp, unroll pairs of steps a loop iteration,
// warps a workgroup.
func (k *coopmatPeakOp) candidate(shader string, acc, unroll, warps uint32) kernels.Candidate {
	wg := 32 * warps
	f := k.shape
	constants := []uint32{wg, acc, unroll}
	if k.sized {
		constants = append(constants, f[0], f[1], f[2])
	}
	var req kernels.Requirements
	name := fmt.Sprintf("acc%d-unroll%d-wg%d", acc, unroll, wg)
	if api := map[string]hal.MatrixAPI{k.shader: hal.MatrixNV, k.khrShader: hal.MatrixKHR}[shader]; shader != "" && api != 0 {
		req = kernels.Requirements{SubgroupSize: 32, CooperativeMatrices: []hal.CooperativeMatrix{{
			API: api, M: f[0], N: f[1], K: f[2], A: k.in, B: k.in, C: k.sum, Result: k.sum, Scope: hal.ScopeSubgroup,
		}}}
		if api == hal.MatrixKHR {
			name = "khr-" + name
		}
	}
	return candidate(shader, name, 3, 8, [3]uint32{wg, 1, 1},
		map[string]int{"WG": int(wg), "ACC": int(acc), "UNROLL": int(unroll), "FM": int(f[0]), "FN": int(f[1]), "FK": int(f[2])},
		req, constants...)
}

// DefaultSize is 2¹⁷ chains of 2¹² steps (2.2·10¹² operations with
// 16×8×16 fragments, a few milliseconds on an H200's tensor cores) on a discrete
// GPU, 2¹⁴ × 2¹⁰ on an integrated one, 2⁸ × 2⁴ on a CPU (where only the
// tests' emulated twins run).
func (op *coopmatPeakOp) DefaultSize(info hal.DeviceInfo) kernels.Size {
	return [...]kernels.Size{kernels.SmallDevice: kernels.SizeOf(1<<8, 1<<4), kernels.MediumDevice: kernels.SizeOf(1<<14, 1<<10), kernels.LargeDevice: kernels.SizeOf(1<<17, 1<<12)}[kernels.ClassOf(info)]
}

type coopmatPeakProblem struct {
	*problem
	kind     *coopmatPeakOp
	n, iters int64
	// ab are A, B and -B and c0 the 16 starting fragments, as integers,
	// each fragment in a slot of slot elements.
	ab, c0             []int32
	bufAB, bufC0, bufY hal.Buffer
	maxWarps           int64 // the warps of the candidate with the fewest chains a warp
	fragElems          int64 // FM·FN: Y's slot per warp
}

// slot is the elements of binding 0 each fragment of A, B and -B
// takes (row-major, at its start): 256 for the fp16 and bfloat16 kernels,
// 1024 bytes for int8.
func (k *coopmatPeakOp) slot() int64 {
	if k.in == hal.ComponentS8 {
		return 1024
	}
	return 256
}

func (op *coopmatPeakOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	return prepare(op, dev, size, func(base *problem) (checker, error) {
		n, iters := int64(size.Dim(0)), int64(size.Dim(1))
		p := &coopmatPeakProblem{problem: base, kind: op, n: n, iters: iters}
		f := op.shape
		p.fragElems = int64(f[0] * f[1])
		p.flops = 2 * float64(f[0]*f[1]*f[2]) * float64(n) * float64(iters)
		// Small integers, so that every sum is exact in fp16 (see
		// peak_coopmat.glsl): A and B in [-2, 2], starting values in [-8, 8].
		r := kernels.NewRand(seed, 0)
		slot := op.slot()
		p.ab = make([]int32, 3*slot)
		for i := range slot {
			a, b := int32(r.IntN(5))-2, int32(r.IntN(5))-2
			p.ab[i], p.ab[slot+i], p.ab[2*slot+i] = a, b, -b
		}
		p.c0 = make([]int32, 16*p.fragElems)
		for i := range p.c0 {
			p.c0[i] = int32(r.IntN(17)) - 8
		}
		minACC := int64(16)
		for _, c := range op.cands {
			minACC = min(minACC, int64(param(c, "ACC")))
		}
		p.maxWarps = (n + minACC - 1) / minACC
		p.bytes = float64(int64(componentDType[op.in].Bytes())*3*slot + int64(componentDType[op.sum].Bytes())*int64(len(p.c0)))
		err := p.alloc(
			bufferDesc{&p.bufAB, "AB", kernels.Input, componentDType[op.in], int64(len(p.ab))},
			bufferDesc{&p.bufC0, "C0", kernels.Input, componentDType[op.sum], int64(len(p.c0))},
			bufferDesc{&p.bufY, "Y", kernels.Output, componentDType[op.sum], p.maxWarps * p.fragElems},
		)
		if err != nil {
			return nil, err
		}
		p.dispatches(p.grid, pushConstants(uint32(n), uint32(iters)), p.bufAB, p.bufC0, p.bufY)
		if err := kernels.WriteWords(ctx, p.bufAB, op.encode(op.in, p.ab)); err != nil {
			return nil, err
		}
		return p, kernels.WriteWords(ctx, p.bufC0, op.encode(op.sum, p.c0))
	})
}

// componentDType is the DType of the buffers that hold matrices' components
// of each type.
var componentDType = map[hal.ComponentType]kernels.DType{hal.ComponentF16: kernels.F16, hal.ComponentBF16: kernels.BF16, hal.ComponentF32: kernels.F32, hal.ComponentS32: kernels.I32, hal.ComponentS8: kernels.I8}

// encode packs integers as the words of a buffer of type t.
func (*coopmatPeakOp) encode(t hal.ComponentType, v []int32) []uint32 {
	switch t {
	case hal.ComponentF16, hal.ComponentBF16:
		return format16Of(componentDType[t]).pack(par.Map(v, func(x int32) float32 { return float32(x) }))
	case hal.ComponentF32:
		return par.Map(v, func(x int32) uint32 { return math.Float32bits(float32(x)) })
	case hal.ComponentS8:
		w := make([]uint32, (len(v)+3)/4)
		for i, x := range v {
			w[i/4] |= uint32(uint8(int8(x))) << (8 * (i % 4))
		}
		return w
	}
	return par.Map(v, func(x int32) uint32 { return uint32(x) })
}

// warps returns how many warps candidate c runs: one per ACC chains.
func (p *coopmatPeakProblem) warps(c kernels.Candidate) int64 {
	return (p.n + int64(param(c, "ACC")) - 1) / int64(param(c, "ACC"))
}

func (p *coopmatPeakProblem) grid(c kernels.Candidate) ([3]uint32, error) {
	return p.grid1D(ceilDiv(uint64(p.warps(c)), param(c, "WG")/32))
}

// verify compares every warp's sum exactly: after ITERS steps alternating
// B and -B, chain j is at C0[j], plus A·B if ITERS is odd; all small
// integers.
func (p *coopmatPeakProblem) verify(ctx context.Context, cand int, m *kernels.Mismatches) (int64, error) {
	c := p.cands[cand]
	fm, fn, fk := int64(param(c, "FM")), int64(param(c, "FN")), int64(param(c, "FK"))
	acc := int64(param(c, "ACC"))
	slot := p.kind.slot()
	// ab is A·B (FM×FN), when ITERS is odd.
	ab := make([]int64, fm*fn)
	if p.iters%2 == 1 {
		for i := range fm {
			for j := range fn {
				for k := range fk {
					ab[i*fn+j] += int64(p.ab[i*fk+k]) * int64(p.ab[slot+k*fn+j])
				}
			}
		}
	}
	// warpSum(k) is Y's slot of a warp of k chains: every warp has ACC but
	// the last, which may have fewer.
	warpSum := func(chains int64) []int64 {
		want := make([]int64, fm*fn)
		for j := range chains {
			for e := range want {
				want[e] += int64(p.c0[j*fm*fn+int64(e)]) + ab[e]
			}
		}
		return want
	}
	warps := p.warps(c)
	whole, last := warpSum(acc), warpSum(p.n-(warps-1)*acc)
	got, err := p.sums(ctx, warps*fm*fn)
	if err != nil {
		return 0, err
	}
	parallel(warps, fm*fn, m, func(lo, hi int64, m *kernels.Mismatches) {
		for w := lo; w < hi; w++ {
			want := whole
			if w == warps-1 {
				want = last
			}
			for e, x := range want {
				if g := got[w*fm*fn+int64(e)]; g != float64(x) {
					m.Add(func() string {
						return fmt.Sprintf("Y[%d][%d][%d] (warp %d): got %g, want %d (exact)", w, int64(e)/fn, int64(e)%fn, w, g, x)
					})
				}
			}
		}
	})
	return warps * fm * fn, nil
}

// sums reads n sums of Y back as float64 values.
func (p *coopmatPeakProblem) sums(ctx context.Context, n int64) ([]float64, error) {
	if p.kind.sum == hal.ComponentS32 {
		w, err := p.download(ctx, p.bufY, n)
		return par.Map(w, func(v uint32) float64 { return float64(int32(v)) }), err
	}
	f, err := p.downloadFloats(ctx, p.bufY, n, componentDType[p.kind.sum])
	return par.Map(f, func(v float32) float64 { return float64(v) }), err
}
