#version 450
// digest: a 64-bit digest of the first n words of a buffer, so that a
// candidate's output can be checked against the host's expected digest
// without reading it back: in each of two lanes, the sum modulo 2^32 of a
// hash of every word with its index (catalogue's wordDigest computes the
// same hash on the host). Each workgroup writes its two partial sums; the
// host adds them.
//
// Push constants: n (words). Local size 128, which every Vulkan device
// allows; any number of workgroups, each invocation taking every
// (groups × 128)th word.

layout(local_size_x = 128) in;

layout(set = 0, binding = 0) restrict readonly buffer Words { uint words[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Partials { uvec2 partials[]; };

layout(push_constant) uniform Params { uint n; } pc;

// fmix is MurmurHash3's finalizer: every input bit moves every output bit.
uint fmix(uint h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

shared uvec2 sums[128];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * 128u;
    uvec2 acc = uvec2(0u);
    for (uint k = gl_GlobalInvocationID.x; k < pc.n; k += stride) {
        uint v = words[k];
        acc.x += fmix(v ^ fmix(k + 0x9e3779b9u));
        acc.y += fmix((v + 0x7f4a7c15u) * 0x9e3779b1u ^ fmix(k ^ 0x85ebca77u));
    }
    sums[lid] = acc;
    barrier();
    for (uint s = 64u; s > 0u; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
        }
        barrier();
    }
    if (lid == 0u) {
        partials[gl_WorkGroupID.x] = sums[0];
    }
}
