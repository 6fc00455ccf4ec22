//go:build cgo

package vk

/*
#include <stdlib.h>
#include "vkb.h"
*/
import "C"

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

func init() { hal.Register(DriverName, open) }

var _ hal.Driver = (*driver)(nil)

// driver is a handle on the process's shared instance (instance.go) with
// validation on or off, and the devices opened through it.
type driver struct {
	logger *slog.Logger
	in     *instance
	// route says where the instance's validation messages about this
	// driver's calls go (routes.go); 0 without validation.
	route uintptr

	mu       sync.Mutex
	devices  map[*device]struct{}
	released bool
}

// physicalDevice is what the driver knows of one physical device.
type physicalDevice struct {
	handle C.VkPhysicalDevice
	c      *C.vkb_pd_info // C memory, kept for the life of the process
	info   hal.DeviceInfo
	// unusable says why Open refuses the device; "" if it can be opened.
	unusable string
	types    []memoryType
	// maxAlloc and maxBuffer bound one allocation and one buffer; 0 when
	// the device does not say.
	maxAlloc, maxBuffer uint64
	// maxBindings are the bindings of each hal.BindingKind one pipeline
	// may use; maxResources, all of them together.
	maxBindings  [4]uint32
	maxResources uint32
}

// memoryType is one of the device's memory types.
type memoryType struct {
	flags    uint32 // VkMemoryPropertyFlags
	heapSize uint64
}

// open is the hal.Opener of "vulkan".
func open(opts hal.DriverOptions) (hal.Driver, error) {
	d := &driver{logger: cmp.Or(opts.Logger, slog.Default()), devices: map[*device]struct{}{}}
	if opts.Validation {
		d.route = addRoute(&messageSink{onMessage: opts.OnMessage, logger: d.logger})
	}
	in, err := sharedInstance(opts.Validation, d.route)
	if err != nil {
		removeRoute(d.route)
		return nil, err
	}
	d.in = in
	return d, nil
}

// describe fills pd's DeviceInfo and limits from what the driver said.
func (pd *physicalDevice) describe(index int) {
	c := pd.c
	p := &c.props
	l := &p.limits
	info := hal.DeviceInfo{
		Index:             index,
		Backend:           DriverName,
		Name:              C.GoString(&p.deviceName[0]),
		Type:              deviceType(p.deviceType),
		VendorID:          uint32(p.vendorID),
		DeviceID:          uint32(p.deviceID),
		DriverVersion:     uint32(p.driverVersion),
		APIVersion:        hal.Version(p.apiVersion),
		PipelineCacheUUID: uuid(&p.pipelineCacheUUID),
		Limits: hal.Limits{
			MaxWorkgroupSize:        [3]uint32{uint32(l.maxComputeWorkGroupSize[0]), uint32(l.maxComputeWorkGroupSize[1]), uint32(l.maxComputeWorkGroupSize[2])},
			MaxWorkgroupInvocations: uint32(l.maxComputeWorkGroupInvocations),
			MaxWorkgroupCount:       [3]uint32{uint32(l.maxComputeWorkGroupCount[0]), uint32(l.maxComputeWorkGroupCount[1]), uint32(l.maxComputeWorkGroupCount[2])},
			MaxSharedMemory:         uint32(l.maxComputeSharedMemorySize),
			MaxPushConstantsSize:    uint32(l.maxPushConstantsSize),
			MaxBoundDescriptorSets:  uint32(l.maxBoundDescriptorSets),
			MaxStorageBufferRange:   uint64(l.maxStorageBufferRange),
			MinStorageBufferAlign:   uint64(l.minStorageBufferOffsetAlignment),
			MaxUniformBufferRange:   uint64(l.maxUniformBufferRange),
			MinUniformBufferAlign:   uint64(l.minUniformBufferOffsetAlignment),
			MaxImageDimension2D:     uint32(l.maxImageDimension2D),
			TimestampPeriod:         float64(l.timestampPeriod),
			TimestampValidBits:      uint32(c.timestamp_bits),
		},
		Features: hal.Features{
			Int16:   c.features.shaderInt16 != 0,
			Int64:   c.features.shaderInt64 != 0,
			Float64: c.features.shaderFloat64 != 0,

			StorageImageReadWithoutFormat:  c.features.shaderStorageImageReadWithoutFormat != 0,
			StorageImageWriteWithoutFormat: c.features.shaderStorageImageWriteWithoutFormat != 0,
		},
	}
	pd.maxBindings = [4]uint32{
		hal.StorageBufferBinding: min(uint32(l.maxPerStageDescriptorStorageBuffers), uint32(l.maxDescriptorSetStorageBuffers)),
		hal.UniformBufferBinding: min(uint32(l.maxPerStageDescriptorUniformBuffers), uint32(l.maxDescriptorSetUniformBuffers)),
		hal.StorageImageBinding:  min(uint32(l.maxPerStageDescriptorStorageImages), uint32(l.maxDescriptorSetStorageImages)),
		hal.SampledImageBinding: min(uint32(l.maxPerStageDescriptorSampledImages), uint32(l.maxDescriptorSetSampledImages),
			uint32(l.maxPerStageDescriptorSamplers), uint32(l.maxDescriptorSetSamplers)),
	}
	pd.maxResources = uint32(l.maxPerStageResources)
	if c.chain12 != 0 {
		pd.describe12(&info)
	}
	if c.chain13 != 0 {
		pd.maxBuffer = uint64(c.maint4.maxBufferSize)
	}
	mem := &c.memory
	for _, h := range mem.memoryHeaps[:mem.memoryHeapCount] {
		info.MemoryHeaps = append(info.MemoryHeaps, hal.MemoryHeap{
			Size:        uint64(h.size),
			DeviceLocal: h.flags&C.VK_MEMORY_HEAP_DEVICE_LOCAL_BIT != 0,
		})
	}
	for _, t := range mem.memoryTypes[:mem.memoryTypeCount] {
		pd.types = append(pd.types, memoryType{flags: uint32(t.propertyFlags), heapSize: uint64(mem.memoryHeaps[t.heapIndex].size)})
	}
	pd.info = info

	switch {
	case info.APIVersion < apiVersion12 || c.chain12 == 0:
		pd.unusable = "it supports Vulkan " + info.APIVersion.String() + " and vkbench needs 1.2 or later"
	case c.queue_family < 0:
		pd.unusable = "it has no compute queue"
	case c.f12.timelineSemaphore == 0:
		pd.unusable = "it has no timeline semaphores"
	case c.f12.hostQueryReset == 0:
		pd.unusable = "it cannot reset queries from the host"
	}
}

// describe12 adds to info what the driver said through Vulkan 1.2's
// structures and the extensions vkbench enables: driver identity,
// subgroups, the 1.1 to 1.3 features and cooperative matrices.
func (pd *physicalDevice) describe12(info *hal.DeviceInfo) {
	c := pd.c
	info.DriverID = uint32(c.driver.driverID)
	info.DriverName = C.GoString(&c.driver.driverName[0])
	info.DriverInfo = C.GoString(&c.driver.driverInfo[0])
	info.DeviceUUID = uuid(&c.id.deviceUUID)
	info.DriverUUID = uuid(&c.id.driverUUID)
	info.Limits.SubgroupSize = uint32(c.subgroup.subgroupSize)
	info.Limits.MinSubgroupSize = info.Limits.SubgroupSize
	info.Limits.MaxSubgroupSize = info.Limits.SubgroupSize
	if (c.chain13 != 0 || c.ext_subgroup_size_control != 0) && c.sgsc.minSubgroupSize > 0 {
		info.Limits.MinSubgroupSize = uint32(c.sgsc.minSubgroupSize)
		info.Limits.MaxSubgroupSize = uint32(c.sgsc.maxSubgroupSize)
		info.Limits.MaxComputeWorkgroupSubgroups = uint32(c.sgsc.maxComputeWorkgroupSubgroups)
	}
	if c.subgroup.supportedStages&C.VK_SHADER_STAGE_COMPUTE_BIT != 0 {
		info.Limits.SubgroupOps = hal.SubgroupOps(c.subgroup.supportedOperations)
	}
	info.Features.Float16 = c.f12.shaderFloat16 != 0
	info.Features.Int8 = c.f12.shaderInt8 != 0
	info.Features.Storage8 = c.f12.storageBuffer8BitAccess != 0
	info.Features.Storage16 = c.f11.storageBuffer16BitAccess != 0
	info.Features.VulkanMemoryModel = c.f12.vulkanMemoryModel != 0
	info.Features.SubgroupSizeControl = c.chain13 != 0 && c.f13.subgroupSizeControl != 0
	info.Features.RequiredSubgroupSize = info.Features.SubgroupSizeControl &&
		c.sgsc.requiredSubgroupSizeStages&C.VK_SHADER_STAGE_COMPUTE_BIT != 0
	info.Features.ComputeFullSubgroups = c.chain13 != 0 && c.f13.computeFullSubgroups != 0
	info.Features.CooperativeMatrixNV = c.ext_coopmat_nv != 0 && c.coopmat_nv.cooperativeMatrix != 0
	info.Features.CooperativeMatrixKHR = c.ext_coopmat_khr != 0 && c.coopmat_khr.cooperativeMatrix != 0
	info.Features.BFloat16 = c.ext_bfloat16 != 0 && c.bfloat16.shaderBFloat16Type != 0
	info.Features.BFloat16CooperativeMatrix = info.Features.BFloat16 && info.Features.CooperativeMatrixKHR &&
		c.bfloat16.shaderBFloat16CooperativeMatrix != 0
	if info.Features.CooperativeMatrixKHR && c.ext_coopmat2_nv != 0 {
		info.Features.CooperativeMatrixNV2 = nv2Features(&c.coopmat2_nv)
	}
	info.CooperativeMatrices = cooperativeMatrices(c)
	info.Withheld = withheld(c)
	pd.maxAlloc = uint64(c.maint3.maxMemoryAllocationSize)
}

// nv2Features are the features of VK_NV_cooperative_matrix2 the driver
// reported, in hal.NV2Features' order.
func nv2Features(cm2 *C.VkPhysicalDeviceCooperativeMatrix2FeaturesNV) hal.NV2Features {
	var f hal.NV2Features
	for i, on := range []C.VkBool32{cm2.cooperativeMatrixWorkgroupScope, cm2.cooperativeMatrixFlexibleDimensions,
		cm2.cooperativeMatrixReductions, cm2.cooperativeMatrixConversions, cm2.cooperativeMatrixPerElementOperations,
		cm2.cooperativeMatrixTensorAddressing, cm2.cooperativeMatrixBlockLoads} {
		if on != 0 {
			f |= hal.NV2Features(1) << i
		}
	}
	return f
}

// withheld names the extensions the device has that vk left off (see
// loader.c: the validation layer is older than them).
func withheld(c *C.vkb_pd_info) []string {
	var names []string
	for _, w := range []struct {
		on   C.int
		name string
	}{
		{c.withheld_coopmat_khr, "VK_KHR_cooperative_matrix"},
		{c.withheld_coopmat2_nv, "VK_NV_cooperative_matrix2"},
		{c.withheld_bfloat16, "VK_KHR_shader_bfloat16"},
	} {
		if w.on != 0 {
			names = append(names, w.name)
		}
	}
	return names
}

// deviceType converts a VkPhysicalDeviceType: hal's types are in its
// order.
func deviceType(t C.VkPhysicalDeviceType) hal.DeviceType {
	if t > C.VK_PHYSICAL_DEVICE_TYPE_CPU {
		return hal.OtherDevice
	}
	return hal.DeviceType(t)
}

func uuid(u *[C.VK_UUID_SIZE]C.uint8_t) [16]byte {
	return *(*[16]byte)(unsafe.Pointer(u))
}

func (d *driver) Name() string { return DriverName }

func (d *driver) Enumerate() ([]hal.DeviceInfo, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released {
		return nil, released("Enumerate", "driver")
	}
	infos := make([]hal.DeviceInfo, len(d.in.phys))
	for i, pd := range d.in.phys {
		infos[i] = pd.info.Clone()
	}
	return infos, nil
}

func (d *driver) Open(ctx context.Context, index int, opts hal.DeviceOptions) (hal.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError("Open", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released {
		return nil, released("Open", "driver")
	}
	if index < 0 || index >= len(d.in.phys) {
		return nil, status.Newf(status.NotFound, "vk: Open: no device %d (the driver has %d)", index, len(d.in.phys))
	}
	pd := d.in.phys[index]
	if pd.unusable != "" {
		return nil, status.Newf(status.Unimplemented, "vk: Open: device %d (%s) cannot be used: %s", index, pd.info.Name, pd.unusable)
	}
	dev, err := newDevice(d, pd, opts)
	if err != nil {
		return nil, status.Annotatef(err, "vk: opening device %d (%s)", index, pd.info.Name)
	}
	d.devices[dev] = struct{}{}
	return dev, nil
}

// Release releases the devices still open. The instance stays for the
// next driver (see instance.go); validation messages made for this
// driver's calls from now on go to every driver with validation. A second
// Release returns nil.
func (d *driver) Release() error {
	d.mu.Lock()
	if d.released {
		d.mu.Unlock()
		return nil
	}
	d.released = true
	open := slices.Collect(maps.Keys(d.devices))
	d.mu.Unlock()

	var errs []error
	for _, dev := range open {
		errs = append(errs, dev.Release())
	}
	removeRoute(d.route)
	return status.Join(errs...)
}
