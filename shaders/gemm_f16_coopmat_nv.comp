#version 450
// gemm_f16_coopmat_nv: C = A * B in float16 with float32 sums on the
// matrix units, through GL_NV_cooperative_matrix: 16 x 16 x 16 fragments
// of one subgroup of 32 invocations. The tiling, staging and epilogue are
// in gemm_f16_coopmat.glsl (with its constants, bindings and push
// constants); gemm_f16_coopmat_emu runs the same code without
// cooperative matrices.

#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require

#define WARP gl_SubgroupID
#define LANE gl_SubgroupInvocationID
#define FRAG_AB fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FRAG_A FRAG_AB
#define FRAG_B FRAG_AB
#define FRAG_C fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define fragZero(c) c = FRAG_C(0.0)
#define fragLoad(m, off, stride) coopMatLoadNV(m, sh, off, stride, false)
#define fragMulAdd(a, b, c) c = coopMatMulAddNV(a, b, c)
#define fragStore(c, off, stride) coopMatStoreNV(FRAG_AB(c), sh, off, stride, false)

#include "gemm_f16_coopmat.glsl"
