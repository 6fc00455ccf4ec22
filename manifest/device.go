package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/hal"
)

// deviceLimit is a limit of the device that an expression may name. Its
// value is the device's when a problem is prepared; when the manifest is
// read, before any device, it is the least every Vulkan device allows
// (least), so that the checks at load time hold on any device.
type deviceLimit struct {
	name  string
	least uint32
	of    func(hal.Limits) uint32
}

var deviceLimits = []deviceLimit{
	{"max_groups_x", 65535, func(l hal.Limits) uint32 { return l.MaxWorkgroupCount[0] }},
	{"max_groups_y", 65535, func(l hal.Limits) uint32 { return l.MaxWorkgroupCount[1] }},
	{"max_groups_z", 65535, func(l hal.Limits) uint32 { return l.MaxWorkgroupCount[2] }},
	{"max_workgroup_size_x", 128, func(l hal.Limits) uint32 { return l.MaxWorkgroupSize[0] }},
	{"max_workgroup_size_y", 128, func(l hal.Limits) uint32 { return l.MaxWorkgroupSize[1] }},
	{"max_workgroup_size_z", 64, func(l hal.Limits) uint32 { return l.MaxWorkgroupSize[2] }},
	{"max_workgroup_invocations", 128, func(l hal.Limits) uint32 { return l.MaxWorkgroupInvocations }},
	{"max_shared_memory", 16384, func(l hal.Limits) uint32 { return l.MaxSharedMemory }},
	{"subgroup_size", 1, func(l hal.Limits) uint32 { return l.SubgroupSize }},
}

// setDevice sets the device's limits in env: info's, or, for nil (the
// manifest being read), the least every Vulkan device allows.
func setDevice(env exprEnv, info *hal.DeviceInfo) {
	for _, l := range deviceLimits {
		v := l.least
		if info != nil {
			v = l.of(info.Limits)
		}
		env[l.name] = intValue(int64(v))
	}
}

// deviceValues lists the device limits e uses with their values in env,
// such as "max_shared_memory=32768", for the message of a failed assert.
func deviceValues(e *expr, env exprEnv) string {
	var vals []string
	for _, name := range e.names {
		if slices.ContainsFunc(deviceLimits, func(l deviceLimit) bool { return l.name == name }) {
			vals = append(vals, fmt.Sprintf("%s=%s", name, env[name]))
		}
	}
	return strings.Join(vals, ", ")
}
