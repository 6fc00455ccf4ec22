#version 450
// pushmat: a push-constant block with a matrix, which hal.ParseSPIRV does
// not size. The validation tests create it with too short a push-constant
// range, so that only the validation layer can object.
layout(local_size_x = 1) in;
layout(push_constant) uniform P { mat4 m; uint n; } p;
layout(set = 0, binding = 0) buffer B { float x[]; };
void main() {
	x[p.n] = p.m[3][3];
}
