#version 450
// target-env: vulkan1.3
//
// peak_coopmat_s8_khr: peak_coopmat_s8_nv on GL_KHR_cooperative_matrix:
// int8 fragments, int32 sums (16 x 16 x 32 unless the constants say
// otherwise). The chains are peak_coopmat.glsl's, whose header lists the
// constants, bindings and push constants; 3, 4, 5 = FM, FN, FK.

#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_8bit_storage : require

layout(constant_id = 3) const uint FM = 16;
layout(constant_id = 4) const uint FN = 16;
layout(constant_id = 5) const uint FK = 32;

layout(set = 0, binding = 0) restrict readonly buffer AB { int8_t ab[]; };
layout(set = 0, binding = 1) restrict readonly buffer C0 { int c0[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Y { int y[]; };

#define WARP gl_SubgroupID
#define FRAG_A coopmat<int8_t, gl_ScopeSubgroup, FM, FK, gl_MatrixUseA>
#define FRAG_B coopmat<int8_t, gl_ScopeSubgroup, FK, FN, gl_MatrixUseB>
#define FRAG_C coopmat<int, gl_ScopeSubgroup, FM, FN, gl_MatrixUseAccumulator>
#define fragLoadA(m, index) coopMatLoad(m, ab, (index) * 1024u, FK, gl_CooperativeMatrixLayoutRowMajor)
#define fragLoadB(m, index) coopMatLoad(m, ab, (index) * 1024u, FN, gl_CooperativeMatrixLayoutRowMajor)
#define fragLoadC(m, j) coopMatLoad(m, c0, (j) * FM * FN, FN, gl_CooperativeMatrixLayoutRowMajor)
#define fragMulAdd(a, b, c) c = coopMatMulAdd(a, b, c)
#define fragZero(c) c = FRAG_C(0)
#define fragAdd(s, c) for (int e = 0; e < s.length(); e++) { s[e] += c[e]; }
#define fragStoreY(m, w) coopMatStore(m, y, (w) * FM * FN, FN, gl_CooperativeMatrixLayoutRowMajor)

#include "peak_coopmat.glsl"
