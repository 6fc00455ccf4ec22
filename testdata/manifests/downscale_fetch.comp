#version 450
// Halves an image in each direction: each texel of dst is the mean of a
// 2×2 block of src, the four texels fetched one by one from the sampled
// image (texelFetch ignores the sampler's filter).
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;

void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	if (any(greaterThanEqual(p, imageSize(dst)))) {
		return;
	}
	ivec2 q = 2 * p;
	vec4 sum = texelFetch(src, q, 0) + texelFetch(src, q + ivec2(1, 0), 0)
		+ texelFetch(src, q + ivec2(0, 1), 0) + texelFetch(src, q + ivec2(1, 1), 0);
	imageStore(dst, p, sum * 0.25);
}
