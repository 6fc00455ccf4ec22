package kernels_test

import (
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// TestSupportedSets: a candidate of three descriptor sets is unsupported
// on a device that binds two, saying how many it needs and the device
// has, and supported on one that binds four; one of set 0 alone is
// supported even where the device does not say how many it binds.
func TestSupportedSets(t *testing.T) {
	info := hal.DeviceInfo{Limits: hal.Limits{MaxWorkgroupSize: [3]uint32{64, 1, 1}, MaxWorkgroupInvocations: 64,
		MaxPushConstantsSize: 128, MaxBoundDescriptorSets: 2}}
	c := kernels.Candidate{Name: "sets", WorkgroupSize: [3]uint32{64, 1, 1}, Bindings: 2, Sets: []int{1, 0, 1}}
	err := c.Supported(info)
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "needs 3 descriptor sets, device has 2") {
		t.Errorf("3 sets on a device of 2: %v; want UNIMPLEMENTED saying it needs 3 and the device has 2", err)
	}
	info.Limits.MaxBoundDescriptorSets = 4
	if err := c.Supported(info); err != nil {
		t.Errorf("3 sets on a device of 4: %v", err)
	}
	info.Limits.MaxBoundDescriptorSets = 0
	c.Sets = nil
	if err := c.Supported(info); err != nil {
		t.Errorf("set 0 alone on a device that does not say: %v", err)
	}
}
