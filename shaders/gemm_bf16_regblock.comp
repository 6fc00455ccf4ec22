#version 450
// gemm_bf16_regblock: C = A * B with A, B and C row-major bfloat16 and the
// sums in float32, without cooperative matrices and without the bfloat16
// type: gemm_f16_regblock's tiling and arithmetic (gemm_half_regblock.glsl,
// whose header in gemm_f16_regblock says how it works), with A and B read
// as 16-bit patterns and widened to float32 by a shift (a bfloat16 is the
// upper half of a float32), and C rounded to bfloat16 on its way out, to
// the nearest, ties to even (a NaN stays a quiet NaN). It needs no more
// than 16-bit storage, so any device verifies gemm-bf16 with it, lavapipe
// included.
//
// Specialization: 0 = TX, 1 = TY (workgroup size), 2 = BM, 3 = BN, 4 = BK
// (a multiple of 4), 5 = PH (phases a slice is loaded in; BK / PH a
// multiple of 4). Push constants: M, N, K.

// load4 widens 4 bfloat16s to floats (each is the upper half of a
// float32); store4 rounds 4 floats to bfloat16s.
vec4 load4(uvec2 h) {
    return vec4(uintBitsToFloat(h.x << 16), uintBitsToFloat(h.x & 0xffff0000u),
                uintBitsToFloat(h.y << 16), uintBitsToFloat(h.y & 0xffff0000u));
}

// bf16 returns the bfloat16 nearest to f, ties to even, in the low 16
// bits; a NaN stays a quiet NaN.
uint bf16(float f) {
    uint u = floatBitsToUint(f);
    uint rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return isnan(f) ? (u >> 16) | 0x40u : rounded;
}

uvec2 store4(vec4 v) {
    return uvec2(bf16(v.x) | (bf16(v.y) << 16), bf16(v.z) | (bf16(v.w) << 16));
}

#include "gemm_half_regblock.glsl"
