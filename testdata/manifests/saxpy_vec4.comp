#version 450
// y = a*x + y on vec4s, UNROLL vectors per invocation; the workgroup size
// is a specialization constant.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint UNROLL = 1;

layout(std430, binding = 0) readonly buffer XBuf { vec4 x[]; };
layout(std430, binding = 1) buffer YBuf { vec4 y[]; };

layout(push_constant) uniform Params {
    uint n4; // number of vec4s
    float a;
};

void main() {
    uint base = gl_WorkGroupID.x * gl_WorkGroupSize.x * UNROLL + gl_LocalInvocationID.x;
    for (uint u = 0; u < UNROLL; u++) {
        uint i = base + u * gl_WorkGroupSize.x;
        if (i < n4) {
            y[i] = a * x[i] + y[i];
        }
    }
}
