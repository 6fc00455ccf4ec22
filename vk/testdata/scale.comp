#version 450
// b[i] = a[i] * mul + add for i < n. The workgroup size is
// specialization constant 0.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Push {
	uint n;
	uint mul;
	uint add;
} p;
layout(set = 0, binding = 0) readonly buffer In { uint a[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint b[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		b[i] = a[i] * p.mul + p.add;
	}
}
