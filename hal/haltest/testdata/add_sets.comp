#version 450
// c[i] = a[i] + b[i] for i < push.n (uint, wrapping), with a in set 0,
// nothing in set 1, and b and c in set 2.
layout(local_size_x = 64) in;

layout(push_constant) uniform Push { uint n; } push;

layout(std430, set = 0, binding = 0) readonly buffer A { uint data[]; } a;
layout(std430, set = 2, binding = 0) readonly buffer B { uint data[]; } b;
layout(std430, set = 2, binding = 1) writeonly buffer C { uint data[]; } c;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < push.n) {
		c.data[i] = a.data[i] + b.data[i];
	}
}
