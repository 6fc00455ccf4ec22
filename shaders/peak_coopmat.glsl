// peak_coopmat.glsl: the body of the cooperative-matrix peaks, the
// matrix units' (tensor cores') own multiply-add rate. Each warp (32
// invocations: a subgroup of the NV kernels) carries ACC independent
// chains of fragment multiply-adds C <- A * B + C, so that the units'
// latency hides behind the chains, and steps every chain ITERS times,
// alternating B and -B: after an even number of steps a chain is back at
// its start, after an odd number at A * B + C0, small integers every
// step, exact in float16 and float32 whatever the order of the sums. A,
// B and the starting values come from memory, each chain j from its own
// fragment, so no compiler can fold or merge the chains. Each warp writes
// the sum of its chains (those below n; chains past it run and are left
// out), so that no step can be dropped.
//
// Specialization: 0 = workgroup size (32 * warps), 1 = ACC (chains per
// warp, at most 16), 2 = UNROLL (pairs of steps per loop iteration).
// Push constants: n (chains), iters (multiply-adds per chain).
// Bindings: 0 = A, B and -B (three fragments, row-major, in the input
// type), 1 = C0 (16 fragments of the sum type: chain j of every warp
// starts from fragment j), 2 = Y (a fragment per warp, in the sum type).
//
// The including kernel defines WARP, the fragment types FRAG_A, FRAG_B
// and FRAG_C (A is FM x FK, B FK x FN, C FM x FN), FRAG_ELEMS (FM * FN),
// and fragLoadA(m, index), fragLoadB(m, index) (fragment index of
// binding 0), fragLoadC(m, j), fragMulAdd(a, b, c), fragZero(c),
// fragAdd(sum, c) and fragStoreY(m, warp). (Adding fragments with "+"
// crashes glslc 2023.2's optimiser; fragAdd adds their elements.)

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACC = 8;
layout(constant_id = 2) const uint UNROLL = 4;

layout(push_constant) uniform Params { uint n; uint iters; } pc;

void main() {
    uint warp = gl_WorkGroupID.x * (gl_WorkGroupSize.x / 32u) + WARP;
    uint first = warp * ACC;
    FRAG_A a;
    FRAG_B b;
    FRAG_B nb;
    fragLoadA(a, 0u);
    fragLoadB(b, 1u);
    fragLoadB(nb, 2u);
    FRAG_C acc[ACC];
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        fragLoadC(acc[j], j);
    }
    uint i = 0u;
    for (; i + 2u * UNROLL <= pc.iters; i += 2u * UNROLL) {
        [[unroll]] for (uint u = 0u; u < UNROLL; u++) {
            [[unroll]] for (uint j = 0u; j < ACC; j++) {
                fragMulAdd(a, b, acc[j]);
            }
            [[unroll]] for (uint j = 0u; j < ACC; j++) {
                fragMulAdd(a, nb, acc[j]);
            }
        }
    }
    for (; i < pc.iters; i++) {
        if ((i & 1u) == 0u) {
            [[unroll]] for (uint j = 0u; j < ACC; j++) {
                fragMulAdd(a, b, acc[j]);
            }
        } else {
            [[unroll]] for (uint j = 0u; j < ACC; j++) {
                fragMulAdd(a, nb, acc[j]);
            }
        }
    }
    if (first >= pc.n) {
        return;
    }
    FRAG_C sum;
    fragZero(sum);
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        if (first + j < pc.n) {
            fragAdd(sum, acc[j]);
        }
    }
    fragStoreY(sum, warp);
}
