package nvml

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/telemetry"
	"github.com/vkbench/vkbench/vk"
)

// fakeDevice answers as an NVML device would, from fixed values.
type fakeDevice struct {
	nvml.Device // what the source does not ask for panics
	uuid        string
	sm, mem     uint32
	mw          uint32
	mj          uint64
	temp        uint32
	reasons     uint64
	instantMW   uint32 // the instantaneous power field; 0: the driver lacks it
	fail        string // the call that fails, if any
}

func (d *fakeDevice) ret(call string) nvml.Return {
	if d.fail == call {
		return nvml.ERROR_UNKNOWN
	}
	return nvml.SUCCESS
}

func (d *fakeDevice) GetUUID() (string, nvml.Return) { return d.uuid, d.ret("uuid") }
func (d *fakeDevice) GetClockInfo(t nvml.ClockType) (uint32, nvml.Return) {
	if t == nvml.CLOCK_SM {
		return d.sm, d.ret("sm")
	}
	return d.mem, d.ret("mem")
}
func (d *fakeDevice) GetPowerUsage() (uint32, nvml.Return) { return d.mw, d.ret("power") }
func (d *fakeDevice) GetFieldValues(v []nvml.FieldValue) nvml.Return {
	for i := range v {
		if v[i].FieldId != nvml.FI_DEV_POWER_INSTANT || d.instantMW == 0 {
			v[i].NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
			continue
		}
		v[i].NvmlReturn, v[i].ValueType = uint32(nvml.SUCCESS), uint32(nvml.VALUE_TYPE_UNSIGNED_INT)
		binary.LittleEndian.PutUint32(v[i].Value[:], d.instantMW)
	}
	return nvml.SUCCESS
}
func (d *fakeDevice) GetTotalEnergyConsumption() (uint64, nvml.Return) { return d.mj, d.ret("energy") }
func (d *fakeDevice) GetTemperature(nvml.TemperatureSensors) (uint32, nvml.Return) {
	return d.temp, d.ret("temp")
}
func (d *fakeDevice) GetCurrentClocksEventReasons() (uint64, nvml.Return) {
	return d.reasons, d.ret("reasons")
}
func (d *fakeDevice) GetMaxClockInfo(nvml.ClockType) (uint32, nvml.Return) {
	return 1980, d.ret("max")
}
func (d *fakeDevice) GetPowerManagementLimit() (uint32, nvml.Return) { return 700000, d.ret("limit") }

// fakeLibrary is an NVML library of fake devices.
type fakeLibrary struct {
	devs      []*fakeDevice
	init      nvml.Return
	shutdowns int
}

func (l *fakeLibrary) Init() nvml.Return                  { return l.init }
func (l *fakeLibrary) Shutdown() nvml.Return              { l.shutdowns++; return nvml.SUCCESS }
func (l *fakeLibrary) DeviceGetCount() (int, nvml.Return) { return len(l.devs), nvml.SUCCESS }
func (l *fakeLibrary) DeviceGetHandleByIndex(i int) (nvml.Device, nvml.Return) {
	return l.devs[i], nvml.SUCCESS
}

// withLibrary makes Open use lib, where the machine has no NVML of its
// own: a real library is never replaced by a fake.
func withLibrary(t *testing.T, lib nvmlLibrary) {
	t.Helper()
	if r := nvml.Init(); r == nvml.SUCCESS {
		_ = nvml.Shutdown()
		t.Skip("this machine has NVML: the fake is used only where the real library is absent")
	}
	old := openNVML
	openNVML = func() nvmlLibrary { return lib }
	t.Cleanup(func() { openNVML = old })
}

var h200 = hal.DeviceInfo{Name: "NVIDIA H200", VendorID: hal.VendorNVIDIA,
	DeviceUUID: [16]byte{0x5a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71, 0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9}}

func TestParseUUID(t *testing.T) {
	u, ok := parseUUID("GPU-5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9")
	if !ok || u != h200.DeviceUUID {
		t.Errorf("parseUUID = %x, %v; want %x", u, ok, h200.DeviceUUID)
	}
	for _, bad := range []string{"", "GPU-", "GPU-5a1b", "MIG-zz", "GPU-5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9aa"} {
		if _, ok := parseUUID(bad); ok {
			t.Errorf("parseUUID(%q) accepted", bad)
		}
	}
}

func TestOpenMatchesByUUID(t *testing.T) {
	other := &fakeDevice{uuid: "GPU-00000000-0000-0000-0000-000000000000"}
	mine := &fakeDevice{uuid: "GPU-5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9", sm: 1980, mem: 3201, mw: 412345, mj: 123456789, temp: 51, reasons: uint64(telemetry.ReasonSWPowerCap)}
	lib := &fakeLibrary{devs: []*fakeDevice{other, mine}}
	withLibrary(t, lib)
	src, err := open(h200)
	if err != nil {
		t.Fatal(err)
	}
	s, err := src.Sample()
	if err != nil {
		t.Fatal(err)
	}
	s.Time = time.Time{}
	want := telemetry.Sample{SMClockMHz: 1980, MemClockMHz: 3201, PowerW: 412.345, EnergyJ: 123456.789, TempC: 51, Reasons: telemetry.ReasonSWPowerCap,
		MaxSMClockMHz: 1980, PowerLimitW: 700}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("sample (-want +got):\n%s", diff)
	}
	// Where the driver has the instantaneous power, it is the power.
	mine.instantMW = 655500
	if s, err := src.Sample(); err != nil || s.PowerW != 655.5 {
		t.Errorf("with the instantaneous field: %g W (%v), want 655.5 W, not the average's 412.345", s.PowerW, err)
	}
	if err := src.Close(); err != nil || lib.shutdowns != 1 {
		t.Errorf("Close = %v after %d shutdowns", err, lib.shutdowns)
	}
	if _, err := src.Sample(); err == nil {
		t.Error("Sample after Close worked")
	}

	// A device NVML does not know, and a library that does not start.
	lost := h200
	lost.DeviceUUID[0] ^= 1
	if _, err := open(lost); !errors.Is(err, telemetry.ErrNotAvailable) {
		t.Errorf("Open of a device NVML does not list: %v, want ErrNotAvailable", err)
	}
	lib.init = nvml.ERROR_LIBRARY_NOT_FOUND
	if _, err := open(h200); !errors.Is(err, telemetry.ErrNotAvailable) {
		t.Errorf("Open without the library: %v, want ErrNotAvailable", err)
	}
}

func TestSampleFailures(t *testing.T) {
	// The limits are optional: their failure leaves them zero.
	for _, call := range []string{"max", "limit"} {
		s, err := readSample(&fakeDevice{fail: call}, time.Now())
		if err != nil || (call == "max" && s.MaxSMClockMHz != 0) || (call == "limit" && s.PowerLimitW != 0) {
			t.Errorf("a failing %s call: %+v, %v; want the sample, without it", call, s, err)
		}
	}
	for _, call := range []string{"sm", "mem", "power", "energy", "temp", "reasons"} {
		d := &fakeDevice{fail: call}
		if _, err := readSample(d, time.Now()); err == nil {
			t.Errorf("a failing %s call made no error", call)
		}
	}
}

// TestOpenHere opens, through package telemetry and the registration of
// this one, the source of every Vulkan device of this machine: each either
// reads plausible conditions (an NVIDIA GPU with NVML, whose UUID must
// then match) or says why not, matching ErrNotAvailable; it never fails
// otherwise.
func TestOpenHere(t *testing.T) {
	drv, err := hal.OpenDriver(vk.DriverName, hal.DriverOptions{})
	if err != nil {
		testenv.Unavailable(t, "no Vulkan: %v", err)
	}
	defer func() { _ = drv.Release() }()
	infos, err := drv.Enumerate()
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range append(infos, h200) {
		src, err := telemetry.Open(info)
		if err != nil {
			if !errors.Is(err, telemetry.ErrNotAvailable) {
				t.Errorf("Open(%s): %v, want nil or telemetry.ErrNotAvailable", info.Name, err)
			}
			t.Logf("%s: %v", info.Name, err)
			continue
		}
		s, err := src.Sample()
		if err != nil {
			t.Errorf("%s: Sample: %v", info.Name, err)
		} else if s.SMClockMHz == 0 || s.MemClockMHz == 0 || s.PowerW <= 0 || s.EnergyJ <= 0 {
			t.Errorf("%s: implausible sample %+v", info.Name, s)
		}
		t.Logf("%s: %+v (reasons %v)", info.Name, s, s.Reasons.Names())
		if err := src.Close(); err != nil {
			t.Error(err)
		}
	}
}
