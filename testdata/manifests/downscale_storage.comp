#version 450
// Halves an image in each direction: each texel of dst is the mean of a
// 2×2 block of src, which is bound as a storage image and read with
// imageLoad, no sampler involved.
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;

void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	if (any(greaterThanEqual(p, imageSize(dst)))) {
		return;
	}
	ivec2 q = 2 * p;
	vec4 sum = imageLoad(src, q) + imageLoad(src, q + ivec2(1, 0))
		+ imageLoad(src, q + ivec2(0, 1)) + imageLoad(src, q + ivec2(1, 1));
	imageStore(dst, p, sum * 0.25);
}
