package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
)

// Unit is the rate that matters for an operation, as a table's column or
// a chart's axis names it, before a prefix: "B/s" for operations bound by
// memory, "FLOP/s" for floating-point arithmetic, "OP/s" for integer
// arithmetic (an i32 multiply-add is no floating-point operation).
type Unit string

// The units of rates.
const (
	Bandwidth Unit = "B/s"
	FLOPs     Unit = "FLOP/s"
	IntOps    Unit = "OP/s"
)

// memoryBound is the arithmetic intensity (operations per byte moved)
// below which an operation's bandwidth, not its arithmetic, is the rate
// that matters: below the ridge point of every GPU's roofline (tens of
// operations per byte on a discrete GPU, a few on a CPU), above that of
// streaming kernels (triad does 2 per 12 bytes, a reduction 1 per 4).
const memoryBound = 4

// UnitOf is the rate that matters for b: bandwidth where b does fewer
// than a few operations per byte it moves (or none), else its arithmetic
// rate, in operations for integer elements and FLOP for the others.
func UnitOf(b *results.Benchmark) Unit {
	if b.Flops <= 0 || b.Bytes > 0 && b.Flops/b.Bytes < memoryBound {
		return Bandwidth
	}
	return arithmeticUnit(b.DType)
}

func arithmeticUnit(dtype string) Unit {
	if strings.HasPrefix(dtype, "i") || strings.HasPrefix(dtype, "u") {
		return IntOps
	}
	return FLOPs
}

// RateOf is b's rate in unit, in thousands of millions a second (GB/s,
// GFLOP/s, GOP/s) at its median; 0 where it has no median.
func RateOf(b *results.Benchmark, unit Unit) float64 {
	gbps, gops := b.Rates()
	if unit == Bandwidth {
		return gbps
	}
	return gops
}

// Prefix is the SI prefix a reader would choose for rates up to top (in
// thousands of millions a second): "M", "G" or "T", and the factor that
// turns such a rate into that prefix's.
func Prefix(top float64) (string, float64) {
	switch {
	case top >= 1000:
		return "T", 1e-3
	case top > 0 && top < 1:
		return "M", 1e3
	}
	return "G", 1
}

// RateText writes a rate in thousands of millions a second with the
// prefix a reader would choose: "640.3 TFLOP/s", not "640317.1 GFLOP/s";
// "-" for none.
func RateText(g float64, unit Unit) string {
	if !(g > 0) || math.IsInf(g, 0) {
		return "-"
	}
	p, f := Prefix(g)
	return fmt.Sprintf("%.1f %s%s", g*f, p, unit)
}

// PercentOfPeak is m's rate as a percentage of what the roofline allows
// at its arithmetic intensity: min(compute peak of op's arithmetic
// (autotune.Peak.ComputeOf), intensity × bandwidth peak) for operations
// that compute, the bandwidth peak for those that only move data; 0 when
// the peak is not known.
func PercentOfPeak(m *results.Measurement, op kernels.Operation, peak *autotune.Peak) float64 {
	if peak == nil {
		return 0
	}
	gbps, gflops := m.Rates()
	return percentOfRoofs(gbps, gflops, peak.ComputeOf(op), peak.BandwidthGBps)
}

// percentOfRoofs is PercentOfPeak of the rates gbps and gflops under the
// compute roof c and the bandwidth roof bw (0 where unknown).
func percentOfRoofs(gbps, gflops, c, bw float64) float64 {
	switch {
	case gflops > 0 && c > 0 && gbps > 0 && bw > 0:
		return 100 * gflops / min(c, gflops/gbps*bw)
	case gflops > 0 && c > 0:
		return 100 * gflops / c
	case gbps > 0 && bw > 0:
		return 100 * gbps / bw
	}
	return 0
}

// The words a table writes for a rate at or above the device's peak, in
// the place of a percentage over 100, and what they mean, for the
// table's legend.
const (
	AtPeak        = "at peak"
	AbovePeak     = "above peak"
	AtPeakNote    = "at peak: above the median of the device's peak (vkbench peak's fastest copy, FMA or matrix kernel, a measurement too), but their 95% intervals overlap: as fast as the peak, within the noise of both"
	AbovePeakNote = "above peak: the rate's 95% interval lies above the peak's (flagged above-peak-bandwidth or above-peak-flops): the peak was measured in other conditions (run vkbench peak again), the operation reads more for each byte it writes than copy (triad reads two arrays a write: where a write costs a read too, as on CPUs, its counted rate can pass copy's), or its bytes or operations per run are miscounted"
)

// PeakText writes b's percentage of the device's peak for a person: "-"
// where no peak is known, the percentage up to 100, and words above it:
// AtPeak where the rate's interval overlaps the peak's, AbovePeak where
// autotune flagged it above. A percentage of a
// peak the kernel beat says nothing a reader can use; the results file
// keeps it.
func PeakText(b *results.Benchmark) string {
	switch {
	case !(b.PercentPeak > 0):
		return "-"
	case b.PercentPeak <= 100:
		return fmt.Sprintf("%.0f%%", b.PercentPeak)
	case slices.ContainsFunc(b.Flags, func(f string) bool {
		return f == autotune.FlagAbovePeakBandwidth || f == autotune.FlagAbovePeakFLOPs
	}):
		return AbovePeak
	}
	return AtPeak
}

// PeakLegend is what a table's PeakText needs said under the table.
type PeakLegend struct{ atPeak, above bool }

// See notes how PeakText writes b.
func (l *PeakLegend) See(b *results.Benchmark) {
	switch PeakText(b) {
	case AtPeak:
		l.atPeak = true
	case AbovePeak:
		l.above = true
	}
}

// Notes are the legend's lines: AtPeakNote, AbovePeakNote, where seen.
func (l PeakLegend) Notes() []string {
	var notes []string
	if l.atPeak {
		notes = append(notes, AtPeakNote)
	}
	if l.above {
		notes = append(notes, AbovePeakNote)
	}
	return notes
}
