#version 450
// histogram: bins[v % 256] += 1 for every value v of x, with atomics: a
// kernel that accumulates into its output, so every run must start from
// zeroed bins.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Push { uint n; } p;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) buffer Bins { uint bins[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		atomicAdd(bins[x[i] & 255u], 1u);
	}
}
