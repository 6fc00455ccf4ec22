#version 450
// target-env: vulkan1.3
//
// gemm_f16_coopmat_khr: gemm_f16_coopmat_nv on GL_KHR_cooperative_matrix,
// the extension that devices of other vendors than NVIDIA offer too:
// 16 x 16 x 16 fragments of one subgroup of 32 invocations, float16 in and
// float32 sums. The tiling, staging and epilogue are gemm_f16_coopmat.glsl
// (with its constants, bindings and push constants). Debian 12's glslc does
// not know the extension, hence the newer toolchain (SPIR-V 1.6).

#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require

#define WARP gl_SubgroupID
#define LANE gl_SubgroupInvocationID
#define FRAG_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FRAG_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define FRAG_C coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define FRAG_CH coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define fragZero(c) c = FRAG_C(0.0)
#define fragLoad(m, off, stride) coopMatLoad(m, sh, off, stride, gl_CooperativeMatrixLayoutRowMajor)
#define fragMulAdd(a, b, c) c = coopMatMulAdd(a, b, c)
#define fragStore(c, off, stride) coopMatStore(FRAG_CH(c), sh, off, stride, gl_CooperativeMatrixLayoutRowMajor)

#include "gemm_f16_coopmat.glsl"
