package catalogue

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// newGEMMBF16 is "gemm-bf16": C (M×N) = A (M×K) · B (K×N), row-major, with
// A, B and C in bfloat16 and the sums in float32, what cuBLAS does for
// torch's bfloat16 matmul. Its A and B are rounded to bfloat16; the
// reference works with those values exactly.
//
// Its candidates are gemm-f16's best, on bfloat16: the portable
// gemm_bf16_regblock, which needs no bfloat16 type (it widens the 16-bit
// patterns itself) and so verifies on any device; and, where the device
// has VK_KHR_shader_bfloat16 with cooperative matrices of it, the KHR
// fragments' tilings (gemm_bf16_coopmat_khr) and the coopmat2 ones
// (gemm_bf16_coopmat2), whose modules are gemm-f16's with their float16
// made bfloat16 (see the shaders' headers). Its flops run on the matrix
// units' bfloat16 rate, which peak-coopmat-bf16 measures; a device without
// them computes it in fp32 (gemm_bf16_regblock).
func newGEMMBF16() *gemmOp {
	khr := func(bm, bn, bk, wm, wn, nbuf, depth uint32) kernels.Candidate {
		return coopmatGEMM("gemm_bf16_coopmat_khr", bm, bn, bk, wm, wn, nbuf, depth)
	}
	cands := halfPortable("gemm_bf16_regblock")
	cands = append(cands,
		khr(128, 128, 16, 64, 32, 2, 2),
		khr(128, 256, 16, 64, 64, 2, 2),
		khr(128, 256, 32, 64, 64, 1, 1),
		khr(256, 128, 32, 64, 64, 1, 1),
		khr(128, 128, 32, 64, 64, 1, 1),
	)
	return gemmOf(kernels.BF16, append(cands, halfNV2("gemm_bf16_coopmat2", hal.ComponentBF16)...))
}
