#version 450
// Each invocation runs push.iters rounds of 16 steps of a mixing generator
// (a linear congruential step, then an xor-shift, so that no compiler can
// fold steps together) seeded with its index, and stores the result: work
// that grows linearly with push.iters.
//
// llvmpipe (Mesa's CPU driver, lavapipe) ends a shader's loops after 65535
// iterations in all, so push.iters must stay below that; longer work takes
// more dispatches.
layout(local_size_x = 64) in;

layout(push_constant) uniform Push { uint iters; } push;

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint data[]; } outb;

#define STEP x = x * 1664525u + 1013904223u; x ^= x >> 16;
#define STEP4 STEP STEP STEP STEP
#define STEP16 STEP4 STEP4 STEP4 STEP4

void main() {
	uint x = gl_GlobalInvocationID.x;
	for (uint k = 0u; k < push.iters; k++) {
		STEP16
	}
	outb.data[gl_GlobalInvocationID.x] = x;
}
