#version 450
// gemm_regblock: C = A * B (row-major fp32), register-blocked. A workgroup
// of TX x TY invocations computes a BM x BN block of C, stepping through K
// in slices of BK:
//
//   - the BM x BK slice of A and the BK x BN slice of B go from memory to
//     shared memory in 16-byte vec4 loads (A stored transposed, k-major, so
//     that a thread's rows of A are one vec4 read), double-buffered: the
//     next slice's loads are issued before the current slice's arithmetic
//     and land in the other buffer, one barrier per slice. With PH > 1 the
//     next slice comes in PH phases of BK / PH rows of k, each loaded into
//     registers at the start of its share of the arithmetic and stored at
//     the start of the next share: a long slice (fewer barriers) for the
//     registers of a short one;
//   - each invocation keeps a TM x TN micro-tile of C in registers
//     (TM = BM / TY, TN = BN / TX, both multiples of 4), made of TM/4 x
//     TN/4 strips of 4 rows or columns spaced TY * 4 (TX * 4) apart, so
//     that the vec4 reads of shared memory across a subgroup are
//     consecutive (no bank conflicts) and each k step is TM + TN floats of
//     shared reads for TM * TN fused multiply-adds;
//   - the transposing stores of A spread over the banks either by rows
//     of As padded by one vec4 (SWZ = 0), or (SWZ = 1) by unpadded rows
//     whose vec4s are permuted by an XOR of the row's k, which saves
//     BK * 2 vec4s of shared memory: 128x256x16 fits 48 KiB only so.
//
// Sizes that are not multiples of the blocks, or a K or N that is not a
// multiple of 4 (rows not 16-byte aligned), take a checked scalar path for
// the affected loads and stores only; out-of-range elements are zero.
// With EXACT = 1 the loads have no checked path: every tile and slice
// lies inside A and B (M, N and K multiples of BM, BN and BK), and the
// host runs such a candidate only at those sizes. Its loop is the
// unchecked loads alone, half the code; both paths in one kernel, chosen
// per workgroup, ran slower than the checked path alone on an H200.
//
// Specialization: 0 = TX, 1 = TY (workgroup size), 2 = BM, 3 = BN, 4 = BK
// (a multiple of 4), 5 = PH (phases a slice is loaded in; BK / PH a
// multiple of 4), 6 = SWZ (0 or 1; with 1, BM a multiple of 32), 7 =
// EXACT (0 or 1). Push constants: M, N, K.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const uint BM = 128;
layout(constant_id = 3) const uint BN = 128;
layout(constant_id = 4) const uint BK = 8;
layout(constant_id = 5) const uint PH = 1;
layout(constant_id = 6) const uint SWZ = 0;
layout(constant_id = 7) const uint EXACT = 0;

layout(set = 0, binding = 0) restrict readonly buffer A4 { vec4 a4[]; };
layout(set = 0, binding = 0) restrict readonly buffer A1 { float a1[]; };
layout(set = 0, binding = 1) restrict readonly buffer B4 { vec4 b4[]; };
layout(set = 0, binding = 1) restrict readonly buffer B1 { float b1[]; };
layout(set = 0, binding = 2) writeonly buffer C4 { vec4 c4[]; };
layout(set = 0, binding = 2) writeonly buffer C1 { float c1[]; };

layout(push_constant) uniform Params { uint M; uint N; uint K; } pc;

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
const uint AROW = BM / 4u + 1u - SWZ; // row of As, in vec4s
const uint KQ = BKP / 4u;            // vec4s of k in a row of a phase of A
const uint BROW = BN / 4u;

// As[buf][k][swz(k, m / 4)][m % 4] = A[bm + m][k0 + k]; Bs[buf][k][n / 4] = B[k0 + k][bn + n...].
shared vec4 As[2u * BK * AROW];
shared vec4 Bs[2u * BK * BROW];

vec4 ra[AL];
vec4 rb[BL];
vec4 acc[TM][TN4];

// swz is where vec4 m4 of row k of As lies. The KQ invocations that store
// one row m of A write KQ rows of k; unpadded, each row of As is a
// multiple of the 32 banks long, so the XOR moves each row's vec4s by a
// different multiple of 8 / KQ vec4s (within an aligned block of 8, so
// still in the row), and the rows of m a subgroup stores land in
// different banks.
uint swz(uint k, uint m4) {
    if (SWZ == 0u || KQ > 8u) {
        return m4;
    }
    return m4 ^ (((k >> 2u) % KQ) * (8u / KQ));
}

// loadPhase loads phase p (rows k0 + p*BKP ...) of the slice at k0 into
// registers; unchecked, the phase lies inside A and B.
void loadPhase(uint bm, uint bn, uint k0, uint p, bool checked) {
    uint tid = gl_LocalInvocationIndex;
    if (!checked) {
        [[unroll]] for (uint l = 0u; l < AL; l++) {
            uint v = tid + l * NT;
            if (AV % NT == 0u || v < AV) {
                ra[l] = a4[((bm + v / KQ) * pc.K + k0 + p * BKP + 4u * (v % KQ)) / 4u];
            }
        }
        [[unroll]] for (uint l = 0u; l < BL; l++) {
            uint v = tid + l * NT;
            if (BV % NT == 0u || v < BV) {
                rb[l] = b4[((k0 + p * BKP + v / BROW) * pc.N + bn + 4u * (v % BROW)) / 4u];
            }
        }
        return;
    }
    bool kAligned = (pc.K & 3u) == 0u;
    bool nAligned = (pc.N & 3u) == 0u;
    [[unroll]] for (uint l = 0u; l < AL; l++) {
        uint v = tid + l * NT;
        uint r = v / (BKP / 4u);
        uint row = bm + r;
        uint k = k0 + p * BKP + 4u * (v % (BKP / 4u));
        vec4 t = vec4(0.0);
        if (v < AV && row < pc.M) {
            if (kAligned && k + 3u < pc.K) {
                t = a4[(row * pc.K + k) / 4u];
            } else {
                for (uint j = 0u; j < 4u; j++) {
                    if (k + j < pc.K) {
                        t[j] = a1[row * pc.K + k + j];
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
        vec4 t = vec4(0.0);
        if (v < BV && k < pc.K) {
            if (nAligned && col + 3u < pc.N) {
                t = b4[(k * pc.N + col) / 4u];
            } else {
                for (uint j = 0u; j < 4u; j++) {
                    if (col + j < pc.N) {
                        t[j] = b1[k * pc.N + col + j];
                    }
                }
            }
        }
        rb[l] = t;
    }
}

// storePhase stores the registers of phase p into shared buffer buf.
void storePhase(uint buf, uint p) {
    uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint l = 0u; l < AL; l++) {
        uint v = tid + l * NT;
        if (v < AV) {
            uint r = v / (BKP / 4u);
            uint kq = p * BKP + 4u * (v % (BKP / 4u));
            [[unroll]] for (uint j = 0u; j < 4u; j++) {
                As[(buf * BK + kq + j) * AROW + swz(kq + j, r / 4u)][r & 3u] = ra[l][j];
            }
        }
    }
    [[unroll]] for (uint l = 0u; l < BL; l++) {
        uint v = tid + l * NT;
        if (v < BV) {
            Bs[(buf * BK + p * BKP) * BROW + v] = rb[l];
        }
    }
}

// fmaRow does row k of the slice in shared buffer buf: TM + TN floats
// read, TM * TN fused multiply-adds.
void fmaRow(uint buf, uint k, uint tx, uint ty) {
    vec4 a[TM4];
    vec4 b[TN4];
    [[unroll]] for (uint i = 0u; i < TM4; i++) {
        a[i] = As[(buf * BK + k) * AROW + swz(k, ty + i * TY)];
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

// slice does the arithmetic of slice s, in shared buffer buf, while it
// loads slice s + 1 into the other. Called with buf a constant (PAIRS),
// every shared-memory address of the slice folds to a register and an
// immediate offset.
void slice(uint bm, uint bn, uint tx, uint ty, uint s, uint buf, bool checked) {
    [[unroll]] for (uint k = 0u; k < BK; k++) {
        // The other buffer was last read before the barrier that ended
        // the previous slice: it may be written at any time now.
        if (k % BKP == 0u) {
            if (k > 0u) {
                storePhase(buf ^ 1u, k / BKP - 1u);
            }
            loadPhase(bm, bn, (s + 1u) * BK, k / BKP, checked);
        }
        fmaRow(buf, k, tx, ty);
    }
    storePhase(buf ^ 1u, PH - 1u);
    barrier();
}

// PAIRS: mainLoop runs two slices an iteration, buffers 0 and 1, where a
// slice's code is short: exact loads and at most 8 rows of k. One slice's
// code with a buffer index that alternates spends about a twelfth of its
// instructions recomputing shared-memory addresses, which a constant index
// folds away: on an H200 the pairs took 128x128x8-exact from 0.90-0.92 of
// cuBLAS to 0.95-0.96. Longer slices lost by it (256x128x16-p2-swz-exact,
// 0.90-0.93 to 0.87-0.88: twice the loop's code), and every slice's code
// is compiled three times over, so the others keep one slice an iteration.
const bool PAIRS = BK <= 8u && EXACT == 1u;

// mainLoop sums the block of C over K into acc: the slices that load the
// next, in pairs (PAIRS) or one by one, then the last, peeled off, which
// only computes, so that no load in the hot loop is predicated on there
// being a next slice.
void mainLoop(uint bm, uint bn, uint tx, uint ty, bool checked) {
    uint slices = (pc.K + BK - 1u) / BK;
    if (slices > 0u) {
        for (uint p = 0u; p < PH; p++) {
            loadPhase(bm, bn, 0u, p, checked);
            storePhase(0u, p);
        }
    }
    barrier();
    uint s = 0u;
    if (PAIRS) {
        for (; s + 2u < slices; s += 2u) {
            slice(bm, bn, tx, ty, s, 0u, checked);
            slice(bm, bn, tx, ty, s + 1u, 1u, checked);
        }
    }
    for (; s + 1u < slices; s++) {
        slice(bm, bn, tx, ty, s, s & 1u, checked);
    }
    if (slices > 0u) {
        uint buf = s & 1u;
        [[unroll]] for (uint k = 0u; k < BK; k++) {
            fmaRow(buf, k, tx, ty);
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

    mainLoop(bm, bn, tx, ty, EXACT == 0u);

    bool nAligned = (pc.N & 3u) == 0u;
    [[unroll]] for (uint i = 0u; i < TM4; i++) {
        [[unroll]] for (uint c = 0u; c < 4u; c++) {
            uint row = bm + 4u * (ty + i * TY) + c;
            if (row >= pc.M) {
                continue;
            }
            [[unroll]] for (uint t = 0u; t < TN4; t++) {
                uint col = bn + 4u * (tx + t * TX);
                vec4 v = acc[4u * i + c][t];
                if (nAligned && col + 3u < pc.N) {
                    c4[(row * pc.N + col) / 4u] = v;
                } else {
                    for (uint j = 0u; j < 4u; j++) {
                        if (col + j < pc.N) {
                            c1[row * pc.N + col + j] = v[j];
                        }
                    }
                }
            }
        }
    }
}
