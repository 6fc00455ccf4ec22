#version 450
// peak_fma_f16: the device's fp16 FMA throughput, on f16vec2 (two chains
// per register, as packed half-precision units execute them). Like
// peak_fma_f32, with ACC f16vec2 accumulators (2 * ACC chains) per
// invocation: chain c = t * 2 * ACC + 2 * j + lane. Inputs, a, b and the
// per-invocation sum are fp32 in memory and push constants, so only
// shaderFloat16 arithmetic is needed, not 16-bit storage.
//
// Specialization: 0 = workgroup size, 1 = ACC, 2 = UNROLL.
// Push constants: n (chains), iters, a, b.

#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACC = 8;
layout(constant_id = 2) const uint UNROLL = 8;

layout(set = 0, binding = 0) restrict readonly buffer X0 { float x0[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params { uint n; uint iters; float a; float b; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint t = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint first = t * 2u * ACC;
    f16vec2 a = f16vec2(float16_t(pc.a));
    f16vec2 b = f16vec2(float16_t(pc.b));
    f16vec2 x[ACC];
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        uint c = first + 2u * j;
        x[j] = f16vec2(c < pc.n ? x0[c] : 0.0, c + 1u < pc.n ? x0[c + 1u] : 0.0);
    }
    uint i = 0u;
    for (; i + UNROLL <= pc.iters; i += UNROLL) {
        [[unroll]] for (uint u = 0u; u < UNROLL; u++) {
            [[unroll]] for (uint j = 0u; j < ACC; j++) {
                x[j] = fma(x[j], a, b);
            }
        }
    }
    for (; i < pc.iters; i++) {
        [[unroll]] for (uint j = 0u; j < ACC; j++) {
            x[j] = fma(x[j], a, b);
        }
    }
    float sum = 0.0;
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        uint c = first + 2u * j;
        if (c < pc.n) {
            sum += float(x[j].x);
        }
        if (c + 1u < pc.n) {
            sum += float(x[j].y);
        }
    }
    if (first < pc.n) {
        y[t] = sum;
    }
}
