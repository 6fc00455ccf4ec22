#version 450
// y = A x for a row-major M x K matrix, one row per invocation, with x
// staged through shared memory a tile of T floats at a time: T a
// specialization constant, so the shared memory the kernel needs is what
// a manifest works out from the problem's K and its own params.
layout(constant_id = 0) const uint WG = 64;
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint K = 1;
layout(constant_id = 3) const uint T = 1;

layout(std430, binding = 0) readonly buffer Matrix { float A[]; };
layout(std430, binding = 1) readonly buffer Vector { float x[]; };
layout(std430, binding = 2) writeonly buffer Result { float y[]; };

shared float xs[T];

void main() {
    uint row = gl_GlobalInvocationID.x;
    float acc = 0.0;
    for (uint k0 = 0; k0 < K; k0 += T) {
        uint n = min(T, K - k0);
        barrier();
        for (uint k = gl_LocalInvocationID.x; k < n; k += WG) {
            xs[k] = x[k0 + k];
        }
        barrier();
        if (row < M) {
            for (uint k = 0; k < n; k++) {
                acc += A[row * K + k0 + k] * xs[k];
            }
        }
    }
    if (row < M) {
        y[row] = acc;
    }
}
