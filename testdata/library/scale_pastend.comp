// scale.comp with a bug that checking the elements cannot see: its last
// invocation also writes an element 7 past the end of y. The tests show
// that the tuner finds it through the slack after its buffers.
#version 450
layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
	uint n;
	float a;
} p;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		y[i] = p.a * x[i];
	}
	if (i == p.n - 1u) {
		y[p.n + 7u] = 0.0;
	}
}
