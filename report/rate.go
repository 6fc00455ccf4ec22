package report

import (
	"fmt"
	"math"
	"strings"

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
