#version 450
// One level of an in-place tree sum of N integers, the level's stride a
// specialization constant: workgroup g adds the elements
// (g*WG + t)*STRIDE, t < WG, that are below N, and writes the sum at
// g*WG*STRIDE. Run with STRIDE 1, WG, WG^2, ... until the sum is in x[0].
layout(constant_id = 0) const uint WG = 64;
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint N = 1;
layout(constant_id = 2) const uint STRIDE = 1;

layout(std430, binding = 0) buffer Data { uint x[]; };

shared uint scratch[WG];

void main() {
    uint t = gl_LocalInvocationID.x;
    // The elements of this level: every STRIDE-th, below N.
    uint count = (N + STRIDE - 1) / STRIDE;
    uint k = gl_WorkGroupID.x * WG + t;
    scratch[t] = k < count ? x[k * STRIDE] : 0u;
    barrier();
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (t < s) {
            scratch[t] += scratch[t + s];
        }
        barrier();
    }
    if (t == 0) {
        x[gl_WorkGroupID.x * WG * STRIDE] = scratch[0];
    }
}
