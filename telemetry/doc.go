// Package telemetry reads the conditions a GPU measures under: its clocks,
// power draw, energy counter, temperature, and why its clocks are held
// back (power and thermal limits, an idle GPU). A number measured at
// 1980 MHz and one at 1400 MHz are not the same number; vkbench records
// these conditions beside every result and flags results taken while the
// GPU throttled or its clocks moved.
//
// # Basics
//
// Sources register themselves by name, as database/sql's drivers do, so
// that a program builds only those it asks for: NVIDIA's is package
// telemetry/nvml, imported for its side effect:
//
//	import _ "github.com/vkbench/vkbench/telemetry/nvml"
//
// Open finds the source for a Vulkan device among those registered.
// Where there is none (lavapipe, other vendors for now, a program that
// registered none), Open's error matches ErrNotAvailable and says why;
// nothing else fails:
//
//	src, err := telemetry.Open(info) // hal.DeviceInfo
//	if err != nil {
//		// errors.Is(err, telemetry.ErrNotAvailable): record why, go on
//	}
//	defer src.Close()
//	w := telemetry.Watch(src, 20*time.Millisecond)
//	... measure ...
//	cond := w.Stop() // clock, power and temperature ranges, throttles seen
//
// A Sample's EnergyJ is the device's cumulative energy counter: two
// samples around some runs give the energy of those runs.
package telemetry
