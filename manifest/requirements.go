package manifest

import (
	"slices"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/spirv"
)

// requirements returns what the module's capabilities need of a device,
// as Requirements, and the capabilities Requirements cannot express.
func requirementsOf(m *spirv.Module) (kernels.Requirements, []string) {
	var r kernels.Requirements
	var other []string
	for _, c := range m.Capabilities {
		switch {
		case c == spirv.CapFloat16:
			r.Float16 = true
		case c == spirv.CapInt64:
			r.Int64 = true
		case spirv.CapGroupNonUniform <= c && c <= spirv.CapGroupNonUniformQuad:
			r.Subgroup |= hal.SubgroupOps(1) << (c - spirv.CapGroupNonUniform)
		case c == spirv.CapFloat64:
			other = append(other, "Float64")
		case c == spirv.CapInt16:
			other = append(other, "Int16")
		case c == spirv.CapInt8:
			other = append(other, "Int8")
		case c == spirv.CapStorageBuffer16Bit, c == spirv.CapUniformStorage16Bit, c == spirv.CapStoragePushConstant16:
			other = append(other, "StorageBuffer16BitAccess")
		case c == spirv.CapStorageBuffer8Bit, c == spirv.CapUniformStorage8Bit, c == spirv.CapStoragePushConstant8:
			other = append(other, "StorageBuffer8BitAccess")
		case c == spirv.CapVulkanMemoryModel:
			other = append(other, "VulkanMemoryModel")
		}
	}
	if r.Subgroup != 0 {
		r.Subgroup |= hal.SubgroupBasic
	}
	slices.Sort(other)
	return r, slices.Compact(other)
}

// missingFeature says which device feature the first capability in caps
// (as requirements returns them) needs and info lacks, such as
// "vulkanMemoryModel (for the module's VulkanMemoryModel capability)",
// or returns "".
func missingFeature(caps []string, info hal.DeviceInfo) string {
	f := info.Features
	for _, c := range caps {
		ok, feature := true, ""
		switch c {
		case "Float64":
			ok, feature = f.Float64, "shaderFloat64"
		case "Int16":
			ok, feature = f.Int16, "shaderInt16"
		case "Int8":
			ok, feature = f.Int8, "shaderInt8"
		case "StorageBuffer16BitAccess":
			ok, feature = f.Storage16, "storageBuffer16BitAccess"
		case "StorageBuffer8BitAccess":
			ok, feature = f.Storage8, "storageBuffer8BitAccess"
		case "VulkanMemoryModel":
			ok, feature = f.VulkanMemoryModel, "vulkanMemoryModel"
		}
		if !ok {
			return feature + " (for the module's " + c + " capability)"
		}
	}
	return ""
}
