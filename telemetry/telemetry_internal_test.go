package telemetry

import (
	"errors"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
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
func (d *fakeDevice) GetPowerUsage() (uint32, nvml.Return)             { return d.mw, d.ret("power") }
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
	mine := &fakeDevice{uuid: "GPU-5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9", sm: 1980, mem: 3201, mw: 412345, mj: 123456789, temp: 51, reasons: uint64(ReasonSWPowerCap)}
	lib := &fakeLibrary{devs: []*fakeDevice{other, mine}}
	withLibrary(t, lib)
	src, err := Open(h200)
	if err != nil {
		t.Fatal(err)
	}
	s, err := src.Sample()
	if err != nil {
		t.Fatal(err)
	}
	s.Time = time.Time{}
	want := Sample{SMClockMHz: 1980, MemClockMHz: 3201, PowerW: 412.345, EnergyJ: 123456.789, TempC: 51, Reasons: ReasonSWPowerCap,
		MaxSMClockMHz: 1980, PowerLimitW: 700}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("sample (-want +got):\n%s", diff)
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
	if _, err := Open(lost); !errors.Is(err, ErrNotAvailable) {
		t.Errorf("Open of a device NVML does not list: %v, want ErrNotAvailable", err)
	}
	lib.init = nvml.ERROR_LIBRARY_NOT_FOUND
	if _, err := Open(h200); !errors.Is(err, ErrNotAvailable) {
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

// TestOpenHere opens the source of every Vulkan device of this machine:
// each either reads plausible conditions (an NVIDIA GPU with NVML, whose
// UUID must then match) or says why not, matching ErrNotAvailable; it
// never fails otherwise.
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
		src, err := Open(info)
		if err != nil {
			if !errors.Is(err, ErrNotAvailable) {
				t.Errorf("Open(%s): %v, want nil or ErrNotAvailable", info.Name, err)
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

func TestReasons(t *testing.T) {
	r := ReasonIdle | ReasonSWThermal | Reasons(1<<20)
	if got, want := r.Names(), []string{"idle", "thermal", "reason-bit-20"}; !cmp.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	if !r.Throttling() || (ReasonIdle | ReasonAppClocks).Throttling() {
		t.Error("Throttling: thermal must count, idle and application clocks must not")
	}
}

func TestSummarize(t *testing.T) {
	at := time.Unix(0, 0)
	samples := []Sample{
		{Time: at, SMClockMHz: 1980, MemClockMHz: 3201, PowerW: 300, EnergyJ: 1000, TempC: 40, Reasons: ReasonIdle},
		{Time: at, SMClockMHz: 1755, MemClockMHz: 3201, PowerW: 690, EnergyJ: 1010.5, TempC: 61, Reasons: ReasonSWPowerCap},
		{Time: at, SMClockMHz: 1800, MemClockMHz: 3201, PowerW: 650, EnergyJ: 1020, TempC: 60},
	}
	c := Summarize("nvml", samples)
	want := Conditions{Source: "nvml", Samples: 3, SMClockMHz: Range{1755, 1980}, MemClockMHz: Range{3201, 3201},
		PowerW: Range{300, 690}, TempC: Range{40, 61}, EnergyJ: 20, Throttles: []string{"power-cap"}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	if got := c.Flags(); !cmp.Equal(got, []string{FlagThrottled, FlagClocksMoved}) {
		t.Errorf("Flags = %v", got)
	}
	steady := Summarize("nvml", []Sample{{SMClockMHz: 1980}, {SMClockMHz: 1970, Reasons: ReasonIdle}})
	if got := steady.Flags(); len(got) != 0 {
		t.Errorf("steady clocks, idle only: flags %v, want none", got)
	}
}

// TestWatch samples a fake source in the background.
func TestWatch(t *testing.T) {
	d := &fakeDevice{sm: 1980, mem: 3201, mw: 100000, temp: 40}
	src := &nvmlSource{lib: &fakeLibrary{}, dev: d}
	w := Watch(src, time.Millisecond)
	// Until the background has taken a reading of its own (Watch takes
	// the first at once, Stop the last), not for a fixed 20 ms: a loaded
	// machine may not run the monitor's goroutine within 20 ms, and then
	// Stop, finding its tick and its stop both ready, ends it without the
	// reading half the time. A monitor that never reads in the
	// background still fails, after 10 s.
	for deadline := time.Now().Add(10 * time.Second); len(w.Samples()) < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	c, err := w.Stop()
	if err != nil || c.Samples < 3 || c.SMClockMHz != (Range{1980, 1980}) {
		t.Errorf("Watch, then Stop: %+v, %v; want 3 readings or more, at 1980 MHz", c, err)
	}
}

// TestAround: the conditions at some moments are those of the readings
// nearest each, each reading counted once, without a window's energy.
func TestAround(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var samples []Sample
	for i, clock := range []uint32{1400, 1980, 1980, 1500} { // at 0, 10, 20, 30 ms
		samples = append(samples, Sample{Time: at(10 * i), SMClockMHz: clock, PowerW: float64(100 * (i + 1)), EnergyJ: float64(i), TempC: 50})
	}
	c := Around("nvml", samples, []time.Time{at(9), at(12), at(16)})
	if c.Samples != 2 || c.SMClockMHz != (Range{1980, 1980}) || c.PowerW != (Range{200, 300}) || c.EnergyJ != 0 {
		t.Errorf("around 9, 12 and 16 ms: %+v; want the readings at 10 and 20 ms, no energy", c)
	}
	if c := Around("nvml", samples, []time.Time{at(-5), at(99)}); c.Samples != 2 || c.SMClockMHz != (Range{1400, 1500}) {
		t.Errorf("before the first and after the last: %+v; want the first and the last readings", c)
	}
	if c := Around("nvml", nil, []time.Time{at(1)}); c.Samples != 0 || c.String() != "no readings" {
		t.Errorf("no readings: %+v %q", c, c.String())
	}
}

// TestMerge: merged conditions widen every range and keep the throttles
// of both.
func TestMerge(t *testing.T) {
	a := Conditions{Source: "nvml", Samples: 2, SMClockMHz: Range{1900, 1980}, MemClockMHz: Range{2619, 2619}, PowerW: Range{300, 400}, TempC: Range{50, 52}, EnergyJ: 5, Throttles: []string{"power-cap"}}
	b := Conditions{Source: "nvml", Samples: 3, SMClockMHz: Range{1700, 1950}, MemClockMHz: Range{2619, 2619}, PowerW: Range{350, 690}, TempC: Range{49, 60}, Throttles: []string{"thermal", "power-cap"}}
	got := Merge(a, b)
	want := Conditions{Source: "nvml", Samples: 5, SMClockMHz: Range{1700, 1980}, MemClockMHz: Range{2619, 2619}, PowerW: Range{300, 690}, TempC: Range{49, 60}, Throttles: []string{"power-cap", "thermal"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	if got := Merge(Conditions{}, a); got.Samples != 2 || got.EnergyJ != 0 {
		t.Errorf("Merge with nothing: %+v; want a without its energy", got)
	}
	if s := got.String(); s != "SM 1700-1980 MHz, memory 2619 MHz, 300-690 W, 49-60 °C, throttled (power-cap, thermal)" {
		t.Errorf("String: %q", s)
	}
}

// TestClocksApart: more than 3% apart, in either order; an unknown clock
// (0) is apart from none.
func TestClocksApart(t *testing.T) {
	for _, tt := range []struct {
		a, b float64
		want bool
	}{
		{1980, 1980, false}, {1980, 2039, false}, {1980, 2040, true}, {2040, 1980, true},
		{345, 1980, true}, {0, 1980, false}, {1980, 0, false}, {0, 0, false},
	} {
		if got := ClocksApart(tt.a, tt.b); got != tt.want {
			t.Errorf("ClocksApart(%g, %g) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
