#version 450
// target-env: vulkan1.3
//
// peak_coopmat_f16acc_khr: peak_coopmat_f16acc_nv on
// GL_KHR_cooperative_matrix: 16 x 16 x 16 fragments, fp16 in and fp16
// sums. The chains are peak_coopmat.glsl's, whose header lists the
// constants, bindings and push constants.

#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(set = 0, binding = 0) restrict readonly buffer AB { float16_t ab[]; };
layout(set = 0, binding = 1) restrict readonly buffer C0 { float16_t c0[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Y { float16_t y[]; };

#define WARP gl_SubgroupID
#define FRAG_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FRAG_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define FRAG_C coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define fragLoadA(m, index) coopMatLoad(m, ab, (index) * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor)
#define fragLoadB(m, index) coopMatLoad(m, ab, (index) * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor)
#define fragLoadC(m, j) coopMatLoad(m, c0, (j) * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor)
#define fragMulAdd(a, b, c) c = coopMatMulAdd(a, b, c)
#define fragZero(c) c = FRAG_C(0.0)
#define fragAdd(s, c) for (int e = 0; e < s.length(); e++) { s[e] += c[e]; }
#define fragStoreY(m, w) coopMatStore(m, y, (w) * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor)

#include "peak_coopmat.glsl"
