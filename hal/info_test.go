package hal_test

import (
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
