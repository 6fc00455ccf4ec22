#version 450
// Does nothing: the round-trip benchmark measures everything else. It
// declares one storage buffer so that a dispatch binds a descriptor set.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; };

void main() {}
