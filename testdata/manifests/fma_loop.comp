#version 450
// Multiply-add throughput: each invocation applies y = y*a + b LOOP times
// to its element, LOOP and N specialization constants. With a = 1 and
// b = 1 on small integers the result is exact: x[i] + LOOP.
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint N = 1;
layout(constant_id = 1) const uint LOOP = 16;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Coefficients {
    float a;
    float b;
};

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= N) {
        return;
    }
    float v = x[i];
    for (uint k = 0; k < LOOP; k++) {
        v = v * a + b;
    }
    y[i] = v;
}
