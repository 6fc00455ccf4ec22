#version 450
// triad_vec4: a = b + s * c on one vec4 per invocation (128-bit loads and
// stores); the invocation just past the last whole vec4 does the n % 4 tail
// through the scalar view of each buffer.
//
// Specialization: 0 = workgroup size. Push constants: n (elements), s.

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) writeonly buffer A4 { vec4 a4[]; };
layout(set = 0, binding = 0) writeonly buffer A1 { float a1[]; };
layout(set = 0, binding = 1) restrict readonly buffer B4 { vec4 b4[]; };
layout(set = 0, binding = 1) restrict readonly buffer B1 { float b1[]; };
layout(set = 0, binding = 2) restrict readonly buffer C4 { vec4 c4[]; };
layout(set = 0, binding = 2) restrict readonly buffer C1 { float c1[]; };

layout(push_constant) uniform Params { uint n; float s; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint n4 = pc.n / 4u;
    if (i < n4) {
        a4[i] = b4[i] + pc.s * c4[i];
    } else if (i == n4) {
        for (uint j = n4 * 4u; j < pc.n; j++) {
            a1[j] = b1[j] + pc.s * c1[j];
        }
    }
}
