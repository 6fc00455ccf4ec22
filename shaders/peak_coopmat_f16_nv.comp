#version 450
// peak_coopmat_f16_nv: the matrix units' fp16 rate with float32 sums,
// through GL_NV_cooperative_matrix: 16 x 16 x 16 fragments of one subgroup
// of 32 invocations. The chains, constants, bindings and push constants
// are in peak_coopmat.glsl.

#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(set = 0, binding = 0) restrict readonly buffer AB { float16_t ab[]; };
layout(set = 0, binding = 1) restrict readonly buffer C0 { float c0[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Y { float y[]; };

#define WARP gl_SubgroupID
#define FRAG_A fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FRAG_B fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FRAG_C fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define fragLoadA(m, index) coopMatLoadNV(m, ab, (index) * 256u, 16u, false)
#define fragLoadB(m, index) coopMatLoadNV(m, ab, (index) * 256u, 16u, false)
#define fragLoadC(m, j) coopMatLoadNV(m, c0, (j) * 256u, 16u, false)
#define fragMulAdd(a, b, c) c = coopMatMulAddNV(a, b, c)
#define fragZero(c) c = FRAG_C(0.0)
#define fragAdd(s, c) for (int e = 0; e < s.length(); e++) { s[e] += c[e]; }
#define fragStoreY(m, w) coopMatStoreNV(m, y, (w) * 256u, 16u, false)

#include "peak_coopmat.glsl"
