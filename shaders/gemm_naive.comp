#version 450
// gemm_naive: C (M x N) = A (M x K) * B (K x N), all row-major fp32, one
// element of C per invocation, reading A and B straight from memory. The
// baseline for the tiled kernels.
//
// Specialization: 0, 1 = workgroup size in x (columns of C) and y (rows).
// Push constants: M, N, K.

layout(local_size_x_id = 0, local_size_y_id = 1) in;

layout(set = 0, binding = 0) restrict readonly buffer A { float a[]; };
layout(set = 0, binding = 1) restrict readonly buffer B { float b[]; };
layout(set = 0, binding = 2) restrict writeonly buffer C { float c[]; };

layout(push_constant) uniform Params { uint M; uint N; uint K; } pc;

void main() {
    uint col = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (row >= pc.M || col >= pc.N) {
        return;
    }
    float acc = 0.0;
    for (uint k = 0u; k < pc.K; k++) {
        acc = fma(a[row * pc.K + k], b[k * pc.N + col], acc);
    }
    c[row * pc.N + col] = acc;
}
