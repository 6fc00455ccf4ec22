package manifest

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/spirv"
)

// requirementsOf returns what the capabilities module m declares need of
// a device. The 16- and 8-bit access capabilities of uniform buffers and
// push constants count as those of storage buffers, the only ones
// manifests bind. Candidate.Supported then reports a candidate whose
// device lacks one as unsupported, naming the feature, before any
// pipeline of it is built.
func requirementsOf(m *spirv.Module) kernels.Requirements {
	var r kernels.Requirements
	for _, c := range m.Capabilities {
		switch {
		case c == spirv.CapFloat16:
			r.Float16 = true
		case c == spirv.CapFloat64:
			r.Float64 = true
		case c == spirv.CapInt64:
			r.Int64 = true
		case c == spirv.CapInt16:
			r.Int16 = true
		case c == spirv.CapInt8:
			r.Int8 = true
		case spirv.CapGroupNonUniform <= c && c <= spirv.CapGroupNonUniformQuad:
			r.Subgroup |= hal.SubgroupOps(1) << (c - spirv.CapGroupNonUniform)
		case c == spirv.CapStorageBuffer16Bit, c == spirv.CapUniformStorage16Bit, c == spirv.CapStoragePushConstant16:
			r.Storage16 = true
		case c == spirv.CapStorageBuffer8Bit, c == spirv.CapUniformStorage8Bit, c == spirv.CapStoragePushConstant8:
			r.Storage8 = true
		case c == spirv.CapVulkanMemoryModel:
			r.VulkanMemoryModel = true
		}
	}
	if r.Subgroup != 0 {
		r.Subgroup |= hal.SubgroupBasic
	}
	return r
}
