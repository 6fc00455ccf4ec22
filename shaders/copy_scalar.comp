#version 450
// copy_scalar: dst[i] = src[i] for i < n, one 32-bit word per invocation.
// The baseline every other copy is measured against: simple, coalesced, and
// limited by how few bytes each invocation keeps in flight.
//
// Specialization: 0 = workgroup size. Push constants: n (words).
// The grid may be folded into y when it has more groups than the device
// allows in x; the group's linear index is y * numGroups.x + x.

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Src { uint src[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Dst { uint dst[]; };

layout(push_constant) uniform Params { uint n; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i < pc.n) {
        dst[i] = src[i];
    }
}
