#version 450
// x[i] = x[i]*3 + push.k for i < push.n: each step depends on the one
// before, and the order of steps changes the result, so it shows that
// submissions ran in order.
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
	uint k;
	uint n;
} push;

layout(std430, set = 0, binding = 0) buffer X { uint data[]; } x;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < push.n) {
		x.data[i] = x.data[i] * 3u + push.k;
	}
}
