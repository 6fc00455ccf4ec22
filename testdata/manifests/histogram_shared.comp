#version 450
// 256-bin histogram of bytes: each workgroup counts into shared memory
// over a grid-strided share of the words, then adds its counts to the
// global bins.
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer Data { uint words[]; };
layout(std430, binding = 1) buffer Hist { uint bins[256]; };
layout(push_constant) uniform PC { uint nbytes; };

shared uint local_bins[256];

void main() {
    uint t = gl_LocalInvocationID.x;
    for (uint i = t; i < 256; i += gl_WorkGroupSize.x) {
        local_bins[i] = 0;
    }
    barrier();
    uint nwords = (nbytes + 3) / 4;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint w = gl_GlobalInvocationID.x; w < nwords; w += stride) {
        uint word = words[w];
        for (uint b = 0; b < 4; b++) {
            if (w * 4 + b < nbytes) {
                atomicAdd(local_bins[(word >> (8 * b)) & 0xffu], 1u);
            }
        }
    }
    barrier();
    for (uint i = t; i < 256; i += gl_WorkGroupSize.x) {
        if (local_bins[i] != 0) {
            atomicAdd(bins[i], local_bins[i]);
        }
    }
}
