#version 450
// RMS normalization of each row, one invocation per row: the plain
// reference for rms_norm_subgroup.comp.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, binding = 1) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint ncols;
    float eps;
    uint nrows;
} p;

void main() {
    uint row = gl_GlobalInvocationID.x;
    if (row >= p.nrows) {
        return;
    }
    uint base = row * p.ncols;
    float s = 0.0;
    for (uint c = 0; c < p.ncols; c++) {
        s += x[base + c] * x[base + c];
    }
    float scale = inversesqrt(s / float(p.ncols) + p.eps);
    for (uint c = 0; c < p.ncols; c++) {
        y[base + c] = x[base + c] * scale;
    }
}
