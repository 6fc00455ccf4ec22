#version 450
// l2_read: every invocation reads READS vec4s of a window of the buffer
// (n4 vec4s, a power of two), 16 bytes each, stepping by the whole grid,
// so that a window that fits the L2 cache is read from it again and again.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint READS = 256;
layout(set = 0, binding = 0) restrict readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform P { uint n4; } pc;
void main() {
    uint tid = gl_GlobalInvocationID.x;
    uint total = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint mask = pc.n4 - 1u;
    uvec4 acc = uvec4(0u);
    for (uint i = 0u; i < READS; i += 8u) {
        uvec4 v[8];
        for (uint j = 0u; j < 8u; j++) {
            v[j] = src[(tid + (i + j) * total) & mask];
        }
        for (uint j = 0u; j < 8u; j++) {
            acc ^= v[j];
        }
    }
    dst[tid] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}
