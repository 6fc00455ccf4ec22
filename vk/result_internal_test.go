package vk

import (
	"errors"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

func TestResultError(t *testing.T) {
	for _, tc := range []struct {
		code int32
		want status.Code
		text string
	}{
		{vkErrorOutOfHostMemory, status.ResourceExhausted, "vk: vkAllocateMemory: VK_ERROR_OUT_OF_HOST_MEMORY"},
		{vkErrorOutOfDeviceMemory, status.ResourceExhausted, "vk: vkAllocateMemory: VK_ERROR_OUT_OF_DEVICE_MEMORY"},
		{vkErrorDeviceLost, status.DataLoss, "vk: vkAllocateMemory: VK_ERROR_DEVICE_LOST"},
		{-3, status.Unavailable, "vk: vkAllocateMemory: VK_ERROR_INITIALIZATION_FAILED"},
		{-6, status.FailedPrecondition, "vk: vkAllocateMemory: VK_ERROR_LAYER_NOT_PRESENT"},
		{-7, status.Unimplemented, "vk: vkAllocateMemory: VK_ERROR_EXTENSION_NOT_PRESENT"},
		{-9, status.Incompatible, "vk: vkAllocateMemory: VK_ERROR_INCOMPATIBLE_DRIVER"},
		{vkTimeout, status.DeadlineExceeded, "vk: vkAllocateMemory: VK_TIMEOUT"},
		{-424242, status.Unknown, "vk: vkAllocateMemory: VkResult(-424242)"},
	} {
		err := resultError("vkAllocateMemory", tc.code)
		if got := status.CodeOf(err); got != tc.want {
			t.Errorf("%d: code %v, want %v", tc.code, got, tc.want)
		}
		if got := status.Message(err); got != tc.text {
			t.Errorf("%d: message %q, want %q", tc.code, got, tc.text)
		}
		r, ok := status.Payload[Result](err)
		if !ok || r != (Result{Call: "vkAllocateMemory", Code: tc.code}) {
			t.Errorf("%d: payload %+v, %v", tc.code, r, ok)
		}
		if lost := errors.Is(err, hal.ErrDeviceLost); lost != (tc.code == vkErrorDeviceLost) {
			t.Errorf("%d: errors.Is(err, hal.ErrDeviceLost) = %v", tc.code, lost)
		}
	}
	if err := resultError("vkQueueSubmit", vkSuccess); err != nil {
		t.Errorf("VK_SUCCESS: %v", err)
	}
	if got := (Result{Call: "vkQueueSubmit", Code: vkErrorDeviceLost}).String(); got != "vkQueueSubmit: VK_ERROR_DEVICE_LOST" {
		t.Errorf("Result.String() = %q", got)
	}
}

func TestLostError(t *testing.T) {
	fromDriver := resultError("vkQueueSubmit", vkErrorDeviceLost)
	if got := lostError(fromDriver); got != fromDriver {
		t.Errorf("a loss reported by the driver is kept as it is: %v", got)
	}
	cause := errors.New("injected")
	err := lostError(cause)
	if !errors.Is(err, hal.ErrDeviceLost) || !errors.Is(err, cause) || status.CodeOf(err) != status.DataLoss {
		t.Errorf("lostError(%v) = %v: want DATA_LOSS matching hal.ErrDeviceLost and the cause", cause, err)
	}
	if !errors.Is(lostError(nil), hal.ErrDeviceLost) {
		t.Error("lostError(nil) does not match hal.ErrDeviceLost")
	}
}
