#version 450
// peak_fma_f16x4: the device's packed fp16 rate. Like peak_fma_f16, with
// f16vec4 accumulators: each step of an accumulator is two packed
// half2 operations (HFMA2 on NVIDIA), each doing two fp16 chains, so that
// an invocation with ACC accumulators issues 2 * ACC independent packed
// operations a step, twice peak_fma_f16's for the same ACC, without more
// loop overhead. Chain c = t * 4 * ACC + 4 * j + lane. (Written x * a + b,
// a step still reaches the driver as one Fma: glslc -O fuses the two.)
// Inputs, a, b and the per-invocation sum are fp32 in memory and push
// constants: only shaderFloat16 is needed.
//
// Specialization: 0 = workgroup size, 1 = ACC, 2 = UNROLL.
// Push constants: n (chains), iters, a, b.

#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACC = 8;
layout(constant_id = 2) const uint UNROLL = 16;

layout(set = 0, binding = 0) restrict readonly buffer X0 { float x0[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params { uint n; uint iters; float a; float b; } pc;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint t = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint first = t * 4u * ACC;
    f16vec4 a = f16vec4(float16_t(pc.a));
    f16vec4 b = f16vec4(float16_t(pc.b));
    f16vec4 x[ACC];
    [[unroll]] for (uint j = 0u; j < ACC; j++) {
        [[unroll]] for (uint l = 0u; l < 4u; l++) {
            uint c = first + 4u * j + l;
            x[j][l] = float16_t(c < pc.n ? x0[c] : 0.0);
        }
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
        [[unroll]] for (uint l = 0u; l < 4u; l++) {
            if (first + 4u * j + l < pc.n) {
                sum += float(x[j][l]);
            }
        }
    }
    if (first < pc.n) {
        y[t] = sum;
    }
}
