#version 450
// scale: y = s * x, the tuner tests' operation. Specialization constants
// make its candidates differ in known ways: SPIN adds a data-dependent loop
// (a slower candidate), WRONG adds 1 to every output (a candidate that
// fails verification).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SPIN = 0;
layout(constant_id = 2) const uint WRONG = 0;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params { uint n; float s; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    float v = x[i] * pc.s;
    float acc = v;
    for (uint k = 0u; k < SPIN; k++) {
        acc = acc * 0.999 + x[(i + k) % pc.n];
    }
    if (acc == 123456.789) {
        v += 1.0;
    }
    y[i] = v + float(WRONG);
}
