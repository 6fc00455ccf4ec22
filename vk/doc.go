// Package vk is the Vulkan backend of vkbench. Importing it registers the
// driver "vulkan" with package hal:
//
//	import _ "github.com/vkbench/vkbench/vk"
//
//	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{Validation: true})
//	if err != nil {
//		return err
//	}
//	defer drv.Release()
//	infos, err := drv.Enumerate()
//	if err != nil {
//		return err
//	}
//	dev, err := drv.Open(ctx, hal.DefaultDevice(infos), hal.DeviceOptions{})
//	if err != nil {
//		return err
//	}
//	defer dev.Release()
//
// After that everything goes through the interfaces of hal; vk adds only
// Result, the payload that says which Vulkan call failed and how.
//
// # Requirements
//
// vk loads libvulkan.so.1 (Debian: libvulkan1) when a driver is opened and
// resolves every Vulkan entry point at run time, so building needs only a
// C compiler: the Vulkan headers are in include/. It needs a loader and a
// device of Vulkan 1.2 or later (timeline semaphores, host query reset);
// older devices are listed by Enumerate but Open refuses them with
// Unimplemented. DriverOptions.Validation needs the Khronos validation
// layer (Debian: vulkan-validationlayers). Without cgo the package builds
// but its driver fails to open with Unimplemented.
//
// # How it works
//
// A device has one compute queue and one timeline semaphore; submission n
// signals value n, so a fence is a value to wait for and the semaphore's
// counter tells which command buffers are no longer in flight. Waits run
// in slices of a few milliseconds so that a cancelled context and the loss
// of the device, noticed by any goroutine, end them promptly; a wait that
// succeeds returns as soon as the value is signalled.
//
// Every VkResult becomes a status in one table (result.go), with a message
// that names the call ("vk: vkQueueSubmit: VK_ERROR_DEVICE_LOST") and a
// Result payload. VK_ERROR_DEVICE_LOST from any call, or
// hal.LossMarker.MarkLost, makes the device lost for good.
//
// Buffers have a VkDeviceMemory each. Host-visible buffers stay mapped;
// device-local ones are read and written through two staging buffers of
// the device, in 32 MiB chunks, the host copying one chunk while the GPU
// copies the next; the host's copies use every processor. Images
// (image.go) are device-local, optimal-tiling 2D images with a memory and
// a view each, cleared when created and from then on in the general
// layout between commands, so that the global barriers that order
// buffers order them too; a copy moves its image into the transfer
// layout and back. They are written and read through the same staging
// buffers, whole rows at a time. What a device can do with each format is
// vkGetPhysicalDeviceFormatProperties' optimal-tiling features. Command
// buffers have their own command and descriptor pools, reset at Begin.
//
// CreateExecutable checks the module with package spirv first: the entry
// point, the bindings, and a push-constant range at least as long as the
// module's block, so that a mismatch is InvalidArgument, not undefined
// values. Where the device has VK_KHR_pipeline_executable_properties, vk
// enables it and its executables implement hal.CompilerReporter (the
// compiler's registers, spills and shared memory).
//
// # One instance per process
//
// A driver opened with hal.OpenDriver is a handle, not a VkInstance: every
// driver of the process shares one instance without validation and one
// with it, each created the first time it is asked for and kept until the
// process exits (instance.go says why: NVIDIA's driver refuses the 31st
// vkCreateInstance of a process, destroyed instances included). Opening
// and releasing drivers and devices thousands of times in one process,
// as a program that recovers from lost devices does, creates no more
// instances. Validation messages reach the OnMessage (or Logger) of the
// driver whose call caused them (routes.go). When vkCreateInstance fails,
// its error names the call and its result, and says that no driver is
// installed only when the loader has no driver manifest to read.
//
// # Optional features
//
// A device is opened with every optional shader feature it has enabled
// (fp16, int8 and 16/8-bit storage, the Vulkan memory model, subgroup-size
// control, and the extensions VK_NV_cooperative_matrix,
// VK_KHR_cooperative_matrix, VK_NV_cooperative_matrix2 and
// VK_KHR_shader_bfloat16 with their features), so that any kernel whose
// requirements DeviceInfo shows can run. The cooperative-matrix shapes come
// from vkGetPhysicalDeviceCooperativeMatrixPropertiesNV and ...KHR, and
// NV2's granularities from
// vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV, resolved
// with vkGetInstanceProcAddr and called from C (loader.c), as every entry
// point after Vulkan 1.0 is. Under a validation layer built with headers
// older than an extension (Debian 12's is 1.3.239, older than
// VK_KHR_cooperative_matrix's 1.3.255), that extension is neither queried
// nor enabled: the layer would report its structures as unknown.
//
// # Caveats
//
// Release of any object is idempotent: a second Release returns nil, and
// it never waits for the GPU: an object a recording or a submission still
// uses is destroyed when the last of them is done (lifetime.go).
// Device.Release is safe while other calls run; it waits at most ten
// seconds for work in flight, then for the device to be idle (a driver may
// clean up after a submission on a thread of its own once it signals),
// then frees everything the device still owns.
//
// # C and goki/vulkan
//
// vk calls Vulkan from C, in vk/*.c, through entry points it resolves
// itself from libvulkan.so.1 (the loader goki/vulkan opens by default,
// libvulkan.so, comes only with the development package). C is used where
// the binding cannot go or would cost: everything past Vulkan 1.0
// (timeline semaphores, host query reset, the properties2 and features2
// chains, pipeline executable statistics, subgroup and 16-bit features),
// every call that builds a pNext chain, and the recording of a dispatch,
// which allocates a descriptor set, writes it, binds the pipeline and the
// set, pushes constants and dispatches in one crossing into C instead of
// six. The Vulkan 1.0 object calls (buffers, memory, pools, pipelines)
// stay beside them in C so that one owner handles each object's handles
// and results. goki/vulkan, the binding, drives the hand-written Vulkan
// loop that BenchmarkRoundTrip measures the backend against (direct.go):
// on the H200 the backend's submit-and-wait round trip costs what the
// binding's does (45 to 50 µs against 51 to 53 µs), so neither path hides
// a cost. goki is initialised only when that loop first runs.
package vk

// DriverName is the name vk registers with hal.Register.
const DriverName = "vulkan"
