#version 450
// 256-bin histogram of bytes, with global atomics; four bytes per
// invocation, read as one word.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Data { uint words[]; };
layout(std430, binding = 1) buffer Hist { uint bins[256]; };
layout(push_constant) uniform PC { uint nbytes; };

void main() {
    uint w = gl_GlobalInvocationID.x;
    if (w * 4 >= nbytes) {
        return;
    }
    uint word = words[w];
    for (uint b = 0; b < 4; b++) {
        if (w * 4 + b < nbytes) {
            atomicAdd(bins[(word >> (8 * b)) & 0xffu], 1u);
        }
    }
}
