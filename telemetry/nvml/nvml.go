// Package nvml is the telemetry source of NVIDIA GPUs: it reads their
// clocks, power, energy and temperature through NVML, the library the
// driver installs (libnvidia-ml.so.1, loaded at run time, so a program
// built with it still runs where there is none). The NVML device is
// matched to the Vulkan device by UUID.
//
// Its binding is cgo and large, so only a program that asks for it
// imports it, for its side effect of registering the source "nvml":
//
//	import _ "github.com/vkbench/vkbench/telemetry/nvml"
package nvml

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// Name is the name the source registers under, and what its readings say
// they come from.
const Name = "nvml"

func init() { telemetry.Register(Name, open) }

var errClosed = errors.New("telemetry: source closed")

// nvmlDevice is the part of go-nvml's Device the source asks of, so that
// its parsing can be tested without a GPU.
type nvmlDevice interface {
	GetClockInfo(nvml.ClockType) (uint32, nvml.Return)
	GetPowerUsage() (uint32, nvml.Return)
	GetFieldValues([]nvml.FieldValue) nvml.Return
	GetTotalEnergyConsumption() (uint64, nvml.Return)
	GetTemperature(nvml.TemperatureSensors) (uint32, nvml.Return)
	GetCurrentClocksEventReasons() (uint64, nvml.Return)
	GetMaxClockInfo(nvml.ClockType) (uint32, nvml.Return)
	GetPowerManagementLimit() (uint32, nvml.Return)
}

// nvmlLibrary is what the NVML source asks of the library.
type nvmlLibrary interface {
	Init() nvml.Return
	Shutdown() nvml.Return
	DeviceGetCount() (int, nvml.Return)
	DeviceGetHandleByIndex(int) (nvml.Device, nvml.Return)
}

// openNVML is the library Open uses; tests replace it where the real one
// is absent.
var openNVML = func() nvmlLibrary { return nvml.New() }

// nvmlMu serialises NVML's Init and Shutdown, which count references.
var nvmlMu sync.Mutex

// nvmlSource reads one NVIDIA GPU through NVML.
type nvmlSource struct {
	lib nvmlLibrary
	dev nvmlDevice

	mu     sync.Mutex
	closed bool
}

// open returns the telemetry source of the Vulkan device info: NVML's
// device with the same UUID.
func open(info hal.DeviceInfo) (telemetry.Source, error) {
	if info.VendorID != hal.VendorNVIDIA {
		return nil, status.Wrapf(telemetry.ErrNotAvailable, status.OK, "telemetry: %s is not an NVIDIA GPU (only NVML is read for now)", info.Name)
	}
	nvmlMu.Lock()
	defer nvmlMu.Unlock()
	lib := openNVML()
	if r := lib.Init(); r != nvml.SUCCESS {
		return nil, status.Wrapf(telemetry.ErrNotAvailable, status.OK, "telemetry: NVML (libnvidia-ml.so.1): %s", nvml.ErrorString(r))
	}
	dev, err := findByUUID(lib, info.DeviceUUID)
	if err != nil {
		_ = lib.Shutdown() // the error below says what matters
		return nil, err
	}
	return &nvmlSource{lib: lib, dev: dev}, nil
}

// findByUUID returns the NVML device whose UUID is the Vulkan device's.
func findByUUID(lib nvmlLibrary, uuid [16]byte) (nvmlDevice, error) {
	n, r := lib.DeviceGetCount()
	if r != nvml.SUCCESS {
		return nil, status.Wrapf(telemetry.ErrNotAvailable, status.OK, "telemetry: NVML device count: %s", nvml.ErrorString(r))
	}
	for i := range n {
		d, r := lib.DeviceGetHandleByIndex(i)
		if r != nvml.SUCCESS {
			continue
		}
		s, r := d.GetUUID()
		if r != nvml.SUCCESS {
			continue
		}
		if u, ok := parseUUID(s); ok && u == uuid {
			return d, nil
		}
	}
	return nil, status.Wrapf(telemetry.ErrNotAvailable, status.OK, "telemetry: none of NVML's %d devices has UUID %x", n, uuid)
}

// parseUUID reads NVML's "GPU-5a1b2c3d-...." into the 16 bytes Vulkan's
// deviceUUID holds.
func parseUUID(s string) ([16]byte, bool) {
	var u [16]byte
	h := strings.ReplaceAll(strings.TrimPrefix(s, "GPU-"), "-", "")
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != len(u) {
		return u, false
	}
	copy(u[:], b)
	return u, true
}

func (s *nvmlSource) Name() string { return Name }

// Sample reads the clocks, power, energy, temperature and clock-event
// reasons. The first NVML call that fails is the error.
func (s *nvmlSource) Sample() (telemetry.Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return telemetry.Sample{}, errClosed
	}
	return readSample(s.dev, time.Now())
}

// readSample reads one telemetry.Sample from d.
func readSample(d nvmlDevice, at time.Time) (telemetry.Sample, error) {
	smp := telemetry.Sample{Time: at}
	var r nvml.Return
	fail := func(what string) (telemetry.Sample, error) {
		return telemetry.Sample{}, status.Newf(status.Unavailable, "telemetry: NVML %s: %s", what, nvml.ErrorString(r))
	}
	if smp.SMClockMHz, r = d.GetClockInfo(nvml.CLOCK_SM); r != nvml.SUCCESS {
		return fail("SM clock")
	}
	if smp.MemClockMHz, r = d.GetClockInfo(nvml.CLOCK_MEM); r != nvml.SUCCESS {
		return fail("memory clock")
	}
	mw, r := d.GetPowerUsage()
	if r != nvml.SUCCESS {
		return fail("power usage")
	}
	smp.PowerW = float64(mw) / 1000
	if mw, ok := instantPower(d); ok {
		smp.PowerW = mw / 1000
	}
	mj, r := d.GetTotalEnergyConsumption()
	if r != nvml.SUCCESS {
		return fail("total energy consumption")
	}
	smp.EnergyJ = float64(mj) / 1000
	if smp.TempC, r = d.GetTemperature(nvml.TEMPERATURE_GPU); r != nvml.SUCCESS {
		return fail("temperature")
	}
	reasons, r := d.GetCurrentClocksEventReasons()
	if r != nvml.SUCCESS {
		return fail("clock event reasons")
	}
	smp.Reasons = telemetry.Reasons(reasons)
	// The limits are read where the driver tells them; a GPU that keeps
	// them to itself still has the readings above.
	if v, r := d.GetMaxClockInfo(nvml.CLOCK_SM); r == nvml.SUCCESS {
		smp.MaxSMClockMHz = v
	}
	if v, r := d.GetPowerManagementLimit(); r == nvml.SUCCESS {
		smp.PowerLimitW = float64(v) / 1000
	}
	return smp, nil
}

// Close shuts NVML down; a second Close does nothing.
func (s *nvmlSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	nvmlMu.Lock()
	defer nvmlMu.Unlock()
	if r := s.lib.Shutdown(); r != nvml.SUCCESS {
		return fmt.Errorf("telemetry: NVML shutdown: %s", nvml.ErrorString(r))
	}
	return nil
}

// instantPower reads the device's instantaneous power in milliwatts,
// where the driver has it: on GPUs such as the H200, NVML's power usage
// is a one-second average, which says little of a 50 ms kernel.
func instantPower(d nvmlDevice) (float64, bool) {
	v := []nvml.FieldValue{{FieldId: nvml.FI_DEV_POWER_INSTANT}}
	if d.GetFieldValues(v) != nvml.SUCCESS || nvml.Return(v[0].NvmlReturn) != nvml.SUCCESS {
		return 0, false
	}
	b := v[0].Value[:]
	switch nvml.ValueType(v[0].ValueType) {
	case nvml.VALUE_TYPE_UNSIGNED_INT:
		return float64(binary.LittleEndian.Uint32(b)), true
	case nvml.VALUE_TYPE_UNSIGNED_LONG, nvml.VALUE_TYPE_UNSIGNED_LONG_LONG:
		return float64(binary.LittleEndian.Uint64(b)), true
	case nvml.VALUE_TYPE_DOUBLE:
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), true
	}
	return 0, false
}
