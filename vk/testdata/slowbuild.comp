#version 450
// Quick to run, slow to build: each level calls the one below twice with
// other arguments, and a driver inlines every call, so these few
// kilobytes of SPIR-V (glslc -O0 keeps the calls) become 256 copies of
// step in one expression. lavapipe builds it (LLVM) at its first
// dispatch, for seconds (TestHangTimeoutBuild); one workgroup then runs
// in microseconds. Each build gives salt a value of its own, so that no
// cache of built kernels has it.
layout(local_size_x = 1) in;
layout(constant_id = 0) const uint salt = 1u;
layout(set = 0, binding = 0) buffer Data { uint v[]; };

uint step(uint x, uint k) {
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x * (2u * k + salt) + v[k & 63u];
}

uint level1(uint x, uint k) { return step(x, k) ^ step(x * 2654435761u + 1u, k + 1u); }
uint level2(uint x, uint k) { return level1(x, k) ^ level1(x * 162013u + 2u, k + 2u); }
uint level3(uint x, uint k) { return level2(x, k) ^ level2(x * 243019u + 3u, k + 3u); }
uint level4(uint x, uint k) { return level3(x, k) ^ level3(x * 324025u + 4u, k + 4u); }
uint level5(uint x, uint k) { return level4(x, k) ^ level4(x * 405031u + 5u, k + 5u); }
uint level6(uint x, uint k) { return level5(x, k) ^ level5(x * 486037u + 6u, k + 6u); }
uint level7(uint x, uint k) { return level6(x, k) ^ level6(x * 567043u + 7u, k + 7u); }
uint level8(uint x, uint k) { return level7(x, k) ^ level7(x * 648049u + 8u, k + 8u); }

void main() {
	v[gl_WorkGroupID.x & 63u] = level8(v[0], gl_WorkGroupID.x);
}
