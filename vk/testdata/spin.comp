#version 450
// Each invocation runs a xorshift generator for p.rounds rounds of 4096
// steps and stores the result, so that tests can keep a submission in
// flight: its time grows with the workgroups dispatched and with p.rounds.
// A linear generator would not do (compilers sum it up in closed form),
// and one invocation spinning long would not either: lavapipe's loop
// limiter ends an invocation's loops after 65535 iterations.
layout(local_size_x = 1) in;
layout(push_constant) uniform Push { uint rounds; } p;
layout(set = 0, binding = 0) buffer Data { uint v[]; };

void main() {
	uint x = v[0] | 1u;
	for (uint r = 0u; r < p.rounds; r++) {
		for (uint i = 0u; i < 4096u; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			x += i;
		}
	}
	v[(gl_WorkGroupID.x + gl_WorkGroupID.y) & 63u] = x;
}
