// z = a*x + y, one element per invocation. The workgroup size is
// specialization constant 0, so that one module serves several candidates.
#version 450
layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
	uint n;
	float a;
} p;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer Z { float z[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		z[i] = p.a * x[i] + y[i];
	}
}
