#version 450
// Second pass of a sum: one workgroup adds the partial sums.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Partials { float partials[]; };
layout(std430, binding = 1) writeonly buffer Result { float result[]; };
layout(push_constant) uniform PC { uint count; };

shared float scratch[64];

void main() {
    uint t = gl_LocalInvocationID.x;
    float acc = 0.0;
    for (uint i = t; i < count; i += 64) {
        acc += partials[i];
    }
    scratch[t] = acc;
    barrier();
    for (uint s = 32; s > 0; s >>= 1) {
        if (t < s) {
            scratch[t] += scratch[t + s];
        }
        barrier();
    }
    if (t == 0) {
        result[0] = scratch[0];
    }
}
