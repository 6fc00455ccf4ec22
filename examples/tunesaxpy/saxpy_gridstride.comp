// z = a*x + y, with a fixed number of workgroups that stride over the
// whole array: fewer, longer-lived invocations.
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
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		z[i] = p.a * x[i] + y[i];
	}
}
