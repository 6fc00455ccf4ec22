package catalogue

import (
	"context"
	"fmt"
	"math"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
)

// gemmOp is "gemm": C (M×N) = A (M×K) · B (K×N), row-major fp32, or, of
// its DType, "gemm-f16" or "gemm-bf16" (newGEMMF16, newGEMMBF16). Bytes:
// the DType's size times (MK + KN + MN); flops: 2MNK, on the matrix units
// for the 16-bit forms, whose fastest candidates use them.
type gemmOp struct{ opInfo }

func newGEMM() *gemmOp {
	naive := func(t uint32) kernels.Candidate {
		return candidate("gemm_naive", fmt.Sprintf("naive-%dx%d", t, t), 3, 12, [3]uint32{t, t, 1},
			map[string]int{"TX": int(t), "TY": int(t)}, kernels.Requirements{}, t, t)
	}
	tiled := func(t uint32) kernels.Candidate {
		return candidate("gemm_tiled", fmt.Sprintf("tiled-%d", t), 3, 12, [3]uint32{t, t, 1},
			map[string]int{"T": int(t)}, kernels.Requirements{}, t, t)
	}
	return gemmOf(kernels.F32, []kernels.Candidate{
		naive(16),
		tiled(16), tiled(32),
		regblock(64, 64, 16, 16, 16), regblock(128, 64, 8, 16, 16), regblock(128, 128, 8, 16, 16),
		regblock(128, 128, 16, 16, 16),
		regblockPhased(64, 64, 16, 16, 16, 2), regblockPhased(128, 128, 16, 16, 16, 2),
		regblock(128, 256, 8, 32, 16), regblock(256, 128, 8, 16, 32),
		regblockSwizzled(regblockPhased(128, 256, 16, 32, 16, 2)),
		regblockExact(regblock(128, 128, 8, 16, 16)),
		regblockExact(regblockSwizzled(regblockPhased(256, 128, 16, 16, 32, 2))),
	})
}

// gemmOps are the GEMM operations by element type, less their dimensions
// and candidates.
var gemmOps = map[kernels.DType]gemmOp{
	kernels.F32: {opInfo: opInfo{name: "gemm", summary: "C = A·B, row-major fp32 (M×K times K×N): arithmetic throughput"}},
	kernels.F16: {opInfo: opInfo{name: "gemm-f16", summary: "C = A·B, row-major fp16 in and out with fp32 sums (HGEMM): matrix-unit throughput",
		arithmetic: kernels.MatrixF16}},
	kernels.BF16: {opInfo: opInfo{name: "gemm-bf16", summary: "C = A·B, row-major bf16 in and out with fp32 sums: matrix-unit throughput",
		arithmetic: kernels.MatrixBF16}},
}

// gemmOf is the GEMM operation on elem with cands as its candidates.
func gemmOf(elem kernels.DType, cands []kernels.Candidate) *gemmOp {
	op := gemmOps[elem]
	op.dtype, op.dims, op.cands = elem, []string{"M", "N", "K"}, cands
	return &op
}

// regblock is a candidate of gemm_regblock: a TX×TY workgroup computes a
// BM×BN block of C, each invocation a (BM/TY)×(BN/TX) micro-tile, through
// double-buffered BK slices of A and B in shared memory.
func regblock(bm, bn, bk, tx, ty uint32) kernels.Candidate {
	return candidate("gemm_regblock", fmt.Sprintf("regblock-%dx%dx%d-%dx%d", bm, bn, bk, bm/ty, bn/tx), 3, 12, [3]uint32{tx, ty, 1},
		map[string]int{"BM": int(bm), "BN": int(bn), "BK": int(bk), "TX": int(tx), "TY": int(ty)},
		kernels.Requirements{}, tx, ty, bm, bn, bk)
}

// regblockPhased is regblock with each slice of k loaded in ph phases, so
// that a long slice (half the barriers of a short one) needs the
// registers of a short one.
func regblockPhased(bm, bn, bk, tx, ty, ph uint32) kernels.Candidate {
	return variant(regblock(bm, bn, bk, tx, ty), fmt.Sprintf("-p%d", ph), "PH", 5, ph)
}

// regblockSwizzled is c with the rows of A in shared memory unpadded,
// their vec4s permuted instead (SWZ = 1): BK·2 vec4s less, which is what
// lets 128x256x16 into 48 KiB. c's BM is a multiple of 32.
func regblockSwizzled(c kernels.Candidate) kernels.Candidate {
	return variant(c, "-swz", "SWZ", 6, 1)
}

// regblockExact is c without the checked path of its loads (EXACT = 1):
// for sizes whose M, N and K are multiples of its BM, BN and BK (Applies
// says which), where every tile and slice lies inside A and B. Its loop
// is half c's code; on an H200 that was 5% faster than c, where one
// kernel with both paths, chosen per workgroup, had been slower.
func regblockExact(c kernels.Candidate) kernels.Candidate {
	c = variant(c, "-exact", "EXACT", 7, 1)
	bm, bn, bk := c.Params["BM"], c.Params["BN"], c.Params["BK"]
	// A size of other than three dimensions is Prepare's to refuse.
	c.Applies = func(s kernels.Size) bool {
		return s.Len() != 3 || s.Dim(0)%bm == 0 && s.Dim(1)%bn == 0 && s.Dim(2)%bk == 0
	}
	c.AppliesWhere = fmt.Sprintf("its loads are unchecked, for sizes whose M, N and K are multiples of %d, %d and %d", bm, bn, bk)
	return c
}

// DefaultSize is 4096³ on a discrete GPU, 2048³ on an integrated one and
// 256³ on a CPU (lavapipe does a few GFLOP/s).
func (op *gemmOp) DefaultSize(info hal.DeviceInfo) kernels.Size {
	e := int64(op.dtype.Bytes())
	s := int(pick(info, [3]int64{256, 2048, 4096}, 3, func(s int64) int64 { return e * s * s }))
	return kernels.SizeOf(s, s, s)
}

type gemmProblem struct {
	*problem
	m, n, k int64
	// a and b are the inputs' values, exact in elem, the type of A, B and
	// C (Prepare).
	a, b             []float32
	elem             kernels.DType
	bufA, bufB, bufC hal.Buffer
	seed             uint64
	// samples are the elements of C a large product checks, with their
	// float64 references: computed by the first Verify, the same for every
	// candidate.
	samples []gemmSample
}

// gemmSample is one checked element of C: C[i][j] should be want, within
// a tolerance proportional to mag = Σₖ|A[i][k]·B[k][j]|.
type gemmSample struct {
	i, j      int64
	want, mag float64
}

// Prepare makes the problem at size: A and B drawn uniform in [-1, 1)
// from the seed, in fp32 or, for a 16-bit DType (F16, BF16), rounded to
// it and stored as such (the reference then works with those values
// exactly), and C of the same element type.
func (op *gemmOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	elem := op.dtype
	return prepare(op, dev, size, func(base *problem) (checker, error) {
		m, n, k := int64(size.Dim(0)), int64(size.Dim(1)), int64(size.Dim(2))
		p := &gemmProblem{problem: base, m: m, n: n, k: k, seed: seed, elem: elem}
		p.bytes, p.flops = float64(elem.Bytes())*float64(m*k+k*n+m*n), 2*float64(m)*float64(n)*float64(k)
		err := p.alloc(
			bufferDesc{&p.bufA, "A", kernels.Input, elem, m * k},
			bufferDesc{&p.bufB, "B", kernels.Input, elem, k * n},
			bufferDesc{&p.bufC, "C", kernels.Output, elem, m * n},
		)
		if err != nil {
			return nil, err
		}
		p.dispatches(p.grid, pushConstants(uint32(m), uint32(n), uint32(k)), p.bufA, p.bufB, p.bufC)
		p.a = randomSigned(seed, 0, m*k)
		p.b = randomSigned(seed, 1, k*n)
		a, b := asWords(p.a), asWords(p.b)
		if elem != kernels.F32 {
			f := format16Of(elem)
			a, b = f.pack(p.a), f.pack(p.b)
		}
		if err := kernels.WriteWords(ctx, p.bufA, a); err != nil {
			return nil, err
		}
		return p, kernels.WriteWords(ctx, p.bufB, b)
	})
}

func (p *gemmProblem) grid(c kernels.Candidate) ([3]uint32, error) {
	m, n := uint64(p.m), uint64(p.n)
	switch c.Shader {
	case "gemm_naive":
		return p.grid2D(ceilDiv(n, param(c, "TX")), ceilDiv(m, param(c, "TY")))
	case "gemm_tiled":
		return p.grid2D(ceilDiv(n, param(c, "T")), ceilDiv(m, param(c, "T")))
	case "gemm_regblock", "gemm_f16_regblock", "gemm_f16_coopmat_nv", "gemm_f16_coopmat_emu", "gemm_f16_coopmat_khr", "gemm_f16_coopmat2",
		"gemm_bf16_regblock", "gemm_bf16_coopmat_khr", "gemm_bf16_coopmat2":
		return p.grid2D(ceilDiv(n, param(c, "BN")), ceilDiv(m, param(c, "BM")))
	}
	return [3]uint32{}, noGeometry("gemm", c)
}

// gemmFullCheck is the most multiply-adds Verify spends on checking every
// element of C; larger products check a sample.
const gemmFullCheck = 1 << 26

// gemmSamples is how many elements of C are checked, besides its corners,
// when the product is too large to check whole.
const gemmSamples = 4096

// verify checks C against a float64 reference of the inputs' values (for
// gemm-f16, the halves themselves): every element when
// M·N·K ≤ 2²⁶ (the tests' sizes, a fraction of a second on the CPU),
// otherwise the four corners and 4096 elements drawn from the seed (a
// 4096³ product would take minutes to check whole).
//
// The tolerance of C[i][j] is u · min(K, 10·√K) · Σₖ|A[i][k]·B[k][j]|,
// u = 2⁻²⁴ the unit roundoff, plus the smallest normal float. K·u·Σ|ab| is
// the worst-case bound for a float32 dot product of length K in any order
// (each of at most K roundings off by u); for long products it is far too
// loose to catch a dropped term, so it is capped by the probabilistic
// bound λ·√K·u·Σ|ab| of Higham and Mary (SIAM J. Sci. Comput. 41(5), 2019),
// which holds for independent rounding errors with probability at least
// 1 − 2K·exp(−λ²/2); λ = 10 makes that a failure every 10¹⁸ elements.
//
// gemm-f16's and gemm-bf16's tolerance is twice that bound (matrix units
// may truncate their fp32 sums) plus one ulp of C's format at the exact
// value (C's rounding to fp16 or bf16, at most half an ulp) and the
// format's smallest normal number (a device may flush denormals).
func (p *gemmProblem) verify(ctx context.Context, _ int, mm *kernels.Mismatches) (int64, error) {
	got, err := p.downloadFloats(ctx, p.bufC, p.m*p.n, p.elem)
	if err != nil {
		return 0, err
	}
	tolerance := p.tolerance()
	check := func(i, j int64, want, mag float64) {
		g := got[i*p.n+j]
		if tol := tolerance(want, mag); !within(g, want, tol) {
			mm.AddF32(g, want, tol, "C[%d][%d]", i, j)
		}
	}
	if p.m*p.n*p.k <= gemmFullCheck {
		want, mag := make([]float64, p.n), make([]float64, p.n)
		for i := range p.m {
			clear(want)
			clear(mag)
			for kk := range p.k {
				a := float64(p.a[i*p.k+kk])
				row := p.b[kk*p.n : (kk+1)*p.n]
				for j, b := range row {
					prod := a * float64(b)
					want[j] += prod
					mag[j] += math.Abs(prod)
				}
			}
			for j := range p.n {
				check(i, j, want[j], mag[j])
			}
		}
		return p.m * p.n, nil
	}
	if p.samples == nil {
		p.samples = p.referenceSamples()
	}
	for _, s := range p.samples {
		check(s.i, s.j, s.want, s.mag)
	}
	return int64(len(p.samples)), nil
}

// tolerance returns the tolerance of an element of C whose exact value is
// want, with mag = Σₖ|A[i][k]·B[k][j]|, as Verify states it.
func (p *gemmProblem) tolerance() func(want, mag float64) float64 {
	k := float64(p.k)
	factor := 0.5 * eps32 * min(k, 10*math.Sqrt(k))
	if p.elem == kernels.F32 {
		return func(_, mag float64) float64 { return factor*mag + minNormal32 }
	}
	// 16-bit floats in and out, fp32 sums: the products of halves (and
	// of bfloat16s) are exact in float32 and the sum is float32's (with a
	// factor of 2 of margin for matrix units that truncate rather than
	// round their sums); then one rounding to the format, at most half an
	// ulp, allowed one whole ulp.
	f := format16Of(p.elem)
	return func(want, mag float64) float64 { return 2*factor*mag + f.ulp(want) + f.minNormal }
}

// referenceSamples draws the four corners of C and gemmSamples elements
// from the seed, and computes their references on every processor.
func (p *gemmProblem) referenceSamples() []gemmSample {
	r := kernels.NewRand(p.seed, 1000)
	samples := []gemmSample{{i: 0, j: 0}, {i: 0, j: p.n - 1}, {i: p.m - 1, j: 0}, {i: p.m - 1, j: p.n - 1}}
	for range gemmSamples {
		samples = append(samples, gemmSample{i: r.Int64N(p.m), j: r.Int64N(p.n)})
	}
	par.Range(len(samples), 64, func(lo, hi int) {
		for x := lo; x < hi; x++ {
			s := &samples[x]
			for kk := range p.k {
				prod := float64(p.a[s.i*p.k+kk]) * float64(p.b[kk*p.n+s.j])
				s.want += prod
				s.mag += math.Abs(prod)
			}
		}
	})
	return samples
}
