#version 450
// y = a*x + y on vec4s, UNROLL vectors per invocation in workgroups of WG:
// both are #defines, which glsl_space.json sets for each configuration of
// its space and vkbench compiles with glslc.
#ifndef WG
#error WG is not defined
#endif
#ifndef UNROLL
#error UNROLL is not defined
#endif
layout(local_size_x = WG) in;

layout(std430, binding = 0) readonly buffer XBuf { vec4 x[]; };
layout(std430, binding = 1) buffer YBuf { vec4 y[]; };

layout(push_constant) uniform Params {
    uint n4; // number of vec4s
    float a;
};

void main() {
    uint base = gl_WorkGroupID.x * WG * UNROLL + gl_LocalInvocationID.x;
    for (uint u = 0; u < UNROLL; u++) {
        uint i = base + u * WG;
        if (i < n4) {
            y[i] = a * x[i] + y[i];
        }
    }
}
