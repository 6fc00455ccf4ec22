#version 450
// target-env: vulkan1.3
// retype: float16 bfloat16
//
// gemm_bf16_coopmat2: gemm_f16_coopmat2 with A, B and C bfloat16: the
// workgroup's tile of C is one workgroup-scope matrix of
// GL_NV_cooperative_matrix2 with bfloat16 slices of A and B and float32
// sums, loaded and stored through clamped tensor layouts (the header of
// gemm_f16_coopmat2 says how). Written with float16_t and made bfloat16
// after compiling, as gemm_bf16_coopmat_khr is: the body only loads,
// converts, multiplies and stores its matrices.
//
// Specialization: 0 = workgroup size, 1 = BM, 2 = BN, 3 = BK.
// Push constants: M, N, K. Bindings: 0 = A, 1 = B, 2 = C.

#include "gemm_coopmat2.glsl"
