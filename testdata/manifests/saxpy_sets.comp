#version 450
// y = a*x + y, one element per invocation, with y in descriptor set 1
// (as ggml and ncnn kernels place some of their buffers).
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, set = 1, binding = 0) buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint n;
    float a;
} params;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < params.n) {
        y[i] = params.a * x[i] + y[i];
    }
}
