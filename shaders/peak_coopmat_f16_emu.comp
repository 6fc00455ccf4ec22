#version 450
// peak_coopmat_f16_emu: peak_coopmat_f16_nv's code with its fragments
// emulated, so that a device without cooperative matrices verifies the
// chains and sums of peak_coopmat.glsl (whose header lists the constants,
// bindings and push constants). A "warp" is 32 consecutive invocations;
// as in gemm_f16_coopmat_emu, each holds 8 sums of a fragment (lane l: row
// l / 2, columns 8 (l % 2) to 8 (l % 2) + 7) and the row of A and columns
// of B they need, in float32. Far slower than the real kernel: the tests use it,
// the catalogue does not.

#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(set = 0, binding = 0) restrict readonly buffer AB { float16_t ab[]; };
layout(set = 0, binding = 1) restrict readonly buffer C0 { float c0[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Y { float y[]; };

#define WARP (gl_LocalInvocationIndex / 32u)
#define LANE (gl_LocalInvocationIndex % 32u)

struct FragAB {
    float row[16];  // row LANE / 2: what the invocation needs of an A
    float cols[128]; // columns 8 (LANE % 2) to 8 (LANE % 2) + 7, by k: of a B
};
struct FragC {
    float e[8];
};
#define FRAG_A FragAB
#define FRAG_B FragAB
#define FRAG_C FragC

// elem is the index in a row-major 16 x 16 fragment of the invocation's
// i-th sum.
uint elem(uint i) {
    return (LANE / 2u) * 16u + 8u * (LANE % 2u) + i;
}

void fragLoadA(out FragAB f, uint index) {
    for (uint k = 0u; k < 16u; k++) {
        f.row[k] = float(ab[index * 256u + (LANE / 2u) * 16u + k]);
        for (uint i = 0u; i < 8u; i++) {
            f.cols[k * 8u + i] = float(ab[index * 256u + k * 16u + 8u * (LANE % 2u) + i]);
        }
    }
}
#define fragLoadB fragLoadA

void fragLoadC(out FragC f, uint j) {
    for (uint i = 0u; i < 8u; i++) {
        f.e[i] = c0[j * 256u + elem(i)];
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

void fragZero(out FragC f) {
    for (uint i = 0u; i < 8u; i++) {
        f.e[i] = 0.0;
    }
}

void fragAdd(inout FragC s, FragC c) {
    for (uint i = 0u; i < 8u; i++) {
        s.e[i] += c.e[i];
    }
}

void fragStoreY(FragC f, uint warp) {
    for (uint i = 0u; i < 8u; i++) {
        y[warp * 256u + elem(i)] = f.e[i];
    }
}

#include "peak_coopmat.glsl"
