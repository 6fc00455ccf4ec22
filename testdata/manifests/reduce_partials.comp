#version 450
// First pass of a sum: each workgroup adds a grid-strided share of the
// input and writes one partial sum.
layout(constant_id = 0) const uint WG = 64;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer In { float data[]; };
layout(std430, binding = 1) writeonly buffer Out { float partials[]; };
layout(push_constant) uniform PC { uint n; };

shared float scratch[WG];

void main() {
    uint t = gl_LocalInvocationID.x;
    float acc = 0.0;
    uint stride = gl_NumWorkGroups.x * WG;
    for (uint i = gl_WorkGroupID.x * WG + t; i < n; i += stride) {
        acc += data[i];
    }
    scratch[t] = acc;
    barrier();
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (t < s) {
            scratch[t] += scratch[t + s];
        }
        barrier();
    }
    if (t == 0) {
        partials[gl_WorkGroupID.x] = scratch[0];
    }
}
