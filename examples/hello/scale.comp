#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint n; float a; } p;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		y[i] = p.a * x[i];
	}
}
