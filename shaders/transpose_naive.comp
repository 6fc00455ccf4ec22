#version 450
// transpose_naive: out (N x M) = transpose(in (M x N)), row-major, one
// element per invocation. Reads are coalesced along a row of in; writes
// stride by M floats, so every write touches its own memory segment: the
// baseline that tiling is measured against.
//
// Specialization: 0, 1 = workgroup size in x (columns of in) and y (rows).
// Push constants: M, N.

layout(local_size_x_id = 0, local_size_y_id = 1) in;

layout(set = 0, binding = 0) restrict readonly buffer In { float src[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Out { float dst[]; };

layout(push_constant) uniform Params { uint M; uint N; } pc;

void main() {
    uint col = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (row < pc.M && col < pc.N) {
        dst[col * pc.M + row] = src[row * pc.N + col];
    }
}
