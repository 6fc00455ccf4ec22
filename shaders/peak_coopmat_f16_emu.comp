#version 450
// peak_coopmat_f16_emu: peak_coopmat_f16_nv's code with its fragments
// emulated, so that a device without cooperative matrices verifies the
// chains and sums of peak_coopmat.glsl (whose header lists the constants,
// bindings and push constants). A "warp" is 32 consecutive invocations,
// each of which holds every fragment of its warp whole, in float32, and
// computes it as GL_NV_cooperative_matrix defines the operations; the
// warp's 32 invocations share the store of its sum. Far slower than the
// real kernel: the tests use it, the catalogue does not.

#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(set = 0, binding = 0) restrict readonly buffer AB { float16_t ab[]; };
layout(set = 0, binding = 1) restrict readonly buffer C0 { float c0[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Y { float y[]; };

#define WARP (gl_LocalInvocationIndex / 32u)

struct Frag {
    float e[256];
};
#define FRAG_A Frag
#define FRAG_B Frag
#define FRAG_C Frag

void fragLoadA(out Frag f, uint index) {
    for (uint i = 0u; i < 256u; i++) {
        f.e[i] = float(ab[index * 256u + i]);
    }
}
#define fragLoadB fragLoadA

void fragLoadC(out Frag f, uint j) {
    for (uint i = 0u; i < 256u; i++) {
        f.e[i] = c0[j * 256u + i];
    }
}

void fragMulAdd(Frag a, Frag b, inout Frag c) {
    for (uint r = 0u; r < 16u; r++) {
        for (uint col = 0u; col < 16u; col++) {
            float s = c.e[r * 16u + col];
            for (uint k = 0u; k < 16u; k++) {
                s = fma(a.e[r * 16u + k], b.e[k * 16u + col], s);
            }
            c.e[r * 16u + col] = s;
        }
    }
}

void fragZero(out Frag f) {
    for (uint i = 0u; i < 256u; i++) {
        f.e[i] = 0.0;
    }
}

void fragAdd(inout Frag s, Frag c) {
    for (uint i = 0u; i < 256u; i++) {
        s.e[i] += c.e[i];
    }
}

void fragStoreY(Frag f, uint warp) {
    for (uint i = gl_LocalInvocationIndex % 32u; i < 256u; i += 32u) {
        y[warp * 256u + i] = f.e[i];
    }
}

#include "peak_coopmat.glsl"
