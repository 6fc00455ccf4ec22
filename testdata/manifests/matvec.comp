#version 450
// y = A x for a row-major M x K matrix: one row per invocation.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Matrix { float A[]; };
layout(std430, binding = 1) readonly buffer Vector { float x[]; };
layout(std430, binding = 2) writeonly buffer Result { float y[]; };

layout(push_constant) uniform Dims {
    uint M;
    uint K;
} dims;

void main() {
    uint row = gl_GlobalInvocationID.x;
    if (row >= dims.M) {
        return;
    }
    float acc = 0.0;
    for (uint k = 0; k < dims.K; k++) {
        acc += A[row * dims.K + k] * x[k];
    }
    y[row] = acc;
}
