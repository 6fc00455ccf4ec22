#version 450
// For each texel (x, y) < (w, h) of src, an r32f image bound with a sampler:
//   dst(x, y)   = 2 * texelFetch(src, (x, y)) + 1   (dst: an r32f storage image)
//   out[y*w+x]  = texture(src, ((x, y) + 0.5 + off) / (w, h))
// so that off = (0, 0) reads each texel whatever the filter, and
// off = (0.5, 0) with a linear filter averages each texel with its right
// neighbour (the edge clamped).
layout(local_size_x = 8, local_size_y = 8) in;

layout(push_constant) uniform Push { uint w, h; vec2 off; } push;

layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dst;
layout(std430, set = 0, binding = 2) writeonly buffer Out { float data[]; } o;

void main() {
	uvec2 p = gl_GlobalInvocationID.xy;
	if (p.x >= push.w || p.y >= push.h) {
		return;
	}
	ivec2 xy = ivec2(p);
	imageStore(dst, xy, vec4(2.0 * texelFetch(src, xy, 0).r + 1.0));
	vec2 uv = (vec2(p) + 0.5 + push.off) / vec2(push.w, push.h);
	o.data[p.y * push.w + p.x] = texture(src, uv).r;
}
