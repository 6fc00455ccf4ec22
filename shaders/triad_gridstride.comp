#version 450
// triad_gridstride: a = b + s * c with a fixed grid walking the arrays in
// strides of the grid's size, U vec4s of b and of c loaded per invocation
// per step before any arithmetic, so that 2 * U * 16 bytes are in flight.
//
// Specialization: 0 = workgroup size (WG), 1 = U. Push constants: n, s.
// Group (0,0)'s first invocation also does the n % 4 tail.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint U = 4;

layout(set = 0, binding = 0) writeonly buffer A4 { vec4 a4[]; };
layout(set = 0, binding = 0) writeonly buffer A1 { float a1[]; };
layout(set = 0, binding = 1) restrict readonly buffer B4 { vec4 b4[]; };
layout(set = 0, binding = 1) restrict readonly buffer B1 { float b1[]; };
layout(set = 0, binding = 2) restrict readonly buffer C4 { vec4 c4[]; };
layout(set = 0, binding = 2) restrict readonly buffer C1 { float c1[]; };

layout(push_constant) uniform Params { uint n; float s; } pc;

const uint WG = gl_WorkGroupSize.x;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint n4 = pc.n / 4u;
    uint stride = groups * WG * U;
    uint i = group * WG * U + gl_LocalInvocationID.x;
    vec4 vb[U];
    vec4 vc[U];
    for (; i + (U - 1u) * WG < n4; i += stride) {
        [[unroll]] for (uint u = 0u; u < U; u++) {
            vb[u] = b4[i + u * WG];
            vc[u] = c4[i + u * WG];
        }
        [[unroll]] for (uint u = 0u; u < U; u++) {
            a4[i + u * WG] = vb[u] + pc.s * vc[u];
        }
    }
    if (i < n4) {
        [[unroll]] for (uint u = 0u; u < U; u++) {
            uint k = i + u * WG;
            if (k < n4) {
                a4[k] = b4[k] + pc.s * c4[k];
            }
        }
    }
    if (group == 0u && gl_LocalInvocationID.x == 0u) {
        for (uint j = n4 * 4u; j < pc.n; j++) {
            a1[j] = b1[j] + pc.s * c1[j];
        }
    }
}
