#version 450
// y = A x for a row-major M x K matrix, one row per invocation, with x
// first copied into shared memory: an array of K floats, K a
// specialization constant, so the shared memory the kernel needs grows
// with the problem.
layout(constant_id = 0) const uint WG = 64;
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint K = 1;

layout(std430, binding = 0) readonly buffer Matrix { float A[]; };
layout(std430, binding = 1) readonly buffer Vector { float x[]; };
layout(std430, binding = 2) writeonly buffer Result { float y[]; };

shared float xs[K];

void main() {
    for (uint k = gl_LocalInvocationID.x; k < K; k += WG) {
        xs[k] = x[k];
    }
    barrier();
    uint row = gl_GlobalInvocationID.x;
    if (row >= M) {
        return;
    }
    float acc = 0.0;
    for (uint k = 0; k < K; k++) {
        acc += A[row * K + k] * xs[k];
    }
    y[row] = acc;
}
