#version 450
// peak_coopmat_s8_nv: the matrix units' int8 rate with int32 sums, through
// GL_NV_cooperative_matrix and GL_NV_integer_cooperative_matrix: fragments
// of one subgroup of 32 invocations, A of FM x FK, B of FK x FN and sums of
// FM x FN, the shape given by specialization constants 3 (FM), 4 (FN) and
// 5 (FK). A, B and -B are int8 fragments of FM * FK, FK * FN and FK * FN
// elements, each stored in 1024 bytes. The chains, the other constants,
// bindings and push constants are in peak_coopmat.glsl.

#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
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
#define FRAG_A icoopmatNV<8, gl_ScopeSubgroup, FM, FK>
#define FRAG_B icoopmatNV<8, gl_ScopeSubgroup, FK, FN>
#define FRAG_C icoopmatNV<32, gl_ScopeSubgroup, FM, FN>
#define fragLoadA(m, index) coopMatLoadNV(m, ab, (index) * 1024u, FK, false)
#define fragLoadB(m, index) coopMatLoadNV(m, ab, (index) * 1024u, FN, false)
#define fragLoadC(m, j) coopMatLoadNV(m, c0, (j) * FM * FN, FN, false)
#define fragMulAdd(a, b, c) c = coopMatMulAddNV(a, b, c)
#define fragZero(c) c = FRAG_C(0)
#define fragAdd(s, c) for (int e = 0; e < s.length(); e++) { s[e] += c[e]; }
#define fragStoreY(m, w) coopMatStoreNV(m, y, (w) * FM * FN, FN, false)

#include "peak_coopmat.glsl"
