package kernels

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// Requirements is what a kernel needs of a device beyond core Vulkan 1.2
// compute. Candidate.Needs adds what the kernel's module declares to a
// candidate's own, so a built-in candidate states here only what its
// SPIR-V cannot say: a subgroup size, the shapes of its cooperative
// matrices.
type Requirements struct {
	// Float16 is 16-bit float arithmetic (shaderFloat16).
	Float16 bool
	// Int64 is 64-bit integer arithmetic (shaderInt64).
	Int64 bool
	// Float64, Int16 and Int8 are shaderFloat64, shaderInt16 and
	// shaderInt8.
	Float64, Int16, Int8 bool
	// Storage16 and Storage8 are 16- and 8-bit types in storage buffers
	// (storageBuffer16BitAccess, storageBuffer8BitAccess).
	Storage16, Storage8 bool
	// BFloat16 is the bfloat16 type (VK_KHR_shader_bfloat16's
	// shaderBFloat16Type), and BFloat16CooperativeMatrix cooperative
	// matrices of it (shaderBFloat16CooperativeMatrix).
	BFloat16, BFloat16CooperativeMatrix bool
	// VulkanMemoryModel is the Vulkan memory model (vulkanMemoryModel).
	VulkanMemoryModel bool
	// ImageReadWithoutFormat and ImageWriteWithoutFormat are reading and
	// writing storage images whose format the module does not declare
	// (shaderStorageImageReadWithoutFormat, ...WriteWithoutFormat).
	ImageReadWithoutFormat, ImageWriteWithoutFormat bool
	// Subgroup are the subgroup operations used in compute shaders.
	Subgroup hal.SubgroupOps
	// MinSubgroupSize is the smallest subgroup size the kernel works with;
	// 0 if any.
	MinSubgroupSize uint32
	// SubgroupSize, if not 0, is the only subgroup size the kernel works
	// with (a kernel that counts the invocations of its cooperative
	// matrices' subgroups, say).
	SubgroupSize uint32
	// SharedMemory is the workgroup (shared) memory the kernel declares,
	// in bytes; 0 leaves it to the candidate's module
	// (Candidate.SharedMemory). Set it only for a module whose size
	// cannot be worked out.
	SharedMemory uint32
	// CooperativeMatrix is the extension whose cooperative matrices the
	// kernel uses; 0 for none.
	CooperativeMatrix hal.MatrixAPI
	// CooperativeMatrices are the multiply-adds it does with them, each of
	// which the device must list (hal.DeviceInfo.CooperativeMatrices).
	CooperativeMatrices []hal.CooperativeMatrix
	// NV2 are the features of VK_NV_cooperative_matrix2 it uses.
	NV2 hal.NV2Features
	// SPIRV is the module's SPIR-V version, major<<8 | minor (0x0106 is
	// 1.6), which the device's Vulkan version must accept; 0 if unknown.
	SPIRV uint16
	// Images are the image formats the kernel binds, each with what it
	// does with them (as a storage image, sampled, through a linear
	// filter), all of which the device must support for the format
	// (hal.DeviceInfo.ImageFormats).
	Images []ImageUse
}

// ImageUse is what a kernel does with images of one format.
type ImageUse struct {
	Format   hal.Format
	Features hal.FormatFeatures
}

// ModuleRequirements returns what the capabilities module m declares need
// of a device: the one mapping from SPIR-V capabilities to device features,
// for built-in kernels, manifests and the library's kernels alike. The
// 16- and 8-bit access capabilities of uniform buffers and push constants
// count as those of storage buffers, the only ones vkbench binds.
func ModuleRequirements(m *spirv.Module) Requirements {
	r := Requirements{SPIRV: m.Version}
	for i, ff := range flagFeatures {
		*flag(&r, i) = slices.ContainsFunc(ff.caps, func(c uint32) bool { return slices.Contains(m.Capabilities, c) })
	}
	for _, c := range m.Capabilities {
		switch {
		case spirv.CapGroupNonUniform <= c && c <= spirv.CapGroupNonUniformQuad:
			r.Subgroup |= hal.SubgroupOps(1) << (c - spirv.CapGroupNonUniform)
		case c == spirv.CapCooperativeMatrixNV:
			r.CooperativeMatrix = hal.MatrixNV
		case c == spirv.CapCooperativeMatrixKHR && r.CooperativeMatrix == 0:
			r.CooperativeMatrix = hal.MatrixKHR
		case spirv.CapCooperativeMatrixReductionsNV <= c && c <= spirv.CapCooperativeMatrixBlockLoadsNV:
			// NV2's matrices are KHR's, with more: NV2 is what the
			// module needs.
			r.CooperativeMatrix = hal.MatrixNV2
			r.NV2 |= hal.NV2Reductions << (c - spirv.CapCooperativeMatrixReductionsNV)
		case c == spirv.CapTensorAddressingNV:
			r.CooperativeMatrix = hal.MatrixNV2
			r.NV2 |= hal.NV2TensorAddressing
		}
	}
	if r.Subgroup != 0 {
		r.Subgroup |= hal.SubgroupBasic
	}
	return r
}

// Merge returns what r and o need together.
func (r Requirements) Merge(o Requirements) Requirements {
	for i := range flagFeatures {
		*flag(&r, i) = *flag(&r, i) || *flag(&o, i)
	}
	r.Subgroup |= o.Subgroup
	r.MinSubgroupSize = max(r.MinSubgroupSize, o.MinSubgroupSize)
	r.SubgroupSize = cmp.Or(r.SubgroupSize, o.SubgroupSize)
	r.SharedMemory = max(r.SharedMemory, o.SharedMemory)
	r.CooperativeMatrix = cmp.Or(r.CooperativeMatrix, o.CooperativeMatrix)
	r.NV2 |= o.NV2
	r.SPIRV = max(r.SPIRV, o.SPIRV)
	r.CooperativeMatrices = slices.Clone(r.CooperativeMatrices)
	for _, m := range o.CooperativeMatrices {
		if !slices.Contains(r.CooperativeMatrices, m) {
			r.CooperativeMatrices = append(r.CooperativeMatrices, m)
		}
	}
	r.Images = slices.Clone(r.Images)
	for _, u := range o.Images {
		if i := slices.IndexFunc(r.Images, func(v ImageUse) bool { return v.Format == u.Format }); i >= 0 {
			r.Images[i].Features |= u.Features
		} else {
			r.Images = append(r.Images, u)
		}
	}
	return r
}

// flagFeatures are Requirements' flags, the one list of them: of returns
// a flag and the device feature it stands for, which messages call name;
// caps are the SPIR-V capabilities that need it. Digests write the flags
// in this order (a new one goes last), and Supported names the first a
// device lacks.
var flagFeatures = []struct {
	name string
	caps []uint32
	of   func(*Requirements, *hal.Features) (*bool, bool)
}{
	{"shaderFloat16", []uint32{spirv.CapFloat16}, func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.Float16, f.Float16 }},
	{"shaderInt64", []uint32{spirv.CapInt64}, func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.Int64, f.Int64 }},
	{"shaderFloat64", []uint32{spirv.CapFloat64}, func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.Float64, f.Float64 }},
	{"shaderInt16", []uint32{spirv.CapInt16}, func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.Int16, f.Int16 }},
	{"shaderInt8", []uint32{spirv.CapInt8}, func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.Int8, f.Int8 }},
	{"storageBuffer16BitAccess (16-bit types in storage buffers)", []uint32{spirv.CapStorageBuffer16Bit, spirv.CapUniformStorage16Bit, spirv.CapStoragePushConstant16},
		func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.Storage16, f.Storage16 }},
	{"storageBuffer8BitAccess (8-bit types in storage buffers)", []uint32{spirv.CapStorageBuffer8Bit, spirv.CapUniformStorage8Bit, spirv.CapStoragePushConstant8},
		func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.Storage8, f.Storage8 }},
	{"vulkanMemoryModel", []uint32{spirv.CapVulkanMemoryModel},
		func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.VulkanMemoryModel, f.VulkanMemoryModel }},
	{"shaderStorageImageReadWithoutFormat (reading a storage image whose format the module does not declare)", []uint32{spirv.CapStorageImageReadWithoutFormat},
		func(r *Requirements, f *hal.Features) (*bool, bool) {
			return &r.ImageReadWithoutFormat, f.StorageImageReadWithoutFormat
		}},
	{"shaderStorageImageWriteWithoutFormat (writing a storage image whose format the module does not declare)", []uint32{spirv.CapStorageImageWriteWithoutFormat},
		func(r *Requirements, f *hal.Features) (*bool, bool) {
			return &r.ImageWriteWithoutFormat, f.StorageImageWriteWithoutFormat
		}},
	{"shaderBFloat16Type (bfloat16, VK_KHR_shader_bfloat16)", []uint32{spirv.CapBFloat16TypeKHR},
		func(r *Requirements, f *hal.Features) (*bool, bool) { return &r.BFloat16, f.BFloat16 }},
	{"shaderBFloat16CooperativeMatrix (cooperative matrices of bfloat16, VK_KHR_shader_bfloat16)", []uint32{spirv.CapBFloat16CooperativeMatrixKHR},
		func(r *Requirements, f *hal.Features) (*bool, bool) {
			return &r.BFloat16CooperativeMatrix, f.BFloat16CooperativeMatrix
		}},
}

// flag returns r's flag of flagFeatures[i].
func flag(r *Requirements, i int) *bool {
	want, _ := flagFeatures[i].of(r, &hal.Features{})
	return want
}

// Supported returns nil if info meets the requirements, or an error with
// code Unimplemented that names the first one it does not meet, such as
// "needs cooperative matrices (VK_NV_cooperative_matrix), which the device
// lacks", "needs shaderFloat16" or "needs 48 KiB of shared memory, device
// has 32 KiB".
func (r Requirements) Supported(info hal.DeviceInfo) error {
	if why := r.unsupported(info); why != "" {
		return status.New(status.Unimplemented, "kernels: "+why)
	}
	return nil
}

func (r Requirements) unsupported(info hal.DeviceInfo) string {
	if have := maxSPIRV(info.APIVersion); r.SPIRV > have {
		return fmt.Sprintf("needs SPIR-V %d.%d, newer than Vulkan %d.%d devices accept (%d.%d)",
			r.SPIRV>>8, r.SPIRV&0xff, info.APIVersion.Major(), info.APIVersion.Minor(), have>>8, have&0xff)
	}
	if why := r.unsupportedMatrices(info); why != "" {
		return why
	}
	f, l := info.Features, info.Limits
	if (r.BFloat16 || r.BFloat16CooperativeMatrix) && !f.BFloat16 && slices.Contains(info.Withheld, "VK_KHR_shader_bfloat16") {
		return "needs bfloat16 (VK_KHR_shader_bfloat16), which the device has and vkbench leaves off under this validation layer, too old to know it (run without validation, or with a newer layer)"
	}
	for _, ff := range flagFeatures {
		if want, have := ff.of(&r, &f); *want && !have {
			return "needs " + ff.name
		}
	}
	switch {
	case !l.SubgroupOps.Has(r.Subgroup):
		return fmt.Sprintf("needs subgroup operations %s, device has %s", r.Subgroup, l.SubgroupOps)
	case r.MinSubgroupSize > 0 && l.SubgroupSize < r.MinSubgroupSize:
		return fmt.Sprintf("needs a subgroup size of at least %d, device has %d", r.MinSubgroupSize, l.SubgroupSize)
	case r.SubgroupSize > 0 && l.SubgroupSize != r.SubgroupSize:
		return fmt.Sprintf("needs a subgroup size of %d, device has %d", r.SubgroupSize, l.SubgroupSize)
	case r.SharedMemory > l.MaxSharedMemory:
		need, have := amounts(r.SharedMemory, l.MaxSharedMemory)
		return fmt.Sprintf("needs %s of shared memory, device has %s", need, have)
	}
	for _, u := range r.Images {
		if have := info.ImageFormats.Of(u.Format); !have.Has(u.Features) {
			return fmt.Sprintf("needs %s images with %s, which the device does not support (it has %s)", u.Format, u.Features&^have, have)
		}
	}
	return ""
}

// maxSPIRV is the newest SPIR-V a device of Vulkan version v accepts
// without extensions: 1.0 for Vulkan 1.0, 1.3 for 1.1, 1.5 for 1.2 and
// 1.6 for 1.3 and later; any for an unknown version (0).
func maxSPIRV(v hal.Version) uint16 {
	switch {
	case v == 0:
		return 0xffff
	case v.Major() > 1 || v.Minor() >= 3:
		return 0x0106
	case v.Minor() == 2:
		return 0x0105
	case v.Minor() == 1:
		return 0x0103
	}
	return 0x0100
}

// unsupportedMatrices says what the device lacks of the cooperative
// matrices r uses, or "".
func (r Requirements) unsupportedMatrices(info hal.DeviceInfo) string {
	apis := []hal.MatrixAPI{r.CooperativeMatrix}
	for _, m := range r.CooperativeMatrices {
		apis = append(apis, m.API)
	}
	for _, api := range apis {
		switch {
		case api == 0 || info.Features.CooperativeMatrix(api):
		case slices.Contains(info.Withheld, api.Extension()):
			return fmt.Sprintf("needs cooperative matrices (%s), which the device has and vkbench leaves off under this validation layer, too old to know it (run without validation, or with a newer layer)", api.Extension())
		default:
			return fmt.Sprintf("needs cooperative matrices (%s), which the device lacks", api.Extension())
		}
	}
	if missing := r.NV2 &^ info.Features.CooperativeMatrixNV2; missing != 0 {
		return fmt.Sprintf("needs %s of VK_NV_cooperative_matrix2, which the device lacks", missing)
	}
	for _, m := range r.CooperativeMatrices {
		if !info.HasCooperativeMatrix(m) {
			return fmt.Sprintf("needs the cooperative-matrix multiply-add %s, which the device does not list", m)
		}
	}
	return ""
}

// appendDigest appends every field of r to b, for Digest.
func (r Requirements) appendDigest(b []byte) []byte {
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	flags := uint32(0)
	for i := range flagFeatures {
		flags |= bit(*flag(&r, i)) << i
	}
	u32(flags)
	u32(uint32(r.Subgroup))
	u32(r.MinSubgroupSize)
	u32(r.SubgroupSize)
	u32(r.SharedMemory)
	u32(uint32(r.CooperativeMatrix))
	u32(uint32(len(r.CooperativeMatrices)))
	for _, m := range r.CooperativeMatrices {
		b, _ = binary.Append(b, binary.LittleEndian, []uint32{uint32(m.API), m.M, m.N, m.K, uint32(m.A), uint32(m.B), uint32(m.C), uint32(m.Result), bit(m.SaturatingAccumulation), uint32(m.Scope)})
		if m.Invocations != 0 { // NV2's only: the digests of the others stay
			u32(m.Invocations)
		}
	}
	// Only where there are NV2 features or images, so that the digests of
	// kernels without them stay what they were before either.
	if r.NV2 != 0 {
		u32(0x4e5632 /* "NV2" */)
		u32(uint32(r.NV2))
	}
	if r.SPIRV > 0x0105 { // what every device vkbench opens accepts
		u32(0x535056 /* "SPV" */)
		u32(uint32(r.SPIRV))
	}
	if len(r.Images) > 0 {
		u32(uint32(len(r.Images)))
		for _, u := range r.Images {
			u32(uint32(u.Format)<<8 | uint32(u.Features))
		}
	}
	return b
}

// amounts writes two amounts of bytes for a message: in KiB to a tenth
// ("32.5 KiB", "32 KiB") where the tenths tell them apart, else in bytes
// ("1028 bytes", "1024 bytes"), so that different amounts never read
// alike.
func amounts(a, b uint32) (string, string) {
	tenths := func(n uint32) string { return fmt.Sprintf("%.1f", float64(n)/1024) }
	if a != b && tenths(a) == tenths(b) {
		return fmt.Sprintf("%d bytes", a), fmt.Sprintf("%d bytes", b)
	}
	kib := func(n uint32) string {
		if n%1024 == 0 {
			return fmt.Sprintf("%d KiB", n/1024)
		}
		return tenths(n) + " KiB"
	}
	return kib(a), kib(b)
}

// bit is 1 for true and 0 for false, as digests write flags.
func bit(on bool) uint32 {
	if on {
		return 1
	}
	return 0
}
