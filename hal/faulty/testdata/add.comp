// out[i] = a[i] + b[i], then reps steps of an LCG: reps = 0 is plain
// addition, and a large reps makes a submission that runs long enough to
// still be in flight when the device is lost. llvmpipe ends every loop
// after 65535 iterations, so reps must stay below that.
#version 450

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) readonly buffer B { uint b[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint o[]; };

layout(push_constant) uniform Params {
	uint n;
	uint reps;
} params;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i >= params.n) {
		return;
	}
	uint x = a[i] + b[i];
	for (uint r = 0u; r < params.reps; r++) {
		x = x * 1664525u + 1013904223u;
	}
	o[i] = x;
}
