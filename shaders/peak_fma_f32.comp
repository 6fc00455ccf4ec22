#version 450
// peak_fma_f32: the device's fp32 FMA throughput. Every invocation carries
// ACC independent chains x = fma(x, a, b) (independent so that the FMA
// pipeline's latency is hidden by the chains, not by occupancy alone), steps
// them ITERS times in an unrolled loop of UNROLL steps, and writes the sum
// of its chains, so that no step can be removed. a and b are push
// constants: the compiler cannot fold or shorten the recurrence.
//
// Chain c = t * ACC + j of invocation t starts from x0[c]; chains at or past
// n run (the workgroup's lanes stay busy) but are left out of the sum.
//
// Specialization: 0 = workgroup size, 1 = ACC, 2 = UNROLL.
// Push constants: n (chains), iters, a, b.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACC = 8;
layout(constant_id = 2) const uint UNROLL = 8;

layout(set = 0, binding = 0) restrict readonly buffer X0 { float x0[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params { uint n; uint iters; float a; float b; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint t = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    float a = pc.a;
    float b = pc.b;
    float x[ACC];
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        uint c = t * ACC + j;
        x[j] = c < pc.n ? x0[c] : 0.0;
    }
    uint i = 0u;
    for (; i + UNROLL <= pc.iters; i += UNROLL) {
        [[unroll]] for (uint u = 0u; u < UNROLL; u++) {
            [[unroll]] for (uint j = 0u; j < ACC; j++) {
                x[j] = fma(x[j], a, b);
            }
        }
    }
    for (; i < pc.iters; i++) {
        [[unroll]] for (uint j = 0u; j < ACC; j++) {
            x[j] = fma(x[j], a, b);
        }
    }
    float sum = 0.0;
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        if (t * ACC + j < pc.n) {
            sum += x[j];
        }
    }
    if (t * ACC < pc.n) {
        y[t] = sum;
    }
}
