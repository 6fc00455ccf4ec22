#version 450
// copy_vec4: one 16-byte uvec4 per invocation, so each load and store is a
// 128-bit transaction. The last n % 4 words, which do not fill a uvec4, are
// copied word by word by the invocation just past the last whole uvec4.
//
// Specialization: 0 = workgroup size. Push constants: n (words).
// Each buffer is declared twice on one binding (as uvec4[] and as uint[]);
// Vulkan allows such aliasing, and the tail uses the scalar view so that no
// access ever reaches past n words.

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Src4 { uvec4 src4[]; };
layout(set = 0, binding = 0) restrict readonly buffer Src1 { uint src1[]; };
layout(set = 0, binding = 1) writeonly buffer Dst4 { uvec4 dst4[]; };
layout(set = 0, binding = 1) writeonly buffer Dst1 { uint dst1[]; };

layout(push_constant) uniform Params { uint n; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint n4 = pc.n / 4u;
    if (i < n4) {
        dst4[i] = src4[i];
    } else if (i == n4) {
        for (uint j = n4 * 4u; j < pc.n; j++) {
            dst1[j] = src1[j];
        }
    }
}
