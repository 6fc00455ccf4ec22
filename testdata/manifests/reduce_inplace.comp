#version 450
// One level of a tree sum over strided elements: workgroup g adds
// elements (g*WG + t)*stride, t < WG, that are below count, and writes the
// sum at g*WG*stride. Run with stride 1, WG, WG^2, ... until one value is
// left; the last run, with count 1, copies it out.
layout(constant_id = 0) const uint WG = 64;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
layout(push_constant) uniform Level {
    uint count;  // elements at this level
    uint stride; // distance between them
};

shared float scratch[WG];

void main() {
    uint t = gl_LocalInvocationID.x;
    uint j = gl_WorkGroupID.x * WG + t;
    scratch[t] = j < count ? src[j * stride] : 0.0;
    barrier();
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (t < s) {
            scratch[t] += scratch[t + s];
        }
        barrier();
    }
    if (t == 0) {
        dst[gl_WorkGroupID.x * WG * stride] = scratch[0];
    }
}
