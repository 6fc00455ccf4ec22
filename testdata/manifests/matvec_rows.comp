#version 450
// y = A x for a row-major M x K matrix: one workgroup per row, its
// invocations splitting the row and adding in shared memory.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint THREADS = 128;

layout(std430, binding = 0) readonly buffer Matrix { float A[]; };
layout(std430, binding = 1) readonly buffer Vector { float x[]; };
layout(std430, binding = 2) writeonly buffer Result { float y[]; };

layout(push_constant) uniform Dims {
    uint M;
    uint K;
};

shared float sums[THREADS];

void main() {
    uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint t = gl_LocalInvocationID.x;
    float acc = 0.0;
    if (row < M) {
        for (uint k = t; k < K; k += THREADS) {
            acc += A[row * K + k] * x[k];
        }
    }
    sums[t] = acc;
    barrier();
    for (uint s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            sums[t] += sums[t + s];
        }
        barrier();
    }
    if (t == 0 && row < M) {
        y[row] = sums[0];
    }
}
