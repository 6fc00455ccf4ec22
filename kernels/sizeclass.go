package kernels

import "github.com/vkbench/vkbench/hal"

// SizeClass sorts devices by how much work a default size should give
// them.
type SizeClass int

const (
	SmallDevice  SizeClass = iota // CPU devices (lavapipe) and unknown ones: megabytes
	MediumDevice                  // integrated and virtual GPUs: an eighth of large
	LargeDevice                   // discrete GPUs: enough to fill an H200
)

// ClassOf says how much work a default size should give info's device.
func ClassOf(info hal.DeviceInfo) SizeClass {
	switch info.Type {
	case hal.DiscreteGPU:
		return LargeDevice
	case hal.IntegratedGPU, hal.VirtualGPU:
		return MediumDevice
	}
	return SmallDevice
}

// Fits reports whether buffers of the given sizes in bytes fit the device:
// each within maxStorageBufferRange, and all together within a quarter of
// the largest device-local heap (when the device reports one), leaving
// room for everything else.
func Fits(info hal.DeviceInfo, buffers ...int64) bool {
	var heap uint64
	for _, h := range info.MemoryHeaps {
		if h.DeviceLocal {
			heap = max(heap, h.Size)
		}
	}
	var total uint64
	for _, b := range buffers {
		if info.Limits.MaxStorageBufferRange > 0 && uint64(b) > info.Limits.MaxStorageBufferRange {
			return false
		}
		total += uint64(b)
	}
	return heap == 0 || total <= heap/4
}
