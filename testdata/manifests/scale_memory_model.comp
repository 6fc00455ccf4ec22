#version 450
// y = 2x, written with the Vulkan memory model's scoped semantics: the
// module declares the VulkanMemoryModel capability, which needs the
// device's vulkanMemoryModel feature.
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform PC { uint n; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < n) {
        y[i] = 2.0 * x[i];
    }
    memoryBarrier(gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
}
