#version 450
// out[i] = i*MUL + push.add for i < push.n. The workgroup size and MUL are
// specialization constants, so one module tests that both take effect.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint MUL = 1;

layout(push_constant) uniform Push {
	uint add;
	uint n;
} push;

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint data[]; } outb;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < push.n) {
		outb.data[i] = i * MUL + push.add;
	}
}
