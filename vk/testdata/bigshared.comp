#version 450
// bigshared: 1 MiB of shared memory, more than any device allows. vk does
// not check a module's shared memory (the kernels package does, before a
// candidate is built), so only the validation layer objects when the
// pipeline is made: the validation tests' way to provoke a message.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { vec4 x[]; };
shared vec4 s[65536];
void main() {
	uint i = gl_LocalInvocationID.x;
	s[i * 1024u] = x[i];
	barrier();
	x[i] = s[(63u - i) * 1024u + 1023u];
}
