// Package vk is the Vulkan backend of vkbench. Importing it registers the
// driver "vulkan" with package hal:
//
//	import _ "github.com/vkbench/vkbench/vk"
//
//	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{Validation: true})
//
// After that everything goes through the interfaces of hal, as its
// documentation shows; vk adds only Result, the payload that says which
// Vulkan call failed and how.
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
// of the device, noticed by any goroutine, end them promptly. Every
// VkResult becomes a status in one table (result.go) whose message names
// the call ("vk: vkQueueSubmit: VK_ERROR_DEVICE_LOST"); VK_ERROR_DEVICE_LOST
// from any call, or hal.LossMarker.MarkLost, makes the device lost for
// good. An object that a recording or a submission still uses is
// destroyed when the last of them is done (lifetime.go).
//
// Buffers have a VkDeviceMemory each. Host-visible buffers stay mapped;
// device-local ones, and images, are read and written through the
// device's two staging buffers (staging.go). Images are optimal-tiling 2D
// images in the general layout between commands, so that the global
// barriers that order buffers order them too; what a device can do with
// each format is vkGetPhysicalDeviceFormatProperties' optimal-tiling
// features. Command buffers have their own command and descriptor pools,
// reset at Begin; a dispatch moves on to a pool twice as large when one
// is full, and fails with ResourceExhausted where a fresh pool with twice
// the room of the first pool, or of its bindings, is full.
//
// CreateExecutable checks the module with package spirv first: the entry
// point, the bindings, and a push-constant range at least as long as the
// module's block, so that a mismatch is InvalidArgument, not undefined
// values. Where the device has VK_KHR_pipeline_executable_properties, its
// executables implement hal.CompilerReporter.
//
// # One instance per process
//
// A driver is a handle, not a VkInstance: every driver of the process
// shares one instance without validation and one with it, each created
// the first time it is asked for and never destroyed (instance.go says
// why), so that opening drivers and devices thousands of times, as a
// program that recovers from lost devices does, creates no more
// instances. Validation messages reach the OnMessage (or Logger) of the
// driver whose call caused them (routes.go).
//
// # Optional features
//
// A device is opened with every optional shader feature it has enabled
// (fp16, int8 and 16/8-bit storage, the Vulkan memory model, subgroup-size
// control, and the extensions VK_NV_cooperative_matrix,
// VK_KHR_cooperative_matrix, VK_NV_cooperative_matrix2 and
// VK_KHR_shader_bfloat16 with their features), so that any kernel whose
// requirements DeviceInfo shows can run. Under a validation layer built
// with headers older than an extension (Debian 12's is 1.3.239, older than
// VK_KHR_cooperative_matrix's 1.3.255), that extension is neither queried
// nor enabled: the layer would report its structures as unknown.
//
// # C and goki/vulkan
//
// vk calls Vulkan from C (vk/*.c), through entry points it resolves itself
// from libvulkan.so.1: everything past Vulkan 1.0, every call that builds
// a pNext chain, and a dispatch's descriptor set, binds, push constants
// and dispatch in one crossing into C instead of six. The Vulkan 1.0
// object calls stay beside them, so that one owner handles each object's
// handles and results. The binding goki/vulkan drives only the
// hand-written loop that BenchmarkRoundTrip measures the backend against
// (direct.go): on the H200 the backend's submit-and-wait round trip costs
// what the binding's does (45 to 50 µs against 51 to 53 µs).
package vk

// DriverName is the name vk registers with hal.Register.
const DriverName = "vulkan"
