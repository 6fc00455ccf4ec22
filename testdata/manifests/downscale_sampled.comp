#version 450
// Halves an image in each direction: each texel of dst is the mean of a
// 2×2 block of src, read by one bilinear sample at the point where the
// block's four texels meet (src is bound with a linear sampler).
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;

void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	if (any(greaterThanEqual(p, imageSize(dst)))) {
		return;
	}
	vec2 uv = vec2(2 * p + 1) / vec2(textureSize(src, 0));
	imageStore(dst, p, texture(src, uv));
}
