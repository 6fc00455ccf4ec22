#version 450
// Does nothing: for dispatches whose only purpose is to be recorded.
layout(local_size_x = 1) in;

void main() {}
