#version 450
// reduce_tree: one pass of a sum reduction. Each workgroup sums a tile of
// WG * EPT consecutive floats and writes one partial sum: each invocation
// adds EPT elements strided by WG (coalesced loads), then the workgroup
// combines its WG sums through a tree in shared memory. Run again on the
// partials until one value is left.
//
// Specialization: 0 = workgroup size (WG, a power of two), 1 = EPT.
// Push constants: n (elements of the input).

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint EPT = 4;

layout(set = 0, binding = 0) restrict readonly buffer In { float x[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Out { float partial[]; };

layout(push_constant) uniform Params { uint n; } pc;

const uint WG = gl_WorkGroupSize.x;
shared float s[WG];

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint tid = gl_LocalInvocationID.x;
    uint base = group * WG * EPT + tid;
    float sum = 0.0;
    [[unroll]] for (uint e = 0u; e < EPT; e++) {
        uint i = base + e * WG;
        if (i < pc.n) {
            sum += x[i];
        }
    }
    s[tid] = sum;
    barrier();
    for (uint h = WG / 2u; h > 0u; h >>= 1) {
        if (tid < h) {
            s[tid] += s[tid + h];
        }
        barrier();
    }
    if (tid == 0u) {
        partial[group] = s[0];
    }
}
