#version 450
// transpose_block4: out (N x M) = in^T for in M x N, row-major floats,
// without shared memory or barriers: each invocation moves a 4 x 4 block,
// four 16-byte loads from four rows of in, transposed in registers, four
// 16-byte stores to four rows of out. Invocation (x, y) of the grid takes
// in's rows 4y .. 4y+3 and columns 4x .. 4x+3. A subgroup of BX x BY
// invocations (BX = workgroup width) reads BY groups of four rows, BX
// blocks (16 BX bytes) of each, and writes BX groups of four rows of out,
// BY blocks (16 BY bytes) of each: with BX = 4 and BY = 8, 64-byte reads
// and 128-byte writes, every 32-byte sector whole either way.
//
// Sizes whose M or N is not a multiple of 4 take a checked path of single
// floats.
//
// Specialization: 0 = BX, 1 = BY (workgroup size). Push constants: M, N.
// Bindings: 0 = in, 1 = out.

layout(local_size_x_id = 0, local_size_y_id = 1) in;

layout(set = 0, binding = 0) restrict readonly buffer In4 { vec4 src4[]; };
layout(set = 0, binding = 0) restrict readonly buffer In1 { float src1[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Out4 { vec4 dst4[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Out1 { float dst1[]; };

layout(push_constant) uniform Params { uint M; uint N; } pc;

void main() {
    uint c0 = 4u * gl_GlobalInvocationID.x; // first column of in
    uint r0 = 4u * gl_GlobalInvocationID.y; // first row of in
    if (r0 >= pc.M || c0 >= pc.N) {
        return;
    }
    if (((pc.M | pc.N) & 3u) == 0u) {
        // r0 + 4 <= M and c0 + 4 <= N: both are multiples of 4.
        uint n4 = pc.N / 4u;
        uint m4 = pc.M / 4u;
        uint i = r0 * n4 + c0 / 4u;
        vec4 a = src4[i];
        vec4 b = src4[i + n4];
        vec4 c = src4[i + 2u * n4];
        vec4 d = src4[i + 3u * n4];
        uint o = c0 * m4 + r0 / 4u;
        dst4[o] = vec4(a.x, b.x, c.x, d.x);
        dst4[o + m4] = vec4(a.y, b.y, c.y, d.y);
        dst4[o + 2u * m4] = vec4(a.z, b.z, c.z, d.z);
        dst4[o + 3u * m4] = vec4(a.w, b.w, c.w, d.w);
        return;
    }
    for (uint r = r0; r < min(r0 + 4u, pc.M); r++) {
        for (uint c = c0; c < min(c0 + 4u, pc.N); c++) {
            dst1[c * pc.M + r] = src1[r * pc.N + c];
        }
    }
}
