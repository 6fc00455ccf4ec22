package hal_test

import (
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
)

func TestDriverVersionString(t *testing.T) {
	for _, tc := range []struct {
		d    hal.DeviceInfo
		want string
	}{
		{hal.DeviceInfo{VendorID: hal.VendorNVIDIA, DriverVersion: 580<<22 | 159<<14 | 4<<6}, "580.159.4.0"},
		{hal.DeviceInfo{VendorID: hal.VendorIntel, DriverID: 5, DriverVersion: 101<<14 | 5333}, "101.5333"},
		{hal.DeviceInfo{VendorID: hal.VendorAMD, DriverVersion: 2<<22 | 0<<12 | 301}, "2.0.301"},
		{hal.DeviceInfo{VendorID: hal.VendorMesa, DriverID: 13, DriverVersion: 1, DriverInfo: "Mesa 22.3.6 (LLVM 15.0.6)"}, "22.3.6"},
		{hal.DeviceInfo{VendorID: hal.VendorMesa, DriverID: 13, DriverVersion: 1, DriverInfo: "odd"}, "0.0.1"},
	} {
		if got := tc.d.DriverVersionString(); got != tc.want {
			t.Errorf("DriverVersionString(%+v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestHardwareNamesTheDriver: the hardware name is the cache table's, so an
// answer is reused only on the same GPU with the same driver. Every part
// of the identity changes the name (a driver update above all: the answer
// recorded under 580.95 must not serve 580.159); what is not identity (the
// limits, the memory) does not.
func TestHardwareNamesTheDriver(t *testing.T) {
	nv := func(v [4]uint32) uint32 { return v[0]<<22 | v[1]<<14 | v[2]<<6 | v[3] }
	base := hal.DeviceInfo{
		Name: "NVIDIA H200", VendorID: hal.VendorNVIDIA, DeviceID: 0x2335,
		DriverID: 4, DriverName: "NVIDIA", DriverVersion: nv([4]uint32{580, 159, 4, 0}),
	}
	name := base.Hardware()
	if want := "nvidia_2335_nvidia-h200_nvidia_580.159.4.0"; name != want {
		t.Errorf("Hardware() = %q, want %q", name, want)
	}
	for what, change := range map[string]func(*hal.DeviceInfo){
		"the driver version": func(d *hal.DeviceInfo) { d.DriverVersion = nv([4]uint32{580, 95, 5, 0}) },
		"the driver":         func(d *hal.DeviceInfo) { d.DriverName = "NVK" },
		"the device":         func(d *hal.DeviceInfo) { d.DeviceID = 0x2330 },
		"the vendor":         func(d *hal.DeviceInfo) { d.VendorID = hal.VendorAMD },
		"the name":           func(d *hal.DeviceInfo) { d.Name = "NVIDIA H100" },
	} {
		d := base
		change(&d)
		if d.Hardware() == name {
			t.Errorf("changing %s leaves Hardware() at %q", what, name)
		}
	}
	lp := hal.DeviceInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", VendorID: 0x10005, DriverID: 13, DriverName: "llvmpipe", DriverInfo: "Mesa 22.3.6 (LLVM 15.0.6)"}
	lp2 := lp
	lp2.DriverInfo = "Mesa 23.0.1 (LLVM 15.0.6)"
	if lp.Hardware() == lp2.Hardware() {
		t.Errorf("two Mesa releases share the hardware name %q", lp.Hardware())
	}
	same := base
	same.Limits.TimestampPeriod = 2
	if same.Hardware() != name {
		t.Errorf("a change of limits renames the hardware: %q, want %q", same.Hardware(), name)
	}
}

// TestSubgroupsUnsupported: the one rule of a pipeline's required
// subgroup size and full subgroups, on a device of subgroups 16 to 64
// and 8 subgroups per workgroup at most.
func TestSubgroupsUnsupported(t *testing.T) {
	var info hal.DeviceInfo
	info.Limits.MinSubgroupSize, info.Limits.MaxSubgroupSize, info.Limits.MaxComputeWorkgroupSubgroups = 16, 64, 8
	info.Features.RequiredSubgroupSize, info.Features.ComputeFullSubgroups = true, true
	for _, tt := range []struct {
		size uint32
		full bool
		wg   [3]uint32
		says string // "" when supported
	}{
		{0, false, [3]uint32{7, 1, 1}, ""},
		{32, true, [3]uint32{64, 2, 1}, ""},
		{0, true, [3]uint32{128, 1, 1}, ""},
		{0, true, [3]uint32{32, 1, 1}, "workgroup of 32 in x, not a multiple of the subgroup size 64"},
		{24, false, [3]uint32{48, 1, 1}, "not a power of two"},
		{8, false, [3]uint32{64, 1, 1}, "needs a subgroup size of 8, device has 16 to 64"},
		{128, false, [3]uint32{128, 1, 1}, "needs a subgroup size of 128, device has 16 to 64"},
		{16, false, [3]uint32{256, 1, 1}, "needs 256 invocations in subgroups of 16, more than the device's 8"},
		{16, true, [3]uint32{24, 1, 1}, "workgroup of 24 in x, not a multiple of the subgroup size 16"},
	} {
		got := info.SubgroupsUnsupported(tt.size, tt.full, tt.wg)
		if tt.says == "" && got != "" || !strings.Contains(got, tt.says) {
			t.Errorf("SubgroupsUnsupported(%d, %v, %v) = %q, want %q", tt.size, tt.full, tt.wg, got, tt.says)
		}
	}
	info.Features.RequiredSubgroupSize = false
	if got := info.SubgroupsUnsupported(32, false, [3]uint32{32, 1, 1}); !strings.Contains(got, "subgroupSizeControl") {
		t.Errorf("without subgroup size control: %q", got)
	}
	info.Features.ComputeFullSubgroups = false
	if got := info.SubgroupsUnsupported(0, true, [3]uint32{64, 1, 1}); !strings.Contains(got, "computeFullSubgroups") {
		t.Errorf("without full subgroups: %q", got)
	}
}
