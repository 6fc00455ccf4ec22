// y[i] = 2 * x[i] for the N elements of blocks of a fixed size, N a
// specialization constant: a kernel whose module says what its buffers
// hold.
#version 450
layout(local_size_x = 64) in;
layout(constant_id = 1) const uint N = 256;
layout(std430, binding = 0) readonly buffer X { float x[N]; };
layout(std430, binding = 1) writeonly buffer Y { float y[N]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < N) {
		y[i] = 2.0 * x[i];
	}
}
