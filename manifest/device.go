package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// setDevice sets the device's limits in env: info's, or, for nil (the
// manifest being read), the least every Vulkan device allows.
func setDevice(env exprEnv, info *hal.DeviceInfo) {
	for _, l := range kernels.DeviceLimits {
		v := l.Least
		if info != nil {
			v = l.Of(info.Limits)
		}
		env[l.Name] = intValue(int64(v))
	}
}

// deviceValues lists the device limits e uses with their values in env,
// such as "max_shared_memory=32768", for the message of a failed assert.
func deviceValues(e *expr, env exprEnv) string {
	var vals []string
	for _, name := range e.names {
		if slices.ContainsFunc(kernels.DeviceLimits, func(l kernels.DeviceLimit) bool { return l.Name == name }) {
			vals = append(vals, fmt.Sprintf("%s=%s", name, env[name]))
		}
	}
	return strings.Join(vals, ", ")
}
