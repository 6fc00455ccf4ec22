#version 450
// gemm_tiled: C = A * B (row-major fp32) through T x T tiles of A and B in
// shared memory, T = the workgroup's width and height; one element of C per
// invocation. Each element of A and B is read from memory once per tile row
// or column instead of once per product. Out-of-range elements of the
// tiles are zero, so any M, N and K work.
//
// Specialization: 0, 1 = T (both). Push constants: M, N, K.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1) in;

layout(set = 0, binding = 0) restrict readonly buffer A { float a[]; };
layout(set = 0, binding = 1) restrict readonly buffer B { float b[]; };
layout(set = 0, binding = 2) restrict writeonly buffer C { float c[]; };

layout(push_constant) uniform Params { uint M; uint N; uint K; } pc;

const uint T = gl_WorkGroupSize.x;

shared float As[T][T];
shared float Bs[T][T];

void main() {
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint row = gl_WorkGroupID.y * T + ty;
    uint col = gl_WorkGroupID.x * T + tx;
    float acc = 0.0;
    for (uint k0 = 0u; k0 < pc.K; k0 += T) {
        As[ty][tx] = (row < pc.M && k0 + tx < pc.K) ? a[row * pc.K + k0 + tx] : 0.0;
        Bs[ty][tx] = (k0 + ty < pc.K && col < pc.N) ? b[(k0 + ty) * pc.N + col] : 0.0;
        barrier();
        [[unroll]] for (uint k = 0u; k < T; k++) {
            acc = fma(As[ty][k], Bs[k][tx], acc);
        }
        barrier();
    }
    if (row < pc.M && col < pc.N) {
        c[row * pc.N + col] = acc;
    }
}
