#version 450
// gemm_f16_regblock: C = A * B with A, B and C row-major float16 and the
// sums in float32, without cooperative matrices: gemm_regblock's tiling
// and arithmetic (float32 fused multiply-adds on a micro-tile of
// registers), with A and B read as halves and converted to float32 on
// their way to shared memory, and C rounded to float16 on its way out.
// Loads and stores of 4 halves (8 bytes) where rows are aligned.
//
// As gemm_regblock: a workgroup
// of TX x TY invocations computes a BM x BN block of C, stepping through K
// in slices of BK:
//
//   - the BM x BK slice of A and the BK x BN slice of B go from memory to
//     shared memory in 8-byte loads of 4 halves (A stored transposed, k-major, so
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
//   - A's shared rows are padded by one vec4 so that the transposing
//     stores of a subgroup spread over the banks.
//
// Sizes that are not multiples of the blocks, or a K or N that is not a
// multiple of 4 (rows not 8-byte aligned), take a checked scalar path for
// the affected loads and stores only; out-of-range elements are zero.
//
// Specialization: 0 = TX, 1 = TY (workgroup size), 2 = BM, 3 = BN, 4 = BK
// (a multiple of 4), 5 = PH (phases a slice is loaded in; BK / PH a
// multiple of 4). Push constants: M, N, K.

// load4 and store4 widen and round two halves an instruction
// (unpackHalf2x16, packHalf2x16): on an H200 converting each half of an
// f16vec4 on its own made this kernel 20% slower than gemm_bf16_regblock,
// whose widening is integer operations.
#define load4(h) vec4(unpackHalf2x16((h).x), unpackHalf2x16((h).y))
#define store4(v) uvec2(packHalf2x16((v).xy), packHalf2x16((v).zw))

#include "gemm_half_regblock.glsl"
