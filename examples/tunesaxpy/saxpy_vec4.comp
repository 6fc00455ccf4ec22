// z = a*x + y, four elements per invocation with 16-byte loads and stores.
// The buffers are also declared as float arrays at the same bindings, for
// the last n%4 elements.
#version 450
layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
	uint n;
	float a;
} p;

layout(std430, binding = 0) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 1) readonly buffer Y4 { vec4 y4[]; };
layout(std430, binding = 2) writeonly buffer Z4 { vec4 z4[]; };
layout(std430, binding = 0) readonly buffer X1 { float x1[]; };
layout(std430, binding = 1) readonly buffer Y1 { float y1[]; };
layout(std430, binding = 2) writeonly buffer Z1 { float z1[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (4 * i + 3 < p.n) {
		z4[i] = p.a * x4[i] + y4[i];
	} else {
		for (uint j = 4 * i; j < p.n; j++) {
			z1[j] = p.a * x1[j] + y1[j];
		}
	}
}
