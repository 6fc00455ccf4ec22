//go:build cgo

package vk

/*
#include <stdlib.h>
#include "vkb.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// Instances are never destroyed. NVIDIA's driver on the H200 refuses the
// 31st vkCreateInstance of a process with VK_ERROR_INCOMPATIBLE_DRIVER,
// even when each instance was destroyed before the next was created: the
// limit counts creations, not live instances, so reference counting would
// still run into it, in a program that recovers from a lost device twice
// a day. An instance costs little kept.

// instance is a VkInstance and the physical devices it sees.
type instance struct {
	c *C.vkb_instance
	// phys lists the physical devices once; the list does not change for
	// the life of the instance. Guarded by instances.mu until listed.
	phys   []*physicalDevice
	listed bool
}

var instances struct {
	mu sync.Mutex
	// plain and validating are the two instances, nil until made.
	plain, validating *instance
	// created counts the instances this process has created, for tests.
	created int
}

const (
	apiVersion12 = 1<<22 | 2<<12
	apiVersion13 = 1<<22 | 3<<12
)

// sharedInstance returns the process's instance with validation on or
// off, creating it and listing its physical devices the first time. A
// failure is not kept: the next call tries again. route receives the
// messages of creating and listing.
func sharedInstance(validation bool, route uintptr) (*instance, error) {
	if err := load(); err != nil {
		return nil, err
	}
	instances.mu.Lock()
	defer instances.mu.Unlock()
	slot := &instances.plain
	if validation {
		slot = &instances.validating
	}
	if *slot == nil {
		in, err := createInstance(validation, route)
		if err != nil {
			return nil, err
		}
		*slot = in
	}
	in := *slot
	if !in.listed {
		// An instance whose listing failed is kept, not made again: making
		// it counts against the driver's limit, listing does not.
		phys, err := listPhysicalDevices(in.c)
		if err != nil {
			return nil, err
		}
		in.phys, in.listed = phys, true
	}
	return in, nil
}

// createInstance creates a VkInstance of the highest Vulkan version vk
// uses that the loader supports.
func createInstance(validation bool, route uintptr) (*instance, error) {
	loaderVersion := hal.Version(C.vkb_loader_version())
	if loaderVersion < apiVersion12 {
		return nil, status.Newf(status.Incompatible, "vk: the Vulkan loader libvulkan.so.1 supports Vulkan %s; vkbench needs 1.2 or later (upgrade libvulkan1)", loaderVersion)
	}
	api := uint32(apiVersion12)
	if loaderVersion >= apiVersion13 {
		api = apiVersion13
	}
	if validation {
		if err := checkValidationLayer(); err != nil {
			return nil, err
		}
	}
	in := &instance{}
	var failed *C.char
	r := C.vkb_create_instance(C.uint32_t(api), boolInt(validation), C.uintptr_t(route), &in.c, &failed)
	if r != C.VK_SUCCESS {
		return nil, createError(C.GoString(failed), int32(r), driverManifests())
	}
	instances.created++
	return in, nil
}

// createError is the error of a failed vkCreateInstance (or of the
// messenger vk creates with it), given the driver manifests the loader
// would read. The loader answers VK_ERROR_INCOMPATIBLE_DRIVER both when it
// finds no driver and when the drivers it finds refuse the instance (a
// driver whose library does not load, or NVIDIA's past its limit of
// instances), so only a search that finds no manifest says that no
// driver is installed.
func createError(call string, r int32, manifests []string) error {
	err := resultError(call, r)
	if r != vkErrorIncompatible {
		return err
	}
	if len(manifests) == 0 {
		return status.Annotate(err, "no Vulkan driver is installed (no driver manifest in the loader's icd.d folders or VK_DRIVER_FILES): on Debian, mesa-vulkan-drivers provides lavapipe (on the CPU); GPUs need their vendor's driver")
	}
	return status.Annotatef(err, "no installed Vulkan driver accepted the instance (%s): its library may not load, it may be older than Vulkan 1.2, or it may refuse more instances in this process; VK_LOADER_DEBUG=error,driver shows the loader's reasons",
		listed(manifests, 3))
}

const validationLayer = "VK_LAYER_KHRONOS_validation"

// checkValidationLayer checks that the validation layer and the debug
// utils extension (which the layer itself provides) are installed.
func checkValidationLayer() error {
	layer := C.CString(validationLayer)
	defer C.free(unsafe.Pointer(layer))
	var found C.int
	if r := C.vkb_find_layer(layer, &found, nil); r != C.VK_SUCCESS {
		return resultError("vkEnumerateInstanceLayerProperties", int32(r))
	}
	if found == 0 {
		return status.New(status.FailedPrecondition, "vk: validation was asked for but the layer "+validationLayer+" is not installed (install the Debian package vulkan-validationlayers)")
	}
	ext := C.CString("VK_EXT_debug_utils")
	defer C.free(unsafe.Pointer(ext))
	if r := C.vkb_has_instance_extension(layer, ext, &found); r != C.VK_SUCCESS {
		return resultError("vkEnumerateInstanceExtensionProperties", int32(r))
	}
	if found == 0 {
		if r := C.vkb_has_instance_extension(nil, ext, &found); r != C.VK_SUCCESS {
			return resultError("vkEnumerateInstanceExtensionProperties", int32(r))
		}
	}
	if found == 0 {
		return status.New(status.FailedPrecondition, "vk: validation was asked for but VK_EXT_debug_utils is missing, so its messages could not be received")
	}
	return nil
}

// listPhysicalDevices lists and describes the physical devices of in.
func listPhysicalDevices(in *C.vkb_instance) ([]*physicalDevice, error) {
	handles, r := enumerate(func(n *C.uint32_t, out *C.VkPhysicalDevice) C.VkResult {
		return C.vkb_physical_devices(in, n, out)
	})
	if r != C.VK_SUCCESS {
		return nil, resultError("vkEnumeratePhysicalDevices", int32(r))
	}
	phys := make([]*physicalDevice, 0, len(handles))
	for i, h := range handles {
		// C memory, kept with the instance for the life of the process.
		pd := &physicalDevice{handle: h, c: (*C.vkb_pd_info)(C.calloc(1, C.sizeof_vkb_pd_info))}
		C.vkb_query_physical_device(in, h, pd.c)
		pd.describe(i)
		pd.info.ImageFormats = imageFormats(in, h)
		phys = append(phys, pd)
	}
	return phys, nil
}

// enumerate makes Vulkan's two calls of a list: list(&n, nil) for the
// count, then list(&n, out) for n elements; VK_INCOMPLETE, a list that
// shrank between the calls, is success with what came.
func enumerate[T any, N C.uint32_t | C.size_t](list func(n *N, out *T) C.VkResult) ([]T, C.VkResult) {
	var n N
	if r := list(&n, nil); r != C.VK_SUCCESS || n == 0 {
		return nil, r
	}
	out := make([]T, n)
	if r := list(&n, &out[0]); r != C.VK_SUCCESS && r != C.VK_INCOMPLETE {
		return nil, r
	}
	return out[:n], C.VK_SUCCESS
}
