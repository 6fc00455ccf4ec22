package catalogue

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// newGEMMBF16 is "gemm-bf16": gemm-f16 on bfloat16, what cuBLAS does for
// torch's bfloat16 matmul (see the package doc). Its candidates are
// gemm-f16's best: the portable tilings and, where the device has
// VK_KHR_shader_bfloat16 with cooperative matrices of it, the KHR and
// coopmat2 ones.
func newGEMMBF16() *gemmOp {
	cands := append(halfPortable("gemm_bf16_regblock"), coopmatGEMMs("gemm_bf16_coopmat_khr", [][7]uint32{
		{128, 128, 16, 64, 32, 2, 2}, {128, 256, 16, 64, 64, 2, 2}, {128, 256, 32, 64, 64, 1, 1},
		{256, 128, 32, 64, 64, 1, 1}, {128, 128, 32, 64, 64, 1, 1},
	})...)
	return gemmOf(kernels.BF16, append(cands, halfNV2("gemm_bf16_coopmat2", hal.ComponentBF16)...))
}
