#version 450
// gemm_f16_coopmat_emu: gemm_f16_coopmat_nv's code with its fragments
// emulated, so that a device without cooperative matrices verifies the
// tiling, staging and epilogue of gemm_f16_coopmat.glsl (whose header
// lists the constants, bindings and push constants). A "warp" is 32
// consecutive invocations, and its fragments are spread over them as the
// matrix units spread theirs: each invocation holds 8 elements of a
// fragment of sums (lane l: row l / 2, columns 8 (l % 2) to 8 (l % 2) + 7),
// in float32, and of the A and B fragments the row and the columns it
// needs to compute them, D = A * B + C (as float32 values of the halves). Loads and stores are GL_NV_cooperative_matrix's: 16 x
// 16 row-major halves in shared memory, at an offset and a stride counted
// in uvec4s. Much slower than any real kernel: the tests use it, the
// catalogue does not.

#extension GL_KHR_memory_scope_semantics : require

#define WARP (gl_LocalInvocationIndex / 32u)
#define LANE (gl_LocalInvocationIndex % 32u)

// FragAB is what an invocation needs of a fragment of A or B; FragC its 8
// sums.
struct FragAB {
    float row[16];  // row LANE / 2: what the invocation needs of an A
    float cols[128]; // columns 8 (LANE % 2) to 8 (LANE % 2) + 7, by k: of a B
};
struct FragC {
    float e[8];
};
#define FRAG_AB FragAB
#define FRAG_A FragAB
#define FRAG_B FragAB
#define FRAG_C FragC
void fragZero(out FragC f);
void fragLoad(out FragAB f, uint off, uint stride);
void fragMulAdd(FragAB a, FragAB b, inout FragC c);
void fragStore(FragC f, uint off, uint stride);

#include "gemm_f16_coopmat.glsl"

void fragZero(out FragC f) {
    for (uint i = 0u; i < 8u; i++) {
        f.e[i] = 0.0;
    }
}

// halfAt returns element (r, c) of the row-major fragment of halves at off.
float halfAt(uint off, uint stride, uint r, uint c) {
    uint h = (off + r * stride) * 8u + c;
    return unpackHalf2x16(sh[h / 8u][(h % 8u) / 2u])[h % 2u];
}

void fragLoad(out FragAB f, uint off, uint stride) {
    for (uint k = 0u; k < 16u; k++) {
        f.row[k] = halfAt(off, stride, LANE / 2u, k);
        for (uint i = 0u; i < 8u; i++) {
            f.cols[k * 8u + i] = halfAt(off, stride, k, 8u * (LANE % 2u) + i);
        }
    }
}

void fragMulAdd(FragAB a, FragAB b, inout FragC c) {
    for (uint i = 0u; i < 8u; i++) {
        float s = c.e[i];
        for (uint k = 0u; k < 16u; k++) {
            s = fma(a.row[k], b.cols[k * 8u + i], s);
        }
        c.e[i] = s;
    }
}

// fragStore stores the invocation's 8 sums, rounded to halves: one uvec4.
void fragStore(FragC f, uint off, uint stride) {
    uvec4 t;
    for (uint i = 0u; i < 4u; i++) {
        t[i] = packHalf2x16(vec2(f.e[2u * i], f.e[2u * i + 1u]));
    }
    sh[off + (LANE / 2u) * stride + LANE % 2u] = t;
}
