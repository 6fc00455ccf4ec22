#version 450
// transpose_tiled_vec4: out (N x M) = transpose(in (M x N)) through a
// TILE x TILE tile in shared memory, moving 16 bytes per load and per store:
// a workgroup of (TILE / 4) x ROWS invocations reads each row of the tile as
// vec4s, writes it into the tile as four floats, and writes each row of the
// transposed tile as vec4s gathered from four rows of the tile. A quarter of
// transpose_tiled's memory instructions for the same bytes. The tile's rows
// are TILE + 1 floats long: both the stores of a read row and the loads of a
// written row then fall in different banks across a subgroup.
//
// The vec4 paths need 16-byte aligned rows (N % 4 == 0 for in, M % 4 == 0
// for out) and a whole tile; other tiles take a checked scalar path.
//
// A workgroup moves TPW tiles, one below the other (rows of in), reusing
// its tile between them: fewer, longer-lived workgroups, each with more
// memory traffic in flight.
//
// Specialization: 0 = TILE / 4 (workgroup width), 1 = ROWS (workgroup
// height; TILE must be a multiple of it), 2 = TPW (tiles per workgroup),
// 3 = DOWN (the order of the tiles over the workgroups).
// Push constants: M, N.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const uint TPW = 1;
// DOWN = 1 gives consecutive workgroups the tiles down a column of in
// (across a row of out), so that the writes of the workgroups in flight
// fall together in out's rows; 0 gives them the tiles along a row of in.
layout(constant_id = 3) const uint DOWN = 0;

layout(set = 0, binding = 0) restrict readonly buffer In4 { vec4 src4[]; };
layout(set = 0, binding = 0) restrict readonly buffer In1 { float src1[]; };
layout(set = 0, binding = 1) writeonly buffer Out4 { vec4 dst4[]; };
layout(set = 0, binding = 1) writeonly buffer Out1 { float dst1[]; };

layout(push_constant) uniform Params { uint M; uint N; } pc;

const uint TX = gl_WorkGroupSize.x;
const uint TILE = 4u * TX;
const uint ROWS = gl_WorkGroupSize.y;

shared float tile[TILE][TILE + 1u];

// moveTile transposes the tile whose first row of in is row0.
void moveTile(uint row0, uint col0) {
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    bool whole = row0 + TILE <= pc.M && col0 + TILE <= pc.N;
    if (whole && (pc.N & 3u) == 0u) {
        [[unroll]] for (uint r = ty; r < TILE; r += ROWS) {
            vec4 v = src4[((row0 + r) * pc.N + col0) / 4u + tx];
            tile[r][4u * tx] = v.x;
            tile[r][4u * tx + 1u] = v.y;
            tile[r][4u * tx + 2u] = v.z;
            tile[r][4u * tx + 3u] = v.w;
        }
    } else {
        [[unroll]] for (uint r = ty; r < TILE; r += ROWS) {
            [[unroll]] for (uint j = 0u; j < 4u; j++) {
                uint col = col0 + 4u * tx + j;
                if (row0 + r < pc.M && col < pc.N) {
                    tile[r][4u * tx + j] = src1[(row0 + r) * pc.N + col];
                }
            }
        }
    }
    barrier();
    // Out row col0 + c holds in's column col0 + c; its columns row0 + 4tx
    // ... + 3 hold in's rows row0 + 4tx ... + 3, which tile[4tx + j][c] has.
    if (whole && (pc.M & 3u) == 0u) {
        [[unroll]] for (uint c = ty; c < TILE; c += ROWS) {
            vec4 v = vec4(tile[4u * tx][c], tile[4u * tx + 1u][c], tile[4u * tx + 2u][c], tile[4u * tx + 3u][c]);
            dst4[((col0 + c) * pc.M + row0) / 4u + tx] = v;
        }
    } else {
        [[unroll]] for (uint c = ty; c < TILE; c += ROWS) {
            [[unroll]] for (uint j = 0u; j < 4u; j++) {
                uint row = row0 + 4u * tx + j;
                if (col0 + c < pc.N && row < pc.M) {
                    dst1[(col0 + c) * pc.M + row] = tile[4u * tx + j][c];
                }
            }
        }
    }
}

void main() {
    uvec2 g = DOWN == 1u ? gl_WorkGroupID.yx : gl_WorkGroupID.xy;
    uint col0 = g.x * TILE; // first column of in
    for (uint t = 0u; t < TPW; t++) {
        uint row0 = (g.y * TPW + t) * TILE; // first row of in
        if (row0 >= pc.M) {
            break;
        }
        if (t > 0u) {
            barrier(); // every read of the last tile is done
        }
        moveTile(row0, col0);
    }
}
