#version 450
// gemm_f16_coopmat_emu: gemm_f16_coopmat_nv's code with its fragments
// emulated, so that a device without cooperative matrices verifies the
// tiling, staging and epilogue of gemm_f16_coopmat.glsl (whose header
// lists the constants, bindings and push constants). A "warp" is 32
// consecutive invocations, each of which holds every fragment of its warp
// whole, in float32, and computes it as GL_NV_cooperative_matrix defines
// the operations: loads and stores of 16 x 16 row-major halves from
// shared memory at an offset and a stride in uvec4s, and D = A * B + C.
// Every invocation computes the same values; a store is shared among the
// warp's 32 invocations, one 32-bit pair of halves each. Much slower than
// any real kernel: the tests use it, the catalogue does not.

#extension GL_KHR_memory_scope_semantics : require

#define WARP (gl_LocalInvocationIndex / 32u)
#define LANE (gl_LocalInvocationIndex % 32u)

struct Frag {
    float e[256];
};
#define FRAG_AB Frag
#define FRAG_C Frag
void fragZero(out Frag f);
void fragLoad(out Frag f, uint off, uint stride);
void fragMulAdd(Frag a, Frag b, inout Frag c);
void fragStore(Frag f, uint off, uint stride);

#include "gemm_f16_coopmat.glsl"

void fragZero(out Frag f) {
    for (uint i = 0u; i < 256u; i++) {
        f.e[i] = 0.0;
    }
}

void fragLoad(out Frag f, uint off, uint stride) {
    for (uint r = 0u; r < 16u; r++) {
        for (uint c = 0u; c < 16u; c += 2u) {
            uint h = (off + r * stride) * 8u + c;
            vec2 v = unpackHalf2x16(sh[h / 8u][(h % 8u) / 2u]);
            f.e[r * 16u + c] = v.x;
            f.e[r * 16u + c + 1u] = v.y;
        }
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

void fragStore(Frag f, uint off, uint stride) {
    for (uint p = LANE; p < 128u; p += 32u) {
        uint r = p / 8u;
        uint c = 2u * (p % 8u);
        uint h = (off + r * stride) * 8u + c;
        sh[h / 8u][(h % 8u) / 2u] = packHalf2x16(vec2(f.e[r * 16u + c], f.e[r * 16u + c + 1u]));
    }
}
