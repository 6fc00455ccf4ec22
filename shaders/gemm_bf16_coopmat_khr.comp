#version 450
// target-env: vulkan1.3
// retype: float16 bfloat16
//
// gemm_bf16_coopmat_khr: gemm_f16_coopmat_khr with A, B and C bfloat16
// (VK_KHR_shader_bfloat16's cooperative matrices): 16 x 16 x 16 fragments
// of one subgroup, bfloat16 in, float32 sums, C rounded to bfloat16. The
// source is gemm_f16_coopmat_khr's, written with float16_t: no compiler
// pinned here knows GL_EXT_bfloat16, so the module's float16 type is
// made bfloat16 after compiling (internal/glslc, ToBFloat16). That is
// sound because gemm_f16_coopmat.glsl only moves its halves (loads and
// stores as 16-byte words, the fragments, the conversion of the sums)
// and multiplies them in the fragments; it computes nothing in float16.

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
