// gemm_f16_coopmat.glsl: the body of the cooperative-matrix fp16 GEMM,
// C = A * B with A (M x K), B (K x N) and C (M x N) row-major float16 and
// float32 sums, included by two kernels that differ only in how a 16 x 16
// fragment is held:
//
//   - gemm_f16_coopmat_nv: fragments are GL_NV_cooperative_matrix
//     matrices of one subgroup (32 invocations), multiplied on the matrix
//     units (tensor cores);
//   - gemm_f16_coopmat_emu: every invocation of a group of 32 holds a
//     whole fragment in its own registers and computes it in fp32, which
//     is what the NV kernel's fragments mean. It needs no cooperative
//     matrices, so a device without them (lavapipe in CI) runs this very
//     tiling, staging and epilogue code and verifies it.
//
// A workgroup of WARPS groups of 32 invocations ("warps") computes a BM x BN
// tile of C. Warps are laid out WARPS_M x WARPS_N, each computing a WM x WN
// part of the tile as CM x CN fragments of 16 x 16, with float32 sums in
// registers. K is stepped in slices of BK:
//
//   - the BM x BK slice of A and the BK x BN slice of B are loaded from
//     memory in 128-bit loads (8 halves) into registers, and stored into
//     shared memory whose rows are padded by 8 halves so that fragment
//     loads spread over the banks;
//   - the loads of the slice DEPTH ahead are issued before the current
//     slice's multiply-adds and held in registers, so that memory latency
//     hides behind DEPTH slices of work on the matrix units (a 128 x 128
//     tile could not be fed from one slice ahead on an H200); the next
//     slice is stored, with NBUF = 2, to the other half of shared memory
//     (one barrier per slice), with NBUF = 1 to the same half after a
//     barrier (two barriers, half the shared memory);
//   - the epilogue converts each warp's fragments to float16 a row of
//     fragments at a time, stages them in shared memory, and writes them
//     out in 128-bit stores.
//
// A workgroup whose tile and slices lie wholly inside A and B, with rows
// 16-byte aligned (every tile of 4096^3), loads without a test, at
// addresses each invocation works out once. Sizes that are not multiples
// of the tile, or a K or N that is not a multiple of 8 (rows not 16-byte
// aligned), take a checked path of single halves for the affected loads
// and stores; elements outside A and B are zero.
//
// Specialization: 0 = workgroup size (32 * WARPS), 1 = BM, 2 = BN, 3 = BK
// (a multiple of 16), 4 = WM, 5 = WN (multiples of 16), 6 = NBUF (1 or 2),
// 7 = DEPTH (slices in flight in registers, 1 to 3), 8 = PARTS: 0, or for
// measuring where the time goes, with wrong results (bench/gemm_parts.sh),
// 1 to load only the first DEPTH slices of an interior tile from memory (the
// multiply-adds and shared memory alone), 2 to skip the multiply-adds (the
// loads and stores alone), 3 to do only the multiply-adds and their
// fragment loads, on the first slices, without stores or barriers; 4 is
// 1 without the stores, 5 is 1 without the barriers.
// Push constants: M, N, K. Bindings: 0 = A, 1 = B, 2 = C.
//
// The including kernel defines WARP and LANE (the invocation's warp and
// its index in it), the fragment types FRAG_A, FRAG_B and FRAG_C, and
// fragZero(FRAG_C), fragLoad(FRAG_A or FRAG_B, offset, stride),
// fragMulAdd(a, b, c) and fragStore(FRAG_C, offset, stride), which load
// from and store to shared memory (sh) at offsets and strides counted in
// uvec4s of 8 halves, row-major.

#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BM = 64;
layout(constant_id = 2) const uint BN = 64;
layout(constant_id = 3) const uint BK = 32;
layout(constant_id = 4) const uint WM = 32;
layout(constant_id = 5) const uint WN = 32;
layout(constant_id = 6) const uint NBUF = 2;
layout(constant_id = 7) const uint DEPTH = 1;
layout(constant_id = 8) const uint PARTS = 0;

layout(set = 0, binding = 0) restrict readonly buffer A8 { uvec4 a8[]; };
layout(set = 0, binding = 0) restrict readonly buffer A1 { float16_t a1[]; };
layout(set = 0, binding = 1) restrict readonly buffer B8 { uvec4 b8[]; };
layout(set = 0, binding = 1) restrict readonly buffer B1 { float16_t b1[]; };
layout(set = 0, binding = 2) restrict writeonly buffer C8 { uvec4 c8[]; };
layout(set = 0, binding = 2) restrict writeonly buffer C1 { float16_t c1[]; };

layout(push_constant) uniform Params { uint M; uint N; uint K; } pc;

const uint NT = gl_WorkGroupSize.x;
const uint WARPS_N = BN / WN;
const uint CM = WM / 16u;            // fragment rows per warp
const uint CN = WN / 16u;            // fragment columns per warp
const uint ASTR = (BK + 8u) / 8u;    // padded row of a slice of A, in uvec4s
const uint BSTR = (BN + 8u) / 8u;    // padded row of a slice of B
const uint CSTR = (WN + 8u) / 8u;    // padded row of a warp's staged C
const uint AS = BM * ASTR;           // a slice of A in shared memory
const uint BS = BK * BSTR;
const uint AV = BM * BK / 8u;        // uvec4s of a slice of A
const uint BV = BK * BN / 8u;
const uint AL = (AV + NT - 1u) / NT; // uvec4s of A each invocation loads
const uint BL = (BV + NT - 1u) / NT;

// NBUF slices of A then B; the epilogue reuses it (the host makes sure
// WARPS * 16 * CSTR uvec4s fit).
shared uvec4 sh[NBUF * (AS + BS)];

uvec4 ra[DEPTH][AL];
uvec4 rb[DEPTH][BL];

// The invocations' loads of a slice step by whole rows (the host makes
// sure NT is a multiple of BK / 8 and of BN / 8), so each invocation's
// first load and store, in uvec4s, are worked out once: aG at k = 0 of A's
// tile rows, bG at row 0 of B's tile columns, aS and bS in a buffer of
// shared memory; its others are constant steps away. (The driver's
// compiler otherwise works every address out again in every slice, which
// cost more instructions than the loads and stores.)
uint aG, bG, aS, bS;

// aRow and aCol place uvec4 v of a slice of A (AQ to a row). With rows
// of 4 (BK = 32), the 8 invocations of each phase of a 16-byte store
// write rows r and r + 4 of a run of 8, which the padding puts in
// different banks: rows r and r + 1 would share a bank. A warp's loads
// still cover 8 whole rows, and each phase 2 of them.
const uint AQ = BK / 8u;
uint aRow(uint v) {
    return AQ == 4u ? (v / 32u) * 8u + (v % 32u) / 8u + 4u * ((v % 8u) / 4u) : v / AQ;
}
uint aCol(uint v) {
    return v % AQ;
}

void initSteps(uint bm, uint bn) {
    uint tid = gl_LocalInvocationIndex;
    aG = ((bm + aRow(tid)) * pc.K + 8u * aCol(tid)) / 8u;
    bG = ((tid / (BN / 8u)) * pc.N + bn + 8u * (tid % (BN / 8u))) / 8u;
    aS = aRow(tid) * ASTR + aCol(tid);
    bS = (tid / (BN / 8u)) * BSTR + tid % (BN / 8u);
}

// pack8 packs 8 halves, element 0 lowest, as memory holds them.
uvec4 pack8(float16_t h[8]) {
    return uvec4(packFloat2x16(f16vec2(h[0], h[1])), packFloat2x16(f16vec2(h[2], h[3])),
                 packFloat2x16(f16vec2(h[4], h[5])), packFloat2x16(f16vec2(h[6], h[7])));
}

// loadSlice loads the slices of A and B at k0 into register slot.
// Unchecked, the slices lie wholly inside A and B with 16-byte
// aligned rows: every load is a 128-bit one, without a test.
void loadSlice(uint slot, uint bm, uint bn, uint k0, bool checked) {
    uint tid = gl_LocalInvocationIndex;
    if (!checked) {
        if ((PARTS == 1u || PARTS == 4u || PARTS == 5u) && k0 >= DEPTH * BK) {
            return;
        }
        [[unroll]] for (uint l = 0u; l < AL; l++) {
            if (AV % NT == 0u || tid + l * NT < AV) {
                ra[slot][l] = a8[aG + l * (NT / (BK / 8u)) * (pc.K / 8u) + k0 / 8u];
            }
        }
        [[unroll]] for (uint l = 0u; l < BL; l++) {
            if (BV % NT == 0u || tid + l * NT < BV) {
                rb[slot][l] = b8[bG + (k0 + l * (NT / (BN / 8u))) * (pc.N / 8u)];
            }
        }
        return;
    }
    bool kAligned = (pc.K & 7u) == 0u;
    bool nAligned = (pc.N & 7u) == 0u;
    [[unroll]] for (uint l = 0u; l < AL; l++) {
        uint v = tid + l * NT;
        uint row = bm + aRow(v);
        uint k = k0 + 8u * aCol(v);
        uvec4 t = uvec4(0u);
        if (v < AV && row < pc.M) {
            if (kAligned && k + 8u <= pc.K) {
                t = a8[(row * pc.K + k) / 8u];
            } else {
                float16_t h[8];
                for (uint j = 0u; j < 8u; j++) {
                    h[j] = k + j < pc.K ? a1[row * pc.K + k + j] : float16_t(0.0);
                }
                t = pack8(h);
            }
        }
        ra[slot][l] = t;
    }
    [[unroll]] for (uint l = 0u; l < BL; l++) {
        uint v = tid + l * NT;
        uint k = k0 + v / (BN / 8u);
        uint col = bn + 8u * (v % (BN / 8u));
        uvec4 t = uvec4(0u);
        if (v < BV && k < pc.K) {
            if (nAligned && col + 8u <= pc.N) {
                t = b8[(k * pc.N + col) / 8u];
            } else {
                float16_t h[8];
                for (uint j = 0u; j < 8u; j++) {
                    h[j] = col + j < pc.N ? b1[k * pc.N + col + j] : float16_t(0.0);
                }
                t = pack8(h);
            }
        }
        rb[slot][l] = t;
    }
}

// storeSlice stores register slot into shared buffer buf.
void storeSlice(uint slot, uint buf) {
    uint tid = gl_LocalInvocationIndex;
    uint base = buf * (AS + BS);
    [[unroll]] for (uint l = 0u; l < AL; l++) {
        if (AV % NT == 0u || tid + l * NT < AV) {
            sh[base + aS + l * (NT / (BK / 8u)) * ASTR] = ra[slot][l];
        }
    }
    [[unroll]] for (uint l = 0u; l < BL; l++) {
        if (BV % NT == 0u || tid + l * NT < BV) {
            sh[base + AS + bS + l * (NT / (BN / 8u)) * BSTR] = rb[slot][l];
        }
    }
}

FRAG_C acc[CM][CN];

// multiplySlice does the slice in shared buffer buf: for each 16 of k,
// CM fragments of A and CN of B loaded, CM * CN multiply-adds.
void multiplySlice(uint buf, uint wm, uint wn) {
    uint abase = buf * (AS + BS) + wm * WM * ASTR;
    uint bbase = buf * (AS + BS) + AS + wn * WN / 8u;
    [[unroll]] for (uint kk = 0u; kk < BK / 16u; kk++) {
        FRAG_A fa[CM];
        [[unroll]] for (uint i = 0u; i < CM; i++) {
            fragLoad(fa[i], abase + i * 16u * ASTR + 2u * kk, ASTR);
        }
        [[unroll]] for (uint j = 0u; j < CN; j++) {
            FRAG_B fb;
            fragLoad(fb, bbase + kk * 16u * BSTR + 2u * j, BSTR);
            [[unroll]] for (uint i = 0u; i < CM; i++) {
                fragMulAdd(fa[i], fb, acc[i][j]);
            }
        }
    }
}

// storeC writes the warp's fragment row i, staged in shared memory at
// stage, to C; the warp's 32 invocations share the work.
void storeC(uint stage, uint row0, uint col0) {
    bool nAligned = (pc.N & 7u) == 0u;
    const uint ROWV = WN / 8u;
    for (uint v = LANE; v < 16u * ROWV; v += 32u) {
        uint row = row0 + v / ROWV;
        uint col = col0 + 8u * (v % ROWV);
        if (row >= pc.M) {
            continue;
        }
        uvec4 t = sh[stage + (v / ROWV) * CSTR + v % ROWV];
        if (nAligned && col + 8u <= pc.N) {
            c8[(row * pc.N + col) / 8u] = t;
            continue;
        }
        for (uint j = 0u; j < 8u; j++) {
            if (col + j < pc.N) {
                c1[row * pc.N + col + j] = unpackFloat2x16(t[j / 2u])[j % 2u];
            }
        }
    }
}

// mainLoop sums the tile's fragments over K.
void mainLoop(uint bm, uint bn, uint wm, uint wn, bool checked) {
    // Slice i waits in register slot i % DEPTH from its load until it is
    // stored to shared memory, DEPTH slices of multiply-adds later: the
    // loop below is unrolled DEPTH times so that every slot is a constant.
    uint slices = (pc.K + BK - 1u) / BK;
    [[unroll]] for (uint d = 0u; d < DEPTH; d++) {
        if (d < slices) {
            loadSlice(d, bm, bn, d * BK, checked);
        }
    }
    if (slices > 0u) {
        storeSlice(0u, 0u);
        if (DEPTH < slices) {
            loadSlice(0u, bm, bn, DEPTH * BK, checked);
        }
    }
    barrier();
    for (uint s = 0u; s < slices; s += DEPTH) {
        [[unroll]] for (uint d = 0u; d < DEPTH; d++) {
            uint cur = s + d;
            if (cur < slices) {
                if (PARTS != 2u) {
                    multiplySlice(cur % NBUF, wm, wn);
                }
                uint next = cur + 1u;
                if (PARTS == 3u) {
                    continue;
                }
                if (next < slices) {
                    // With one buffer, everyone must be done reading it
                    // first; with two, the other one was last read before
                    // the barrier that ended the previous slice.
                    if (NBUF == 1u && PARTS != 5u) {
                        barrier();
                    }
                    uint slot = (d + 1u) % DEPTH;
                    if (PARTS != 4u) {
                        storeSlice(slot, next % NBUF);
                    }
                    if (next + DEPTH < slices) {
                        loadSlice(slot, bm, bn, (next + DEPTH) * BK, checked);
                    }
                }
                if (PARTS != 5u) {
                    barrier();
                }
            }
        }
    }
}

void main() {
    uint bm = gl_WorkGroupID.y * BM;
    uint bn = gl_WorkGroupID.x * BN;
    uint wm = WARP / WARPS_N;
    uint wn = WARP % WARPS_N;

    [[unroll]] for (uint i = 0u; i < CM; i++) {
        [[unroll]] for (uint j = 0u; j < CN; j++) {
            fragZero(acc[i][j]);
        }
    }

    // A tile whose slices all lie inside A and B, with rows of whole
    // 16-byte loads, runs a loop without tests in its loads: the tests and
    // their branches cost the loop of the 4096^3 tiles 10% of its speed.
    initSteps(bm, bn);
    bool interior = bm + BM <= pc.M && bn + BN <= pc.N && pc.K % BK == 0u && (pc.K & 7u) == 0u &&
                    (pc.N & 7u) == 0u;
    if (interior) {
        mainLoop(bm, bn, wm, wn, false);
    } else {
        mainLoop(bm, bn, wm, wn, true);
    }

    // The slices are done with (the barrier above): each warp stages its
    // rows of fragments in its own part of sh.
    uint stage = WARP * 16u * CSTR;
    [[unroll]] for (uint i = 0u; i < CM; i++) {
        [[unroll]] for (uint j = 0u; j < CN; j++) {
            fragStore(acc[i][j], stage + 2u * j, CSTR);
        }
        barrier();
        storeC(stage, bm + wm * WM + i * 16u, bn + wn * WN);
        barrier();
    }
}
