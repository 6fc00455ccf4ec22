#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
// RMS normalization of each row, y = x / sqrt(mean(x²) + eps), one
// workgroup per row, the sum reduced in subgroups as ggml's Vulkan kernels
// reduce theirs. It counts on subgroups of exactly SG invocations, in
// order: the subgroup size its pipeline requires (subgroup_size and
// full_subgroups in rms_norm.json). With any other size, the partial sums
// below are counted twice or not at all.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SG = 32;

layout(std430, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, binding = 1) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint ncols;
    float eps;
} p;

shared float partial[128];

void main() {
    uint row = gl_WorkGroupID.x;
    uint t = gl_LocalInvocationID.x;
    uint base = row * p.ncols;
    float s = 0.0;
    for (uint c = t; c < p.ncols; c += gl_WorkGroupSize.x) {
        float v = x[base + c];
        s += v * v;
    }
    s = subgroupAdd(s);
    if (t % SG == 0) {
        partial[t / SG] = s;
    }
    barrier();
    if (t == 0) {
        float total = 0.0;
        for (uint i = 0; i < gl_WorkGroupSize.x / SG; i++) {
            total += partial[i];
        }
        partial[0] = total;
    }
    barrier();
    float scale = inversesqrt(partial[0] / float(p.ncols) + p.eps);
    for (uint c = t; c < p.ncols; c += gl_WorkGroupSize.x) {
        y[base + c] = x[base + c] * scale;
    }
}
