package hal_test

import (
	"os"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

func readSPIRV(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("haltest/testdata/add.spv")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestCheckSPIRV(t *testing.T) {
	good := readSPIRV(t)
	if err := hal.CheckSPIRV(good, "main"); err != nil {
		t.Fatalf("a glslc module fails the check: %v", err)
	}
	m, err := hal.ParseSPIRV(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.EntryPoints) != 1 || m.EntryPoints[0] != "main" {
		t.Errorf("entry points = %q", m.EntryPoints)
	}
	mutate := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	bad := map[string][]byte{
		"empty":                 nil,
		"odd length":            good[:len(good)-1],
		"header only":           good[:20],
		"short header":          good[:12],
		"wrong magic":           mutate(func(b []byte) []byte { b[0] ^= 0xff; return b }),
		"version 2.0":           mutate(func(b []byte) []byte { b[6] = 2; return b }),
		"without OpFunctionEnd": good[:len(good)-4],
		"cut mid-module":        good[:len(good)/2&^3],
		"word count past end":   mutate(func(b []byte) []byte { b[len(b)-2] = 0x40; return b }),
		"word count zero":       mutate(func(b []byte) []byte { b[22], b[23] = 0, 0; return b }),
	}
	for name, code := range bad {
		t.Run(name, func(t *testing.T) {
			err := hal.CheckSPIRV(code, "main")
			if status.CodeOf(err) != status.InvalidArgument {
				t.Errorf("CheckSPIRV = %v, want InvalidArgument", err)
			}
		})
	}
	if err := hal.CheckSPIRV(good, "other"); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("missing entry point: %v", err)
	}
}

func FuzzCheckSPIRV(f *testing.F) {
	good, err := os.ReadFile("haltest/testdata/add.spv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, "main")
	f.Add(good[:len(good)-4], "main")
	f.Add([]byte{3, 2, 35, 7}, "")
	f.Fuzz(func(t *testing.T, code []byte, entry string) {
		err := hal.CheckSPIRV(code, entry)
		if err != nil && status.CodeOf(err) != status.InvalidArgument {
			t.Fatalf("CheckSPIRV error with code %v: %v", status.CodeOf(err), err)
		}
	})
}

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
