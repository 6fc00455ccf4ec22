#version 450
// y = a*x + y, with a read from a uniform buffer (its first component):
// a kernel that takes parameters in a uniform block, as many do.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, binding = 1) buffer YBuf { float y[]; };
layout(std140, binding = 2) uniform Coef { vec4 coef; };

layout(push_constant) uniform Params {
    uint n;
} params;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < params.n) {
        y[i] = coef.x * x[i] + y[i];
    }
}
