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

#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BM = 128;
layout(constant_id = 2) const uint BN = 128;
layout(constant_id = 3) const uint BK = 32;

layout(binding = 0) readonly buffer A { float16_t a[]; };
layout(binding = 1) readonly buffer B { float16_t b[]; };
layout(binding = 2) writeonly buffer C { float16_t c[]; };
layout(push_constant) uniform Push { uint M, N, K; } p;

#define LAYOUT tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV>
#define TILE(T, R, C, USE) coopmat<T, gl_ScopeWorkgroup, R, C, USE>

void main() {
    uint bm = gl_WorkGroupID.y * BM;
    uint bn = gl_WorkGroupID.x * BN;
    LAYOUT la = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    LAYOUT lb = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    LAYOUT lc = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    la = setTensorLayoutDimensionNV(la, p.M, p.K);
    lb = setTensorLayoutDimensionNV(lb, p.K, p.N);
    lc = setTensorLayoutDimensionNV(lc, p.M, p.N);

    TILE(float, BM, BN, gl_MatrixUseAccumulator) sum = TILE(float, BM, BN, gl_MatrixUseAccumulator)(0.0);
    for (uint k = 0; k < p.K; k += BK) {
        TILE(float16_t, BM, BK, gl_MatrixUseA) ma;
        TILE(float16_t, BK, BN, gl_MatrixUseB) mb;
        coopMatLoadTensorNV(ma, a, 0, sliceTensorLayoutNV(la, bm, BM, k, BK));
        coopMatLoadTensorNV(mb, b, 0, sliceTensorLayoutNV(lb, k, BK, bn, BN));
        sum = coopMatMulAdd(ma, mb, sum);
    }
    TILE(float16_t, BM, BN, gl_MatrixUseAccumulator) d = TILE(float16_t, BM, BN, gl_MatrixUseAccumulator)(sum);
    coopMatStoreTensorNV(d, c, 0, sliceTensorLayoutNV(lc, bm, BM, bn, BN));
}
