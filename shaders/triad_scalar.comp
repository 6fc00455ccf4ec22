#version 450
// triad_scalar: a[i] = b[i] + s * c[i] (STREAM's triad), one float per
// invocation.
//
// Specialization: 0 = workgroup size. Push constants: n (elements), s.
// The grid may be folded into y; the group's linear index is
// y * numGroups.x + x.

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict writeonly buffer A { float a[]; };
layout(set = 0, binding = 1) restrict readonly buffer B { float b[]; };
layout(set = 0, binding = 2) restrict readonly buffer C { float c[]; };

layout(push_constant) uniform Params { uint n; float s; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i < pc.n) {
        a[i] = b[i] + pc.s * c[i];
    }
}
