#version 450
// target-env: vulkan1.3
//
// gemm_f16_coopmat2: C = A * B with A (M x K), B (K x N) and C (M x N)
// row-major float16 and float32 sums, through GL_NV_cooperative_matrix2:
// the workgroup's BM x BN tile of C is one cooperative matrix of the whole
// workgroup (gl_ScopeWorkgroup), and so are the BM x BK and BK x BN slices
// of A and B it is summed over. They are loaded and stored through tensor
// layouts that know A's, B's and C's extents, so the driver, not this
// source, chooses how to stage them through shared memory and registers.
//
// The layouts clamp (gl_CooperativeMatrixClampModeConstantNV): elements
// outside A and B read as zero and those outside C are not written, so
// one path serves every size. On an H200 (driver 580) that path also runs
// twice as fast as unclamped layouts for tiles wholly inside.
//
// Built for Vulkan 1.3 (SPIR-V 1.6, which GL_NV_cooperative_matrix2
// needs) by the newer glslc that internal/glslc names; the tile's
// dimensions must be multiples of the granularities the device lists for
// workgroups of this size (vkbench devices, "(nv2)").
//
// Specialization: 0 = workgroup size, 1 = BM, 2 = BN, 3 = BK.
// Push constants: M, N, K. Bindings: 0 = A, 1 = B, 2 = C.

#include "gemm_coopmat2.glsl"
