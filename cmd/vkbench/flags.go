package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"
)

// finiteFloat is a float64 flag that refuses NaN and the infinities when
// it is parsed. Every comparison with NaN is false, so a range check such
// as "threshold < 0" lets it through, and a gate given --threshold NaN
// would never fail; refusing it at the parser keeps every float flag safe
// whatever checks its command makes afterwards.
type finiteFloat float64

func (f *finiteFloat) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 64) }

// Type is pflag's name for the value in help: "float64", as for
// pflag.Float64Var, so that help reads the same.
func (f *finiteFloat) Type() string { return "float64" }

func (f *finiteFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok {
			err = ne.Err
		}
		return fmt.Errorf("not a number (%v)", err)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("not a finite number")
	}
	*f = finiteFloat(v)
	return nil
}

// floatVar defines a float64 flag that only takes finite values.
func floatVar(fs *pflag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var((*finiteFloat)(p), name, usage)
}

// The roofs report accepts, in GB/s and GFLOP/s: from a thousandth (a
// microcontroller) to a billion (a thousand times today's largest GPU).
// The charts are drawn on log scales, which values far outside this
// cannot span.
const (
	minPeak = 1e-3
	maxPeak = 1e9
)

// checkPeakFlags checks report's --peak-gbps and --peak-gflops: 0 means
// the stored peak.
func checkPeakFlags(gbps, gflops float64) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"peak-gbps", gbps}, {"peak-gflops", gflops}} {
		if f.v != 0 && (f.v < minPeak || f.v > maxPeak) {
			return usageError{fmt.Errorf("--%s %g is outside [%g, %g] (0 means the peak stored by vkbench peak)", f.name, f.v, float64(minPeak), float64(maxPeak))}
		}
	}
	return nil
}
