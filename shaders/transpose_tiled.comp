#version 450
// transpose_tiled: out (N x M) = transpose(in (M x N)) through a TILE x TILE
// tile in shared memory, TILE = the workgroup's width. A workgroup of
// TILE x ROWS invocations reads the tile row by row (coalesced), each
// invocation taking TILE / ROWS rows, and writes the transposed tile row by
// row (coalesced again). The tile's rows are TILE + 1 floats long so that
// reading a column of it touches TILE different banks, not one.
//
// Specialization: 0 = TILE (workgroup width), 1 = ROWS (workgroup height;
// TILE must be a multiple of it). Push constants: M, N.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1) in;

layout(set = 0, binding = 0) restrict readonly buffer In { float src[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Out { float dst[]; };

layout(push_constant) uniform Params { uint M; uint N; } pc;

const uint TILE = gl_WorkGroupSize.x;
const uint ROWS = gl_WorkGroupSize.y;

shared float tile[TILE][TILE + 1u];

void main() {
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint col0 = gl_WorkGroupID.x * TILE;  // first column of in
    uint row0 = gl_WorkGroupID.y * TILE;  // first row of in
    uint col = col0 + tx;
    if (row0 + TILE <= pc.M && col0 + TILE <= pc.N) {
        // Interior tile: no bounds checks.
        [[unroll]] for (uint r = ty; r < TILE; r += ROWS) {
            tile[r][tx] = src[(row0 + r) * pc.N + col];
        }
        barrier();
        [[unroll]] for (uint r = ty; r < TILE; r += ROWS) {
            dst[(col0 + r) * pc.M + row0 + tx] = tile[tx][r];
        }
    } else {
        [[unroll]] for (uint r = ty; r < TILE; r += ROWS) {
            if (row0 + r < pc.M && col < pc.N) {
                tile[r][tx] = src[(row0 + r) * pc.N + col];
            }
        }
        barrier();
        // Out row col0 + r holds in's column col0 + r; out column row0 + tx
        // holds in's row row0 + tx, which tile[tx][r] has.
        [[unroll]] for (uint r = ty; r < TILE; r += ROWS) {
            if (col0 + r < pc.N && row0 + tx < pc.M) {
                dst[(col0 + r) * pc.M + row0 + tx] = tile[tx][r];
            }
        }
    }
}
