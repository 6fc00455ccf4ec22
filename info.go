package vkbench

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// DeviceInfo describes a device: what a program shows of it, and the
// limits that shape its kernels and dispatches.
type DeviceInfo struct {
	// Index is the device's position in the list Devices returns.
	Index int
	// Backend is the driver that runs it: "vulkan".
	Backend string
	// Name is the device's, such as "NVIDIA H200" or "llvmpipe (LLVM
	// 15.0.6, 256 bits)".
	Name string
	// Type is "discrete", "integrated", "virtual", "cpu" or "other".
	Type string
	// VendorID and DeviceID are the PCI IDs (0x10de is NVIDIA).
	VendorID, DeviceID uint32
	// Driver is the driver's name and version, as its vendor numbers it:
	// "NVIDIA 570.86.15", "llvmpipe 24.2.8".
	Driver string
	// APIVersion is the highest Vulkan version the device supports, such
	// as "1.3.255".
	APIVersion string
	// UUID is the device's UUID, as NVML and CUDA say it.
	UUID [16]byte
	// Hardware is a stable, path-safe name of the hardware and driver:
	// the name of the device's tables in the tuning cache.
	Hardware string
	// MaxWorkgroupSize bounds a kernel's workgroup size in each dimension.
	MaxWorkgroupSize [3]uint32
	// MaxWorkgroupInvocations bounds its invocations, x·y·z.
	MaxWorkgroupInvocations uint32
	// MaxSharedMemory is the most workgroup (shared) memory, in bytes.
	MaxSharedMemory uint32
	// SubgroupSize is the device's subgroup (warp, wave) size.
	SubgroupSize uint32
	// MaxStorageBufferRange is the most bytes one buffer binding covers:
	// the longest Buffer.Slice.
	MaxStorageBufferRange uint64
	// StorageBufferAlignment is the alignment in bytes of a binding's
	// start: where a Buffer.Slice may begin.
	StorageBufferAlignment uint64
	// Memory is the size of the device-local memory in bytes.
	Memory uint64
}

// deviceInfo is the DeviceInfo of hal's.
func deviceInfo(h hal.DeviceInfo) DeviceInfo {
	driver := h.DriverName
	if v := h.DriverVersionString(); v != "" {
		driver += " " + v
	}
	l := h.Limits
	info := DeviceInfo{
		Index: h.Index, Backend: h.Backend, Name: h.Name, Type: h.Type.String(),
		VendorID: h.VendorID, DeviceID: h.DeviceID, Driver: driver, APIVersion: h.APIVersion.String(),
		UUID: h.DeviceUUID, Hardware: h.Hardware(),
		MaxWorkgroupSize: l.MaxWorkgroupSize, MaxWorkgroupInvocations: l.MaxWorkgroupInvocations,
		MaxSharedMemory: l.MaxSharedMemory, SubgroupSize: l.SubgroupSize,
		MaxStorageBufferRange: l.MaxStorageBufferRange, StorageBufferAlignment: l.MinStorageBufferAlign,
	}
	for _, heap := range h.MemoryHeaps {
		if heap.DeviceLocal {
			info.Memory += heap.Size
		}
	}
	return info
}

// Message is a validation or driver message (Options.OnMessage).
type Message struct {
	// Severity is "error", "warning", "info" or "verbose".
	Severity string
	// ID names the check that fired, such as a validation VUID.
	ID string
	// Text is the message.
	Text string
}

// DType is the type of an Op's elements, part of its cache key.
type DType uint8

// The element types. The zero DType is none: an Op without one is F32.
const (
	F32 DType = iota + 1
	F16
	BF16
	I32
	U32
)

var dtypes = [...]kernels.DType{F32: kernels.F32, F16: kernels.F16, BF16: kernels.BF16, I32: kernels.I32, U32: kernels.U32}

// String returns the type's short name, as the cache keys say it: "f32",
// "f16", "bf16", "i32" or "u32".
func (t DType) String() string { return t.kernels().String() }

// kernels returns t as package kernels numbers it; 0 for an unknown t.
func (t DType) kernels() kernels.DType {
	if int(t) < len(dtypes) {
		return dtypes[t]
	}
	return 0
}

// Requirements are what a Kernel needs of a device that its SPIR-V module
// does not declare (what it declares is read from it and checked).
type Requirements struct {
	// SharedMemory is the workgroup (shared) memory the kernel uses, in
	// bytes, where its size is set by specialization constants.
	SharedMemory uint32
	// MinSubgroupSize is the smallest subgroup size the kernel works with;
	// 0 if any.
	MinSubgroupSize uint32
	// SubgroupSize, if not 0, is the only subgroup size the kernel works
	// with (a kernel that counts its subgroup's invocations, say).
	SubgroupSize uint32
}

// kernels returns r as package kernels says it.
func (r Requirements) kernels() kernels.Requirements {
	return kernels.Requirements{SharedMemory: r.SharedMemory, MinSubgroupSize: r.MinSubgroupSize, SubgroupSize: r.SubgroupSize}
}
