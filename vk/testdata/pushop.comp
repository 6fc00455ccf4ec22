#version 450
// pushop: a push-constant block whose array is sized by an expression of a
// specialization constant (an OpSpecConstantOp), which package spirv does
// not evaluate. The validation tests create it with too short a
// push-constant range, so that only the validation layer can object.
layout(constant_id = 0) const uint L = 4;
layout(local_size_x = 1) in;
layout(push_constant) uniform P { uint n; float w[L * 2u]; } p;
layout(set = 0, binding = 0) buffer B { float x[]; };
void main() {
	x[p.n] = p.w[1];
}
