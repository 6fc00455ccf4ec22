package hal

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/internal/enum"
	"github.com/vkbench/vkbench/status"
)

// DeviceType is the kind of a physical device, as Vulkan names them.
type DeviceType uint8

// The device types, in VkPhysicalDeviceType's order.
const (
	// OtherDevice is a device of no known type.
	OtherDevice DeviceType = iota
	// IntegratedGPU shares memory with the host.
	IntegratedGPU
	// DiscreteGPU has memory of its own.
	DiscreteGPU
	// VirtualGPU is a GPU of a virtual machine.
	VirtualGPU
	// CPU is a device that runs on the host's processors, as lavapipe does.
	CPU
)

// String returns "discrete", "integrated", "virtual", "cpu" or "other".
func (t DeviceType) String() string { return enum.Name(t, deviceTypeNames[:], "other") }

var deviceTypeNames = [...]string{IntegratedGPU: "integrated", DiscreteGPU: "discrete", VirtualGPU: "virtual", CPU: "cpu"}

// Well-known PCI vendor IDs, used to decode driver versions.
const (
	VendorAMD    uint32 = 0x1002
	VendorNVIDIA uint32 = 0x10de
	VendorIntel  uint32 = 0x8086
	VendorARM    uint32 = 0x13b5
	VendorQcom   uint32 = 0x5143
	VendorApple  uint32 = 0x106b
	VendorMesa   uint32 = 0x10005 // VK_VENDOR_ID_MESA: lavapipe and other software devices
)

// Version is a Vulkan API version.
type Version uint32

// Major decodes the major version of a VK_MAKE_API_VERSION value.
func (v Version) Major() uint32 { return uint32(v>>22) & 0x7f }

// Minor decodes the minor version.
func (v Version) Minor() uint32 { return uint32(v>>12) & 0x3ff }

// Patch decodes the patch version.
func (v Version) Patch() uint32 { return uint32(v) & 0xfff }

// String returns "major.minor.patch".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch()) }

// Limits are the device limits that shape kernels and measurements.
type Limits struct {
	MaxWorkgroupSize        [3]uint32
	MaxWorkgroupInvocations uint32
	MaxWorkgroupCount       [3]uint32
	MaxSharedMemory         uint32 // bytes of workgroup (shared) memory
	MaxPushConstantsSize    uint32
	// MaxBoundDescriptorSets is the most descriptor sets a pipeline may
	// use (ExecutableDesc.Sets); 0 where the device does not say.
	MaxBoundDescriptorSets uint32
	MaxStorageBufferRange  uint64
	MinStorageBufferAlign  uint64
	// MaxUniformBufferRange and MinUniformBufferAlign are the largest
	// range of a uniform-buffer binding and the alignment of its offset.
	MaxUniformBufferRange uint64
	MinUniformBufferAlign uint64
	// MaxImageDimension2D is the largest width and height of an image.
	MaxImageDimension2D uint32
	SubgroupSize        uint32
	// MinSubgroupSize and MaxSubgroupSize are the range of subgroup sizes
	// the device may use (VK_EXT_subgroup_size_control, core in Vulkan
	// 1.3); both equal SubgroupSize where the device does not say.
	MinSubgroupSize uint32
	MaxSubgroupSize uint32
	// MaxComputeWorkgroupSubgroups is the most subgroups a workgroup of a
	// pipeline that requires its subgroup size may have (a workgroup of
	// at most this many times the size); 0 where the device does not say.
	MaxComputeWorkgroupSubgroups uint32
	SubgroupOps                  SubgroupOps
	// TimestampPeriod is nanoseconds per timestamp tick.
	TimestampPeriod float64
	// TimestampValidBits is how many low bits of a timestamp count; 0 means
	// the compute queue has no timestamps.
	TimestampValidBits uint32
}

// SubgroupOps is the set of subgroup operations supported in compute
// shaders, bit-compatible with VkSubgroupFeatureFlags.
type SubgroupOps uint32

// The subgroup operation sets, as GLSL's GL_KHR_shader_subgroup_*
// extensions name them.
const (
	// SubgroupBasic is subgroupBarrier, subgroupElect and friends.
	SubgroupBasic SubgroupOps = 1 << iota
	// SubgroupVote is subgroupAll, subgroupAny and subgroupAllEqual.
	SubgroupVote
	// SubgroupArithmetic is subgroupAdd, subgroupMin, subgroupInclusiveAdd...
	SubgroupArithmetic
	// SubgroupBallot is subgroupBallot and subgroupBroadcast.
	SubgroupBallot
	// SubgroupShuffle is subgroupShuffle and subgroupShuffleXor.
	SubgroupShuffle
	// SubgroupShuffleRelative is subgroupShuffleUp and subgroupShuffleDown.
	SubgroupShuffleRelative
	// SubgroupClustered is subgroupClusteredAdd and friends.
	SubgroupClustered
	// SubgroupQuad is subgroupQuadBroadcast and the quad swaps.
	SubgroupQuad
)

// Has reports whether every operation in o is supported.
func (s SubgroupOps) Has(o SubgroupOps) bool { return s&o == o }

// SubgroupOpNames name the subgroup operation sets in bit order, as the
// GLSL extensions GL_KHR_shader_subgroup_<name> do (with '-' for '_').
var SubgroupOpNames = [...]string{"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle-relative", "clustered", "quad"}

// Names lists the names of the sets in s, in bit order.
func (s SubgroupOps) Names() []string { return flagNames(s, SubgroupOpNames[:]) }

// String names the sets in s, joined by "+", or says "none".
func (s SubgroupOps) String() string { return flagsString(s, SubgroupOpNames[:]) }

// Features are optional shader capabilities.
type Features struct {
	Float16 bool // shaderFloat16 (arithmetic)
	Float64 bool
	Int8    bool // shaderInt8 (arithmetic)
	Int16   bool
	Int64   bool
	// Storage16 is 16-bit types in storage buffers.
	Storage16 bool
	// Storage8 is 8-bit types in storage buffers.
	Storage8 bool
	// BFloat16 is the bfloat16 type in shaders (VK_KHR_shader_bfloat16's
	// shaderBFloat16Type).
	BFloat16 bool
	// BFloat16CooperativeMatrix is cooperative matrices of bfloat16
	// (shaderBFloat16CooperativeMatrix, with VK_KHR_cooperative_matrix).
	BFloat16CooperativeMatrix bool
	// VulkanMemoryModel is the Vulkan memory model (vulkanMemoryModel),
	// which GLSL's scoped memory semantics, cooperative matrices among
	// them, compile to.
	VulkanMemoryModel bool
	// SubgroupSizeControl is a pipeline's choice of its subgroup size
	// between MinSubgroupSize and MaxSubgroupSize (subgroupSizeControl).
	SubgroupSizeControl bool
	// RequiredSubgroupSize is SubgroupSizeControl for compute pipelines:
	// compute is among the device's requiredSubgroupSizeStages, so an
	// ExecutableDesc may set SubgroupSize.
	RequiredSubgroupSize bool
	// ComputeFullSubgroups is a compute pipeline's demand that every
	// subgroup be full (computeFullSubgroups): ExecutableDesc's
	// FullSubgroups.
	ComputeFullSubgroups bool
	// StorageImageReadWithoutFormat and StorageImageWriteWithoutFormat
	// are reading and writing storage images whose format the shader does
	// not declare (shaderStorageImageReadWithoutFormat,
	// shaderStorageImageWriteWithoutFormat).
	StorageImageReadWithoutFormat  bool
	StorageImageWriteWithoutFormat bool
	// CooperativeMatrixNV and CooperativeMatrixKHR are the
	// cooperativeMatrix features of VK_NV_cooperative_matrix and
	// VK_KHR_cooperative_matrix; DeviceInfo.CooperativeMatrices lists the
	// shapes of each.
	CooperativeMatrixNV  bool
	CooperativeMatrixKHR bool
	// CooperativeMatrixNV2 are the features of VK_NV_cooperative_matrix2
	// the device has; none without the extension.
	CooperativeMatrixNV2 NV2Features
}

// CooperativeMatrix reports whether the device has the cooperative
// matrices of api.
func (f Features) CooperativeMatrix(api MatrixAPI) bool {
	switch api {
	case MatrixNV:
		return f.CooperativeMatrixNV
	case MatrixKHR:
		return f.CooperativeMatrixKHR
	case MatrixNV2:
		return f.CooperativeMatrixNV2 != 0
	}
	return false
}

// MemoryHeap is one memory heap of the device.
type MemoryHeap struct {
	Size        uint64
	DeviceLocal bool
}

// DeviceInfo identifies a physical device and describes what it can do.
type DeviceInfo struct {
	// Index is the device's position in Driver.Enumerate.
	Index int
	// Backend is the registered name of the driver.
	Backend  string
	Name     string
	Type     DeviceType
	VendorID uint32
	DeviceID uint32
	// DriverID is the VkDriverId (e.g. 4 for NVIDIA's proprietary driver,
	// 13 for Mesa's lavapipe, VK_DRIVER_ID_MESA_LLVMPIPE); 0 when unknown.
	DriverID uint32
	// DriverName and DriverInfo are what the driver says of itself.
	DriverName string
	DriverInfo string
	// DriverVersion is the raw, vendor-encoded driver version.
	DriverVersion uint32
	// APIVersion is the highest Vulkan version the device supports (its
	// VkPhysicalDeviceProperties.apiVersion). vkbench runs it at the lower
	// of this and its instance's version (1.3 where the loader has it,
	// else 1.2), so a 1.4 device shows 1.4 here and runs 1.3.
	APIVersion Version
	DeviceUUID [16]byte
	DriverUUID [16]byte
	// PipelineCacheUUID identifies which pipeline caches the driver accepts.
	PipelineCacheUUID [16]byte
	Limits            Limits
	Features          Features
	MemoryHeaps       []MemoryHeap
	// ImageFormats say what the device can do with images of each
	// Format.
	ImageFormats ImageFormats
	// CooperativeMatrices are the multiply-adds the device's cooperative
	// matrices do, those of VK_NV_cooperative_matrix first, then those of
	// VK_KHR_cooperative_matrix; empty without either.
	CooperativeMatrices []CooperativeMatrix
	// Withheld are the device's extensions that the backend leaves off
	// (Vulkan names, such as "VK_KHR_cooperative_matrix"): under a
	// validation layer older than an extension, which would report its
	// structures as unknown. Their features read as absent.
	Withheld []string
}

// Clone returns a copy of d that shares no memory with it.
func (d DeviceInfo) Clone() DeviceInfo {
	d.Withheld = slices.Clone(d.Withheld)
	d.MemoryHeaps = slices.Clone(d.MemoryHeaps)
	d.CooperativeMatrices = slices.Clone(d.CooperativeMatrices)
	return d
}

// DriverVersionString decodes DriverVersion the way the vendor encodes it:
// NVIDIA packs 10.8.8.6 bits, Intel's Windows driver 18.14 bits, and
// everyone else (AMD, Mesa, Arm, ...) uses VK_MAKE_API_VERSION's layout.
//
// Mesa's lavapipe reports a constant driverVersion (0.0.1); what changes
// its code is the Mesa release, which it names in DriverInfo ("Mesa 22.3.6
// (LLVM 15.0.6)"), so that is its version here.
func (d DeviceInfo) DriverVersionString() string {
	mesa, isMesa := strings.CutPrefix(d.DriverInfo, "Mesa ")
	if f := strings.Fields(mesa); isMesa && d.DriverID == driverIDMesaLLVMpipe && len(f) > 0 {
		return f[0]
	}
	v := d.DriverVersion
	switch {
	case d.VendorID == VendorNVIDIA:
		return fmt.Sprintf("%d.%d.%d.%d", v>>22, (v>>14)&0xff, (v>>6)&0xff, v&0x3f)
	case d.VendorID == VendorIntel && d.DriverID == driverIDIntelWindows:
		return fmt.Sprintf("%d.%d", v>>14, v&0x3fff)
	}
	return fmt.Sprintf("%d.%d.%d", v>>22, (v>>12)&0x3ff, v&0xfff)
}

// Vulkan driver IDs that change how a driver version is encoded.
const (
	driverIDIntelWindows = 5  // VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS
	driverIDMesaLLVMpipe = 13 // VK_DRIVER_ID_MESA_LLVMPIPE (lavapipe)
)

// VendorName returns a short lower-case name for a PCI vendor ID, or the ID
// in hexadecimal.
func VendorName(id uint32) string {
	return cmp.Or(vendorNames[id], fmt.Sprintf("%04x", id))
}

var vendorNames = map[uint32]string{
	VendorAMD: "amd", VendorNVIDIA: "nvidia", VendorIntel: "intel", VendorARM: "arm",
	VendorQcom: "qualcomm", VendorApple: "apple", VendorMesa: "mesa",
}

// Hardware is a stable, path-safe identity of the device and its driver:
// vendor, device ID, device name, driver and driver version. Two devices
// with the same Hardware run the same kernels equally fast, so it names the
// autotune cache's table. It contains only [a-z0-9._-].
func (d DeviceInfo) Hardware() string {
	driver := cmp.Or(d.DriverName, fmt.Sprintf("driver%d", d.DriverID))
	parts := []string{
		VendorName(d.VendorID),
		fmt.Sprintf("%04x", d.DeviceID),
		d.Name,
		driver,
		d.DriverVersionString(),
	}
	for i, p := range parts {
		parts[i] = pathSafe(p)
	}
	return strings.Join(parts, "_")
}

// pathSafe lower-cases s and replaces every run of characters outside
// [a-z0-9.-] with one '-', trimming them at the ends.
func pathSafe(s string) string {
	unsafe := func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.') }
	return cmp.Or(strings.Join(strings.FieldsFunc(strings.ToLower(s), unsafe), "-"), "unknown")
}

// DefaultDevice returns the index in infos of the device to use when none
// is named: the first discrete GPU, else the first integrated, virtual,
// then CPU device, else the first device. It returns -1 for an empty list.
func DefaultDevice(infos []DeviceInfo) int {
	for _, t := range []DeviceType{DiscreteGPU, IntegratedGPU, VirtualGPU, CPU} {
		if i := slices.IndexFunc(infos, func(d DeviceInfo) bool { return d.Type == t }); i >= 0 {
			return i
		}
	}
	if len(infos) > 0 {
		return 0
	}
	return -1
}

// SelectDevice returns the index in infos of the device spec names: ""
// for the default (see DefaultDevice), a decimal index, a part of a
// device's name (case-insensitive), or a prefix of its device UUID in
// hexadecimal. No devices at all is Unavailable; a spec that names no
// device is NotFound; one that matches several is InvalidArgument.
func SelectDevice(infos []DeviceInfo, spec string) (int, error) {
	if len(infos) == 0 {
		return 0, status.New(status.Unavailable, "hal: no Vulkan devices (is a Vulkan driver installed? lavapipe is in mesa-vulkan-drivers)")
	}
	if spec == "" {
		return DefaultDevice(infos), nil
	}
	if i, err := strconv.Atoi(spec); err == nil {
		if i < 0 || i >= len(infos) {
			if len(infos) == 1 {
				return 0, status.Newf(status.NotFound, "hal: device %d is out of range: there is 1 device, 0", i)
			}
			return 0, status.Newf(status.NotFound, "hal: device %d is out of range: there are %d devices, 0 to %d", i, len(infos), len(infos)-1)
		}
		return i, nil
	}
	low := strings.ToLower(spec)
	uuid := strings.ReplaceAll(low, "-", "")
	var match []string
	found := -1
	for i, d := range infos {
		if strings.Contains(strings.ToLower(d.Name), low) || strings.HasPrefix(fmt.Sprintf("%x", d.DeviceUUID), uuid) {
			match = append(match, fmt.Sprintf("%d: %s", i, d.Name))
			found = i
		}
	}
	switch len(match) {
	case 0:
		return 0, status.Newf(status.NotFound, "hal: no device's name or UUID matches %q", spec)
	case 1:
		return found, nil
	}
	return 0, status.Newf(status.InvalidArgument, "hal: %q matches %d devices (%s); use an index or a UUID", spec, len(match), strings.Join(match, ", "))
}

// SubgroupsUnsupported says why the device cannot build a compute
// pipeline of workgroup wg that requires subgroups of size (0: any) and,
// if full, full subgroups, or returns "" when it can: the one rule that
// ExecutableDesc's SubgroupSize and FullSubgroups follow, for the backends
// and for the kernels checked before them.
func (d DeviceInfo) SubgroupsUnsupported(size uint32, full bool, wg [3]uint32) string {
	l, f := d.Limits, d.Features
	if size > 0 {
		switch {
		case size&(size-1) != 0:
			return fmt.Sprintf("a required subgroup size of %d is not a power of two", size)
		case !f.RequiredSubgroupSize:
			return fmt.Sprintf("needs a required subgroup size of %d (subgroupSizeControl, with compute in requiredSubgroupSizeStages), which the device lacks", size)
		case size < l.MinSubgroupSize || size > l.MaxSubgroupSize:
			return fmt.Sprintf("needs a subgroup size of %d, device has %d to %d", size, l.MinSubgroupSize, l.MaxSubgroupSize)
		}
		if inv := uint64(wg[0]) * uint64(wg[1]) * uint64(wg[2]); l.MaxComputeWorkgroupSubgroups > 0 && inv > uint64(l.MaxComputeWorkgroupSubgroups)*uint64(size) {
			return fmt.Sprintf("needs %d invocations in subgroups of %d, more than the device's %d subgroups per workgroup", inv, size, l.MaxComputeWorkgroupSubgroups)
		}
	}
	if !full {
		return ""
	}
	if !f.ComputeFullSubgroups {
		return "needs full subgroups (computeFullSubgroups), which the device lacks"
	}
	// Without a required size, the driver may choose any up to the
	// largest.
	of := cmp.Or(size, l.MaxSubgroupSize)
	if of > 0 && wg[0]%of != 0 {
		return fmt.Sprintf("needs full subgroups with a workgroup of %d in x, not a multiple of the subgroup size %d", wg[0], of)
	}
	return ""
}
