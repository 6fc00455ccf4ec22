#version 450
// peak_coopmat_f16_nv: the matrix units' fp16 rate with fp32 sums,
// through GL_NV_cooperative_matrix on 16 x 8 x 16 fragments (C and B
// eight columns wide): the shape of one NVIDIA matrix instruction. On an
// H200 it ran 2-5% faster than 16 x 16 x 16 fragments (two instructions
// each; bench/RESULTS.md). The body is peak_coopmat.glsl's.
//
// Specialization: as peak_coopmat.glsl's, and 3 = FM, 4 = FN, 5 = FK.

#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(constant_id = 3) const uint FM = 16;
layout(constant_id = 4) const uint FN = 8;
layout(constant_id = 5) const uint FK = 16;

layout(set = 0, binding = 0) restrict readonly buffer AB { float16_t ab[]; };
layout(set = 0, binding = 1) restrict readonly buffer C0 { float c0[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Y { float y[]; };

#define WARP gl_SubgroupID
#define FRAG_A fcoopmatNV<16, gl_ScopeSubgroup, FM, FK>
#define FRAG_B fcoopmatNV<16, gl_ScopeSubgroup, FK, FN>
#define FRAG_C fcoopmatNV<32, gl_ScopeSubgroup, FM, FN>
#define fragLoadA(m, index) coopMatLoadNV(m, ab, (index) * 256u, FK, false)
#define fragLoadB(m, index) coopMatLoadNV(m, ab, (index) * 256u, FN, false)
#define fragLoadC(m, j) coopMatLoadNV(m, c0, (j) * FM * FN, FN, false)
#define fragMulAdd(a, b, c) c = coopMatMulAddNV(a, b, c)
#define fragZero(c) c = FRAG_C(0.0)
#define fragAdd(s, c) for (int e = 0; e < s.length(); e++) { s[e] += c[e]; }
#define fragStoreY(m, w) coopMatStoreNV(m, y, (w) * FM * FN, FN, false)

#include "peak_coopmat.glsl"
