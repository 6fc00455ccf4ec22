// gemm_coopmat2.glsl: the body of gemm_f16_coopmat2 and
// gemm_bf16_coopmat2, whose header says how it works.

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
