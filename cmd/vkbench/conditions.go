package main

import (
	"fmt"
	"strings"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
	// The command reads NVIDIA GPUs' conditions; the library alone does
	// not build NVML's binding.
	_ "github.com/vkbench/vkbench/telemetry/nvml"
)

// openTelemetry returns the telemetry source of the device info describes,
// or nil and why there is none ("NVML (libnvidia-ml.so.1): ..."). Nothing
// fails for want of one.
func openTelemetry(info hal.DeviceInfo) (telemetry.Source, string) {
	src, err := telemetry.Open(info)
	if err != nil {
		return nil, strings.TrimPrefix(status.Message(err), "telemetry: ")
	}
	return src, ""
}

// withTelemetry sets opts to read the conditions of the device info
// describes and returns what the results file says of them ("nvml", or
// "not available: why") and a function that closes the source. An
// objective other than time, or an energy window, without a source is bad
// usage: what was asked cannot be measured.
func withTelemetry(opts *autotune.Options, info hal.DeviceInfo) (string, func(), error) {
	src, why := openTelemetry(info)
	if src == nil {
		if opts.Objective != "" && opts.Objective != autotune.ObjectiveTime {
			return "", nil, usageError{fmt.Errorf("--objective %s needs the GPU's energy counter, which is not available here: %s", opts.Objective, why)}
		}
		if opts.EnergyWindow > 0 {
			return "", nil, usageError{fmt.Errorf("--energy-window %v needs the GPU's energy counter, which is not available here: %s", opts.EnergyWindow, why)}
		}
		opts.TelemetryNote = why
		return "not available: " + why, func() {}, nil
	}
	opts.Telemetry = src
	return src.Name(), func() { _ = src.Close() }, nil
}

// joules writes an energy to three significant figures, zeros kept, with
// a unit that suits it: "2.00 J", "12.3 mJ"; "-" for none.
func joules(j float64) string {
	if j <= 0 {
		return "-"
	}
	v, unit := j*1e9, "nJ"
	switch {
	case j >= 1:
		v, unit = j, "J"
	case j >= 1e-3:
		v, unit = j/1e-3, "mJ"
	case j >= 1e-6:
		v, unit = j/1e-6, "µJ"
	}
	decimals := 0
	switch {
	case v < 10:
		decimals = 2
	case v < 100:
		decimals = 1
	}
	return fmt.Sprintf("%.*f %s", decimals, v, unit)
}

// writeConditions writes, under a table, what the results file says of
// the conditions and, for each benchmark that has them, its conditions;
// and which objective picked the winners, when not time; as wide as o
// asks.
func writeConditions(s *strings.Builder, file *results.File, o tableOptions) {
	verbose, columns := o.verbose, o.lineWidth()
	if file.Objective != "" && file.Objective != string(autotune.ObjectiveTime) {
		fmt.Fprintf(s, "\nwinners picked by %s per run\n", strings.Replace(file.Objective, "edp", "energy × time", 1))
	}
	if verbose && file.Conditions != "" {
		var lines []string
		for _, b := range file.Benchmarks {
			var parts []string
			if c := b.Conditions; c != nil {
				parts = append(parts, c.String())
			}
			if b.EnergyJ > 0 {
				parts = append(parts, fmt.Sprintf("%s per run at %.0f W", joules(b.EnergyJ), b.PowerW))
			}
			if len(parts) > 0 {
				lines = append(lines, b.Name+": "+strings.Join(parts, "; "))
			}
		}
		s.WriteString("\n")
		if len(lines) == 0 { // one line, not a heading with nothing under it
			wrapAt(s, columns, "", "conditions: "+file.Conditions)
			return
		}
		wrapAt(s, columns, "", fmt.Sprintf("conditions (%s):", file.Conditions))
		for _, l := range lines {
			wrapAt(s, columns, "  ", l)
		}
	}
}
