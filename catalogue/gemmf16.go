package catalogue

import (
	"fmt"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
)

// coopmatFragments are the multiply-adds of the cooperative-matrix GEMM
// kernels: 16 × 16 × 16 fragments of one subgroup, fp16 (or bfloat16) in,
// fp32 sums, of NV's or KHR's extension.
var coopmatFragments = map[string]hal.CooperativeMatrix{
	"gemm_f16_coopmat_nv":   fragment16(hal.MatrixNV, hal.ComponentF16),
	"gemm_f16_coopmat_khr":  fragment16(hal.MatrixKHR, hal.ComponentF16),
	"gemm_bf16_coopmat_khr": fragment16(hal.MatrixKHR, hal.ComponentBF16),
}

func fragment16(api hal.MatrixAPI, in hal.ComponentType) hal.CooperativeMatrix {
	return hal.CooperativeMatrix{API: api, M: 16, N: 16, K: 16, A: in, B: in, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeSubgroup}
}

// regblockHalf is a candidate of a kernel on gemm_half_regblock.glsl,
// gemm_regblock's tiling on 16-bit floats: gemm_f16_regblock or
// gemm_bf16_regblock.
func regblockHalf(shader string, bm, bn, bk, tx, ty, ph uint32) kernels.Candidate {
	name := fmt.Sprintf("regblock-%dx%dx%d-%dx%d", bm, bn, bk, bm/ty, bn/tx)
	if ph > 1 {
		name += fmt.Sprintf("-p%d", ph)
	}
	return candidate(shader, name, 3, 12, [3]uint32{tx, ty, 1},
		map[string]int{"BM": int(bm), "BN": int(bn), "BK": int(bk), "TX": int(tx), "TY": int(ty), "PH": int(ph)},
		kernels.Requirements{}, tx, ty, bm, bn, bk, ph)
}

// halfRegblocks are the tilings of the portable 16-bit GEMM candidates
// (BM, BN, BK, TX, TY, PH), and halfCoopmat2 those of the coopmat2 ones
// (BM, BN, BK, invocations): gemm-f16's and gemm-bf16's alike.
var (
	halfRegblocks = [][6]uint32{{64, 64, 16, 16, 16, 1}, {128, 64, 8, 16, 16, 1}, {128, 128, 8, 16, 16, 1}, {128, 128, 16, 16, 16, 2}}
	halfCoopmat2  = [][4]uint32{{64, 128, 32, 128}, {128, 128, 32, 128}, {128, 128, 64, 256}, {128, 256, 32, 256}}
)

// halfPortable and halfNV2 are the candidates of halfRegblocks on a
// kernel of gemm_half_regblock.glsl and of halfCoopmat2 on a coopmat2
// kernel whose A and B are of type in.
func halfPortable(shader string) []kernels.Candidate {
	return par.Map(halfRegblocks, func(t [6]uint32) kernels.Candidate { return regblockHalf(shader, t[0], t[1], t[2], t[3], t[4], t[5]) })
}

func halfNV2(shader string, in hal.ComponentType) []kernels.Candidate {
	return par.Map(halfCoopmat2, func(t [4]uint32) kernels.Candidate { return coopmat2GEMM(shader, in, t[0], t[1], t[2], t[3]) })
}

// coopmatGEMMs are the candidates of shader (coopmatGEMM) of each tiling
// (BM, BN, BK, WM, WN, NBUF, DEPTH).
func coopmatGEMMs(shader string, tilings [][7]uint32) []kernels.Candidate {
	return par.Map(tilings, func(t [7]uint32) kernels.Candidate {
		return coopmatGEMM(shader, t[0], t[1], t[2], t[3], t[4], t[5], t[6])
	})
}

// newGEMMF16 is "gemm-f16": C (M×N) = A (M×K) · B (K×N), row-major, with
// A, B and C in binary16 and the sums in float32, what cuBLAS's HGEMM does
// for torch's float16 matmul. Its A and B are rounded to binary16; the
// reference works with those halves exactly.
func newGEMMF16() *gemmOp {
	cands := halfPortable("gemm_f16_regblock")
	cands = append(cands, coopmatGEMMs("gemm_f16_coopmat_nv", [][7]uint32{
		{64, 64, 32, 32, 32, 2, 1}, {128, 128, 32, 64, 32, 2, 1}, {128, 128, 64, 64, 32, 1, 1},
		{256, 128, 32, 64, 64, 1, 1}, {128, 256, 32, 64, 64, 1, 1}, {128, 128, 32, 64, 32, 2, 2},
		{128, 128, 16, 64, 32, 2, 2}, {128, 128, 16, 64, 32, 2, 3}, {128, 256, 16, 64, 64, 2, 2},
		{128, 256, 16, 64, 64, 2, 3}, {256, 128, 16, 64, 64, 2, 2}, {128, 256, 32, 64, 64, 1, 2},
		{256, 128, 32, 64, 64, 1, 2},
	})...)
	cands = append(cands, coopmatGEMMs("gemm_f16_coopmat_khr", [][7]uint32{
		{128, 128, 16, 32, 64, 2, 2}, {128, 128, 16, 64, 32, 2, 2}, {128, 128, 16, 64, 32, 2, 3},
		{256, 128, 16, 64, 32, 2, 2}, {128, 256, 16, 64, 64, 2, 2}, {128, 256, 32, 64, 64, 1, 2},
		{128, 256, 32, 64, 64, 1, 1}, {256, 128, 32, 64, 64, 1, 1}, {128, 128, 32, 64, 64, 1, 1},
		{128, 256, 32, 128, 32, 1, 2},
	})...)
	return gemmOf(kernels.F16, append(cands, halfNV2("gemm_f16_coopmat2", hal.ComponentF16)...))
}

// coopmat2GEMM is a candidate of gemm_f16_coopmat2 or gemm_bf16_coopmat2
// (A and B of type in): a BM×BN tile of C per workgroup of wg
// invocations, held as one workgroup-scope matrix of
// VK_NV_cooperative_matrix2 and summed over BM×BK and BK×BN matrices
// loaded through tensor layouts; the driver stages them.
func coopmat2GEMM(shader string, in hal.ComponentType, bm, bn, bk, wg uint32) kernels.Candidate {
	req := kernels.Requirements{CooperativeMatrices: []hal.CooperativeMatrix{{
		API: hal.MatrixNV2, M: bm, N: bn, K: bk,
		A: in, B: in, C: hal.ComponentF32, Result: hal.ComponentF32,
		Scope: hal.ScopeWorkgroup, Invocations: wg,
	}}, NV2: hal.NV2WorkgroupScope | hal.NV2FlexibleDimensions}
	return candidate(shader, fmt.Sprintf("nv2-%dx%dx%d-t%d", bm, bn, bk, wg), 3, 12, [3]uint32{wg, 1, 1},
		map[string]int{"BM": int(bm), "BN": int(bn), "BK": int(bk), "WG": int(wg)},
		req, wg, bm, bn, bk)
}

// coopmatGEMM is a candidate of a shader built on gemm_f16_coopmat.glsl:
// a BM×BN tile of C per workgroup, in warps of 32 invocations that each
// compute WM×WN of it as 16×16 fragments, through BK-deep slices of A and
// B in NBUF buffers of shared memory, each loaded into registers DEPTH
// slices ahead (see the .glsl for the layout). Its name begins with the
// end of the shader's ("nv", "khr", "emu"). The NV and KHR kernels need
// subgroups of 32 and their coopmatFragments; gemm_f16_coopmat_emu, the
// twin that the tests run where there are no cooperative matrices, needs
// neither.
func coopmatGEMM(shader string, bm, bn, bk, wm, wn, nbuf, depth uint32) kernels.Candidate {
	warps := (bm / wm) * (bn / wn)
	wg := 32 * warps
	var req kernels.Requirements
	if m, ok := coopmatFragments[shader]; ok {
		req = kernels.Requirements{SubgroupSize: 32, CooperativeMatrices: []hal.CooperativeMatrix{m}}
	}
	name := fmt.Sprintf("%s-%dx%dx%d-w%dx%d", shader[strings.LastIndexByte(shader, '_')+1:], bm, bn, bk, wm, wn)
	if nbuf == 1 {
		name += "-1buf"
	}
	if depth > 1 {
		name += fmt.Sprintf("-d%d", depth)
	}
	return candidate(shader, name, 3, 12, [3]uint32{wg, 1, 1},
		map[string]int{"BM": int(bm), "BN": int(bn), "BK": int(bk), "WM": int(wm), "WN": int(wn), "NBUF": int(nbuf), "DEPTH": int(depth), "WG": int(wg)},
		req, wg, bm, bn, bk, wm, wn, nbuf, depth)
}
