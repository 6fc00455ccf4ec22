// scale.comp with a bug that a quick test can miss: it stops one element
// short. The examples tune it beside scale.comp to show that a candidate
// that computes a wrong result never wins, however fast it is.
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
	if (i + 1 < p.n) {
		y[i] = p.a * x[i];
	}
}
