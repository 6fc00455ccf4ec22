#version 450
// y = A x for a row-major M x K matrix, one row per invocation, with the
// sizes compiled in as specialization constants (a driver can then unroll
// the loop over K) instead of passed as push constants.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint K = 1;

layout(std430, binding = 0) readonly buffer Matrix { float A[]; };
layout(std430, binding = 1) readonly buffer Vector { float x[]; };
layout(std430, binding = 2) writeonly buffer Result { float y[]; };

void main() {
    uint row = gl_GlobalInvocationID.x;
    if (row >= M) {
        return;
    }
    float acc = 0.0;
    for (uint k = 0; k < K; k++) {
        acc += A[row * K + k] * x[k];
    }
    y[row] = acc;
}
