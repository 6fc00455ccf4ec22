#version 450
// peak_mad_i32: the device's int32 multiply-add throughput. Like
// peak_fma_f32 with x = x * a + b on ints (wrapping, so exact), ACC
// independent chains per invocation and the sum of the chains written out.
//
// Specialization: 0 = workgroup size, 1 = ACC, 2 = UNROLL.
// Push constants: n (chains), iters, a, b.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACC = 8;
layout(constant_id = 2) const uint UNROLL = 8;

layout(set = 0, binding = 0) restrict readonly buffer X0 { int x0[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Y { int y[]; };

layout(push_constant) uniform Params { uint n; uint iters; int a; int b; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint t = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    int a = pc.a;
    int b = pc.b;
    int x[ACC];
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        uint c = t * ACC + j;
        x[j] = c < pc.n ? x0[c] : 0;
    }
    uint i = 0u;
    for (; i + UNROLL <= pc.iters; i += UNROLL) {
        [[unroll]] for (uint u = 0u; u < UNROLL; u++) {
            [[unroll]] for (uint j = 0u; j < ACC; j++) {
                x[j] = x[j] * a + b;
            }
        }
    }
    for (; i < pc.iters; i++) {
        [[unroll]] for (uint j = 0u; j < ACC; j++) {
            x[j] = x[j] * a + b;
        }
    }
    int sum = 0;
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        if (t * ACC + j < pc.n) {
            sum += x[j];
        }
    }
    if (t * ACC < pc.n) {
        y[t] = sum;
    }
}
