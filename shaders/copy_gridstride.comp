#version 450
// copy_gridstride: a fixed grid (a few workgroups per multiprocessor, chosen
// by the candidate, not by n) walks the whole buffer in strides of the grid's
// size, U uvec4s per invocation per step with every load issued before the
// stores. Fewer, longer-lived workgroups cost less scheduling than one
// workgroup per tile, and the loop keeps U * 16 bytes in flight per
// invocation.
//
// Specialization: 0 = workgroup size (WG), 1 = U. Push constants: n (words).
// Group (0,0)'s first invocation also copies the n % 4 tail words.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint U = 4;

layout(set = 0, binding = 0) restrict readonly buffer Src4 { uvec4 src4[]; };
layout(set = 0, binding = 0) restrict readonly buffer Src1 { uint src1[]; };
layout(set = 0, binding = 1) writeonly buffer Dst4 { uvec4 dst4[]; };
layout(set = 0, binding = 1) writeonly buffer Dst1 { uint dst1[]; };

layout(push_constant) uniform Params { uint n; } pc;

const uint WG = gl_WorkGroupSize.x;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint n4 = pc.n / 4u;
    uint stride = groups * WG * U;
    uint i = group * WG * U + gl_LocalInvocationID.x;
    uvec4 v[U];
    // Full steps: every one of the U accesses is in range.
    for (; i + (U - 1u) * WG < n4; i += stride) {
        [[unroll]] for (uint u = 0u; u < U; u++) {
            v[u] = src4[i + u * WG];
        }
        [[unroll]] for (uint u = 0u; u < U; u++) {
            dst4[i + u * WG] = v[u];
        }
    }
    // At most one partial step remains for this invocation.
    if (i < n4) {
        [[unroll]] for (uint u = 0u; u < U; u++) {
            if (i + u * WG < n4) {
                dst4[i + u * WG] = src4[i + u * WG];
            }
        }
    }
    if (group == 0u && gl_LocalInvocationID.x == 0u) {
        for (uint j = n4 * 4u; j < pc.n; j++) {
            dst1[j] = src1[j];
        }
    }
}
