#version 450
// target-env: vulkan1.3
// retype: float16 bfloat16
//
// peak_coopmat_bf16_khr: peak_coopmat_f16_khr with bfloat16 fragments
// (VK_KHR_shader_bfloat16's cooperative matrices) and fp32 sums; 16 x 16
// x 16 unless the constants say otherwise. The source is written with
// float16_t, as gemm_bf16_coopmat_khr's is, and its module's float16 made
// bfloat16 after compiling (internal/glslc, ToBFloat16): the chains only
// load their fragments and multiply them, so that is sound, and the small
// integers of peak_coopmat.glsl are exact in bfloat16 too. The chains are
// peak_coopmat.glsl's, whose header lists the constants, bindings and push
// constants; 3, 4, 5 = FM, FN, FK.

#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(constant_id = 3) const uint FM = 16;
layout(constant_id = 4) const uint FN = 16;
layout(constant_id = 5) const uint FK = 16;

layout(set = 0, binding = 0) restrict readonly buffer AB { float16_t ab[]; };
layout(set = 0, binding = 1) restrict readonly buffer C0 { float c0[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Y { float y[]; };

#define WARP gl_SubgroupID
#define FRAG_A coopmat<float16_t, gl_ScopeSubgroup, FM, FK, gl_MatrixUseA>
#define FRAG_B coopmat<float16_t, gl_ScopeSubgroup, FK, FN, gl_MatrixUseB>
#define FRAG_C coopmat<float, gl_ScopeSubgroup, FM, FN, gl_MatrixUseAccumulator>
#define fragLoadA(m, index) coopMatLoad(m, ab, (index) * 256u, FK, gl_CooperativeMatrixLayoutRowMajor)
#define fragLoadB(m, index) coopMatLoad(m, ab, (index) * 256u, FN, gl_CooperativeMatrixLayoutRowMajor)
#define fragLoadC(m, j) coopMatLoad(m, c0, (j) * FM * FN, FN, gl_CooperativeMatrixLayoutRowMajor)
#define fragMulAdd(a, b, c) c = coopMatMulAdd(a, b, c)
#define fragZero(c) c = FRAG_C(0.0)
#define fragAdd(s, c) for (int e = 0; e < s.length(); e++) { s[e] += c[e]; }
#define fragStoreY(m, w) coopMatStore(m, y, (w) * FM * FN, FN, gl_CooperativeMatrixLayoutRowMajor)

#include "peak_coopmat.glsl"
