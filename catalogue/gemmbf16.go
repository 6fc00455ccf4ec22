package catalogue

import (
	"context"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// gemmBF16Op is "gemm-bf16": C (M×N) = A (M×K) · B (K×N), row-major, with
// A, B and C in bfloat16 and the sums in float32, what cuBLAS does for
// torch's bfloat16 matmul. Bytes: 2(MK + KN + MN); flops: 2MNK.
//
// Its candidates are gemm-f16's best, on bfloat16: the portable
// gemm_bf16_regblock, which needs no bfloat16 type (it widens the 16-bit
// patterns itself) and so verifies on any device; and, where the device
// has VK_KHR_shader_bfloat16 with cooperative matrices of it, the KHR
// fragments' tilings (gemm_bf16_coopmat_khr) and the coopmat2 ones
// (gemm_bf16_coopmat2), whose modules are gemm-f16's with their float16
// made bfloat16 (see the shaders' headers).
type gemmBF16Op struct{ opInfo }

func newGEMMBF16() *gemmBF16Op {
	khr := func(bm, bn, bk, wm, wn, nbuf, depth uint32) kernels.Candidate {
		return coopmatGEMM("gemm_bf16_coopmat_khr", "khr", bm, bn, bk, wm, wn, nbuf, depth)
	}
	cands := halfPortable("gemm_bf16_regblock")
	cands = append(cands,
		khr(128, 128, 16, 64, 32, 2, 2),
		khr(128, 256, 16, 64, 64, 2, 2),
		khr(128, 256, 32, 64, 64, 1, 1),
		khr(256, 128, 32, 64, 64, 1, 1),
		khr(128, 128, 32, 64, 64, 1, 1),
	)
	return gemmBF16Of(append(cands, halfNV2("gemm_bf16_coopmat2", hal.ComponentBF16)...))
}

// gemmBF16Of is the operation with cands as its candidates.
func gemmBF16Of(cands []kernels.Candidate) *gemmBF16Op {
	return &gemmBF16Op{opInfo{
		name: "gemm-bf16", dtype: kernels.BF16, dims: []string{"M", "N", "K"},
		summary: "C = A·B, row-major bf16 in and out with fp32 sums: matrix-unit throughput",
		cands:   cands,
	}}
}

// Arithmetic is the matrix units' bfloat16 rate with fp32 sums, which
// peak-coopmat-bf16 measures. A device without them computes gemm-bf16 in
// fp32 (gemm_bf16_regblock), and its fp32 rate stands in (see
// autotune.Peak.ComputeOf).
func (*gemmBF16Op) Arithmetic() kernels.Arithmetic { return kernels.MatrixBF16 }

// DefaultSize is gemm-f16's.
func (*gemmBF16Op) DefaultSize(info hal.DeviceInfo) kernels.Size {
	return (*gemmF16Op)(nil).DefaultSize(info)
}

// Prepare draws A and B uniform in [-1, 1) from the seed and rounds them
// to bfloat16; the reference works with those values exactly.
func (op *gemmBF16Op) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	return prepareGEMM(ctx, op, dev, size, seed, kernels.BF16)
}
