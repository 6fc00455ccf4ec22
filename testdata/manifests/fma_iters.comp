#version 450
// y = x after p.iters rounds of v = v*a + b, with a = 1 and b = 0 given at
// run time: the result is x whatever the count, which the compiler cannot
// know, so the time grows with the count and the output does not. The A/B
// gate's tests use it as a kernel made slower by a known amount.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Push {
	uint n;
	uint iters;
	float a;
	float b;
} p;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i >= p.n) {
		return;
	}
	float v = x[i];
	for (uint k = 0; k < p.iters; k++) {
		v = fma(v, p.a, p.b);
	}
	y[i] = v;
}
