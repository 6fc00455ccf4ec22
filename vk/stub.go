//go:build !cgo

package vk

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// Without cgo there is no way to call Vulkan: the driver is registered, so
// that asking for it says why it cannot open rather than "unknown driver".
func init() {
	hal.Register(DriverName, func(hal.DriverOptions) (hal.Driver, error) {
		return nil, status.New(status.Unimplemented, "vk: built without cgo (CGO_ENABLED=0): the Vulkan backend needs cgo and a C compiler")
	})
}
