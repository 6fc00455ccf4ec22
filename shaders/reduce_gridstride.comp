#version 450
// reduce_gridstride: a sum reduction in two passes of this one kernel. A
// fixed grid of G workgroups walks the input in strides of the grid's size,
// U vec4 loads in flight per invocation per step, each into its own
// accumulator (so the adds do not serialise on one register); the workgroup
// then combines them with subgroupAdd and shared memory and writes one
// partial per group. The second pass runs one workgroup over the G
// partials.
//
// Specialization: 0 = workgroup size (WG), 1 = U. Push constants: n.
// Group (0,0)'s first invocation also adds the n % 4 tail.

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint U = 4;

layout(set = 0, binding = 0) restrict readonly buffer In4 { vec4 x4[]; };
layout(set = 0, binding = 0) restrict readonly buffer In1 { float x1[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Out { float partial[]; };

layout(push_constant) uniform Params { uint n; } pc;

const uint WG = gl_WorkGroupSize.x;
shared float s[WG];

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint tid = gl_LocalInvocationID.x;
    uint n4 = pc.n / 4u;
    uint stride = groups * WG * U;
    uint i = group * WG * U + tid;
    vec4 acc[U];
    vec4 v[U];
    [[unroll]] for (uint u = 0u; u < U; u++) {
        acc[u] = vec4(0.0);
    }
    for (; i + (U - 1u) * WG < n4; i += stride) {
        [[unroll]] for (uint u = 0u; u < U; u++) {
            v[u] = x4[i + u * WG];
        }
        [[unroll]] for (uint u = 0u; u < U; u++) {
            acc[u] += v[u];
        }
    }
    if (i < n4) {
        [[unroll]] for (uint u = 0u; u < U; u++) {
            if (i + u * WG < n4) {
                acc[u] += x4[i + u * WG];
            }
        }
    }
    if (group == 0u && tid == 0u) {
        vec4 t = vec4(0.0);
        for (uint j = 0u; j < pc.n - n4 * 4u; j++) {
            t[j] = x1[n4 * 4u + j];
        }
        acc[0] += t;
    }
    // Fold the U accumulators pairwise.
    [[unroll]] for (uint h = 1u; h < U; h *= 2u) {
        [[unroll]] for (uint u = 0u; u + h < U; u += 2u * h) {
            acc[u] += acc[u + h];
        }
    }
    float sum = subgroupAdd((acc[0].x + acc[0].y) + (acc[0].z + acc[0].w));
    if (subgroupElect()) {
        s[gl_SubgroupID] = sum;
    }
    barrier();
    if (gl_SubgroupID == 0u) {
        float t = 0.0;
        for (uint j = gl_SubgroupInvocationID; j < gl_NumSubgroups; j += gl_SubgroupSize) {
            t += s[j];
        }
        t = subgroupAdd(t);
        if (subgroupElect()) {
            partial[group] = t;
        }
    }
}
