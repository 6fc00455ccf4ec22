// gemm_half_regblock.glsl: the body of gemm_f16_regblock and
// gemm_bf16_regblock, gemm_regblock's tiling on 16-bit floats (the
// including kernel's header says how it works). A, B and C are bound at
// 0, 1 and 2 twice each, as pairs of uints that hold 4 elements (a4, b4,
// c4: element 0 in the low half of the first) and as single 16-bit
// elements (a1, b1, c1). A slice waits in registers as its 16-bit
// patterns, half the registers of 4 floats, and is widened on its way to
// shared memory. The including kernel defines load4(h), which widens the
// 4 elements of a uvec2 to a vec4, and store4(v), which rounds a vec4 to
// 4 elements in a uvec2. C's elements are rounded 4 at a time, once,
// whether they are stored 4 at a time or singly: the epilogue stays short
// enough for the driver to unroll it (NVIDIA's left gemm_bf16_regblock's
// 8x8 sums in local memory when the single stores rounded each element
// again).

#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const uint BM = 128;
layout(constant_id = 3) const uint BN = 128;
layout(constant_id = 4) const uint BK = 8;
layout(constant_id = 5) const uint PH = 1;

layout(push_constant) uniform Params { uint M; uint N; uint K; } pc;

layout(set = 0, binding = 0) restrict readonly buffer A4 { uvec2 a4[]; };
layout(set = 0, binding = 0) restrict readonly buffer A1 { uint16_t a1[]; };
layout(set = 0, binding = 1) restrict readonly buffer B4 { uvec2 b4[]; };
layout(set = 0, binding = 1) restrict readonly buffer B1 { uint16_t b1[]; };
layout(set = 0, binding = 2) writeonly buffer C4 { uvec2 c4[]; };
layout(set = 0, binding = 2) writeonly buffer C1 { uint16_t c1[]; };

// setHalf sets element j of t (zero before) to the 16-bit x; getHalf is
// element j of t. A 16-bit value can only be read from or written to
// memory, not passed to a function or returned from one: these are
// macros.
#define setHalf(t, j, x) t[(j) >> 1] |= uint(x) << (16u * ((j) & 1u))
#define getHalf(t, j) uint16_t(t[(j) >> 1] >> (16u * ((j) & 1u)))

const uint TX = gl_WorkGroupSize.x;
const uint TY = gl_WorkGroupSize.y;
const uint NT = TX * TY;
const uint TM4 = BM / (4u * TY);     // 4-row strips per invocation
const uint TN4 = BN / (4u * TX);     // 4-column strips per invocation
const uint TM = 4u * TM4;
const uint BKP = BK / PH;            // rows of k a phase loads
const uint AV = BM * BKP / 4u;       // vec4s in a phase of A
const uint BV = BKP * BN / 4u;       // vec4s in a phase of B
const uint AL = (AV + NT - 1u) / NT; // vec4s of A each invocation loads
const uint BL = (BV + NT - 1u) / NT;
const uint AROW = BM / 4u + 1u;      // padded row of As, in vec4s
const uint BROW = BN / 4u;

// As[buf][k][m / 4][m % 4] = A[bm + m][k0 + k]; Bs[buf][k][n / 4] = B[k0 + k][bn + n...].
shared vec4 As[2u * BK * AROW];
shared vec4 Bs[2u * BK * BROW];

uvec2 ra[AL];
uvec2 rb[BL];
vec4 acc[TM][TN4];

// loadPhase loads phase p (rows k0 + p*BKP ...) of the slice at k0 into
// registers.
void loadPhase(uint bm, uint bn, uint k0, uint p) {
    uint tid = gl_LocalInvocationIndex;
    bool kAligned = (pc.K & 3u) == 0u;
    bool nAligned = (pc.N & 3u) == 0u;
    [[unroll]] for (uint l = 0u; l < AL; l++) {
        uint v = tid + l * NT;
        uint r = v / (BKP / 4u);
        uint row = bm + r;
        uint k = k0 + p * BKP + 4u * (v % (BKP / 4u));
        uvec2 t = uvec2(0u);
        if (v < AV && row < pc.M) {
            if (kAligned && k + 3u < pc.K) {
                t = a4[(row * pc.K + k) / 4u];
            } else {
                for (uint j = 0u; j < 4u; j++) {
                    if (k + j < pc.K) {
                        setHalf(t, j, a1[row * pc.K + k + j]);
                    }
                }
            }
        }
        ra[l] = t;
    }
    [[unroll]] for (uint l = 0u; l < BL; l++) {
        uint v = tid + l * NT;
        uint k = k0 + p * BKP + v / BROW;
        uint col = bn + 4u * (v % BROW);
        uvec2 t = uvec2(0u);
        if (v < BV && k < pc.K) {
            if (nAligned && col + 3u < pc.N) {
                t = b4[(k * pc.N + col) / 4u];
            } else {
                for (uint j = 0u; j < 4u; j++) {
                    if (col + j < pc.N) {
                        setHalf(t, j, b1[k * pc.N + col + j]);
                    }
                }
            }
        }
        rb[l] = t;
    }
}

// storePhase widens the registers of phase p and stores them into shared
// buffer buf.
void storePhase(uint buf, uint p) {
    uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint l = 0u; l < AL; l++) {
        uint v = tid + l * NT;
        if (v < AV) {
            vec4 t = load4(ra[l]);
            uint r = v / (BKP / 4u);
            uint kq = p * BKP + 4u * (v % (BKP / 4u));
            [[unroll]] for (uint j = 0u; j < 4u; j++) {
                As[(buf * BK + kq + j) * AROW + r / 4u][r & 3u] = t[j];
            }
        }
    }
    [[unroll]] for (uint l = 0u; l < BL; l++) {
        uint v = tid + l * NT;
        if (v < BV) {
            Bs[(buf * BK + p * BKP) * BROW + v] = load4(rb[l]);
        }
    }
}

// fmaRow does row k of the slice in shared buffer buf: TM + TN floats
// read, TM * TN fused multiply-adds.
void fmaRow(uint buf, uint k, uint tx, uint ty) {
    vec4 a[TM4];
    vec4 b[TN4];
    [[unroll]] for (uint i = 0u; i < TM4; i++) {
        a[i] = As[(buf * BK + k) * AROW + ty + i * TY];
    }
    [[unroll]] for (uint t = 0u; t < TN4; t++) {
        b[t] = Bs[(buf * BK + k) * BROW + tx + t * TX];
    }
    [[unroll]] for (uint i = 0u; i < TM4; i++) {
        [[unroll]] for (uint c = 0u; c < 4u; c++) {
            [[unroll]] for (uint t = 0u; t < TN4; t++) {
                acc[4u * i + c][t] = fma(vec4(a[i][c]), b[t], acc[4u * i + c][t]);
            }
        }
    }
}

void main() {
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint bm = gl_WorkGroupID.y * BM;
    uint bn = gl_WorkGroupID.x * BN;

    [[unroll]] for (uint i = 0u; i < TM; i++) {
        [[unroll]] for (uint t = 0u; t < TN4; t++) {
            acc[i][t] = vec4(0.0);
        }
    }

    uint slices = (pc.K + BK - 1u) / BK;
    if (slices > 0u) {
        for (uint p = 0u; p < PH; p++) {
            loadPhase(bm, bn, 0u, p);
            storePhase(0u, p);
        }
    }
    barrier();
    // Every slice but the last loads the next one as it computes; the
    // last, peeled off, only computes, so that no load in the hot loop is
    // predicated on there being a next slice.
    for (uint s = 0u; s + 1u < slices; s++) {
        uint buf = s & 1u;
        [[unroll]] for (uint k = 0u; k < BK; k++) {
            // The other buffer was last read before the barrier that
            // ended the previous slice: it may be written at any time now.
            if (k % BKP == 0u) {
                if (k > 0u) {
                    storePhase(buf ^ 1u, k / BKP - 1u);
                }
                loadPhase(bm, bn, (s + 1u) * BK, k / BKP);
            }
            fmaRow(buf, k, tx, ty);
        }
        storePhase(buf ^ 1u, PH - 1u);
        barrier();
    }
    if (slices > 0u) {
        uint buf = (slices - 1u) & 1u;
        [[unroll]] for (uint k = 0u; k < BK; k++) {
            fmaRow(buf, k, tx, ty);
        }
    }

    bool nAligned = (pc.N & 3u) == 0u;
    [[unroll]] for (uint i = 0u; i < TM4; i++) {
        [[unroll]] for (uint c = 0u; c < 4u; c++) {
            uint row = bm + 4u * (ty + i * TY) + c;
            if (row >= pc.M) {
                continue;
            }
            [[unroll]] for (uint t = 0u; t < TN4; t++) {
                uint col = bn + 4u * (tx + t * TX);
                uvec2 h = store4(acc[4u * i + c][t]);
                if (nAligned && col + 3u < pc.N) {
                    c4[(row * pc.N + col) / 4u] = h;
                } else {
                    for (uint j = 0u; j < 4u; j++) {
                        if (col + j < pc.N) {
                            c1[row * pc.N + col + j] = getHalf(h, j);
                        }
                    }
                }
            }
        }
    }
}
