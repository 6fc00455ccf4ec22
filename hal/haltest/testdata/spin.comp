#version 450
// Each invocation runs push.iters steps of a linear congruential generator
// seeded with its index and stores the result: work that grows linearly
// with push.iters and that no compiler can fold away.
layout(local_size_x = 64) in;

layout(push_constant) uniform Push { uint iters; } push;

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint data[]; } outb;

void main() {
	uint x = gl_GlobalInvocationID.x;
	for (uint k = 0u; k < push.iters; k++) {
		x = x * 1664525u + 1013904223u;
	}
	outb.data[gl_GlobalInvocationID.x] = x;
}
