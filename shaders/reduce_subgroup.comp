#version 450
// reduce_subgroup: one pass of a sum reduction using subgroup arithmetic.
// Each workgroup sums WG * U vec4s (16-byte loads, U per invocation strided
// by WG) and writes one partial: each invocation folds its vec4s, each
// subgroup adds its invocations' sums with subgroupAdd, and the first
// subgroup adds the per-subgroup sums kept in shared memory. Run again on
// the partials until one value is left.
//
// Specialization: 0 = workgroup size (WG), 1 = U. Push constants: n.
// The input is declared as vec4[] and float[] on one binding; the
// invocation whose vec4 would straddle n reads the n % 4 tail as floats.

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
// One slot per subgroup; WG slots cover even a subgroup size of 1.
shared float s[WG];

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint tid = gl_LocalInvocationID.x;
    uint n4 = pc.n / 4u;
    uint base = group * WG * U + tid;
    vec4 acc = vec4(0.0);
    [[unroll]] for (uint u = 0u; u < U; u++) {
        uint i = base + u * WG;
        if (i < n4) {
            acc += x4[i];
        } else if (i == n4) {
            vec4 t = vec4(0.0);
            for (uint j = 0u; j < pc.n - n4 * 4u; j++) {
                t[j] = x1[n4 * 4u + j];
            }
            acc += t;
        }
    }
    float sum = subgroupAdd((acc.x + acc.y) + (acc.z + acc.w));
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
