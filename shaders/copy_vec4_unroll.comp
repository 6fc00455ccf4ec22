#version 450
// copy_vec4_unroll: each invocation moves U uvec4s, all U loads issued before
// the first store, so that U * 16 bytes per invocation are in flight: what a
// high-latency, high-bandwidth memory needs (Little's law). A workgroup
// covers U * WG consecutive uvec4s; invocation t takes t, t + WG, ... so that
// each of the U loads is coalesced across the workgroup.
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
    uint n4 = pc.n / 4u;
    uint base = group * WG * U + gl_LocalInvocationID.x;
    uvec4 v[U];
    if (group * WG * U + WG * U <= n4) {
        // Whole block in range: no per-access checks on the hot path.
        [[unroll]] for (uint u = 0u; u < U; u++) {
            v[u] = src4[base + u * WG];
        }
        [[unroll]] for (uint u = 0u; u < U; u++) {
            dst4[base + u * WG] = v[u];
        }
    } else {
        [[unroll]] for (uint u = 0u; u < U; u++) {
            uint i = base + u * WG;
            if (i < n4) {
                v[u] = src4[i];
            }
        }
        [[unroll]] for (uint u = 0u; u < U; u++) {
            uint i = base + u * WG;
            if (i < n4) {
                dst4[i] = v[u];
            }
        }
    }
    if (group == 0u && gl_LocalInvocationID.x == 0u) {
        for (uint j = n4 * 4u; j < pc.n; j++) {
            dst1[j] = src1[j];
        }
    }
}
