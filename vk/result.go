package vk

import (
	"cmp"
	"strconv"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// Result is the payload of every error that a failed Vulkan call caused:
// which call failed and the VkResult it returned. Read it back with
//
//	r, ok := status.Payload[vk.Result](err)
type Result struct {
	// Call is the Vulkan command, such as "vkQueueSubmit".
	Call string
	// Code is the raw VkResult, such as -4 for VK_ERROR_DEVICE_LOST.
	Code int32
}

// String returns "vkQueueSubmit: VK_ERROR_DEVICE_LOST".
func (r Result) String() string { return r.Call + ": " + resultName(r.Code) }

// VkResult values that vk tests for by name (from vulkan_core.h).
const (
	vkSuccess                = 0
	vkTimeout                = 2
	vkErrorOutOfHostMemory   = -1
	vkErrorOutOfDeviceMemory = -2
	vkErrorInitFailed        = -3
	vkErrorDeviceLost        = -4
	vkErrorIncompatible      = -9
	vkErrorOutOfPoolMemory   = -1000069000
	vkErrorFragmentedPool    = -12
)

// results is the one table that turns a VkResult into a status: its name
// and the code a failure of that kind has.
var results = map[int32]struct {
	name string
	code status.Code
}{
	vkSuccess: {"VK_SUCCESS", status.OK},
	1:         {"VK_NOT_READY", status.Unavailable},
	vkTimeout: {"VK_TIMEOUT", status.DeadlineExceeded},
	3:         {"VK_EVENT_SET", status.Internal},
	4:         {"VK_EVENT_RESET", status.Internal},
	5:         {"VK_INCOMPLETE", status.Internal},

	vkErrorOutOfHostMemory:   {"VK_ERROR_OUT_OF_HOST_MEMORY", status.ResourceExhausted},
	vkErrorOutOfDeviceMemory: {"VK_ERROR_OUT_OF_DEVICE_MEMORY", status.ResourceExhausted},
	vkErrorInitFailed:        {"VK_ERROR_INITIALIZATION_FAILED", status.Unavailable},
	vkErrorDeviceLost:        {"VK_ERROR_DEVICE_LOST", status.DataLoss},
	-5:                       {"VK_ERROR_MEMORY_MAP_FAILED", status.ResourceExhausted},
	-6:                       {"VK_ERROR_LAYER_NOT_PRESENT", status.FailedPrecondition},
	-7:                       {"VK_ERROR_EXTENSION_NOT_PRESENT", status.Unimplemented},
	-8:                       {"VK_ERROR_FEATURE_NOT_PRESENT", status.Unimplemented},
	vkErrorIncompatible:      {"VK_ERROR_INCOMPATIBLE_DRIVER", status.Incompatible},
	-10:                      {"VK_ERROR_TOO_MANY_OBJECTS", status.ResourceExhausted},
	-11:                      {"VK_ERROR_FORMAT_NOT_SUPPORTED", status.Unimplemented},
	vkErrorFragmentedPool:    {"VK_ERROR_FRAGMENTED_POOL", status.ResourceExhausted},
	-13:                      {"VK_ERROR_UNKNOWN", status.Unknown},
	vkErrorOutOfPoolMemory:   {"VK_ERROR_OUT_OF_POOL_MEMORY", status.ResourceExhausted},
	-1000072003:              {"VK_ERROR_INVALID_EXTERNAL_HANDLE", status.InvalidArgument},
	-1000161000:              {"VK_ERROR_FRAGMENTATION", status.ResourceExhausted},
	-1000257000:              {"VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS", status.InvalidArgument},
	1000297000:               {"VK_PIPELINE_COMPILE_REQUIRED", status.Unavailable},
	-1000011001:              {"VK_ERROR_VALIDATION_FAILED_EXT", status.Internal},
	-1000012000:              {"VK_ERROR_INVALID_SHADER_NV", status.InvalidArgument},
	-1000174001:              {"VK_ERROR_NOT_PERMITTED_KHR", status.PermissionDenied},
	-1000338000:              {"VK_ERROR_COMPRESSION_EXHAUSTED_EXT", status.ResourceExhausted},
}

// resultName returns the VkResult's name, or "VkResult(n)".
func resultName(r int32) string {
	return cmp.Or(results[r].name, "VkResult("+strconv.Itoa(int(r))+")")
}

// resultError returns the status for VkResult r returned by call: nil for
// VK_SUCCESS, else an error with the table's code, a message that names
// the call ("vk: vkQueueSubmit: VK_ERROR_DEVICE_LOST") and a Result
// payload. VK_ERROR_DEVICE_LOST also wraps hal.ErrDeviceLost. Codes the
// table does not know are Unknown.
func resultError(call string, r int32) error {
	if r == vkSuccess {
		return nil
	}
	code := cmp.Or(results[r].code, status.Unknown) // only VK_SUCCESS is OK
	msg := "vk: " + call + ": " + resultName(r)
	err := status.New(code, msg)
	if r == vkErrorDeviceLost {
		err = status.Wrap(hal.ErrDeviceLost, code, msg)
	}
	return status.WithPayload(err, Result{Call: call, Code: r})
}
