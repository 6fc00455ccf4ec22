package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// peakOps are the operations peak measures.
var peakOps = []string{"peak-fma-f32", "peak-fma-f16", "peak-mad-i32", "copy"}

func newPeakCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "peak",
		Short: "Measure the device's own peak FLOP/s and memory bandwidth, and store them",
		Long: `Measure the device's peak arithmetic rates with the FMA-chain kernels (fp32,
and fp16 and int32 where the device supports them), its memory bandwidth with
the copy kernels, and where it has cooperative matrices its matrix units'
(tensor cores') rates (fp16 with fp32 and fp16 sums, int8), at sizes that
fill it. The results are stored per hardware in
the tune cache, so that run and tune can show percent of peak and flag results
above it, and report can draw the roofline.

--size sets one measure's size: copy=N, peak-fma-f32=NxITERS (and likewise
peak-fma-f16, peak-mad-i32 and the peak-coopmat operations).

Exit status: 0 success, 2 bad usage, 3 a device failure.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			opts, err := f.options()
			if err != nil {
				return err
			}
			if f.format != "table" && f.format != "json" {
				return usageError{fmt.Errorf("unknown --format %q (want table or json)", f.format)}
			}
			var ops []kernels.Operation
			for _, name := range peakOps {
				op, err := kernels.Lookup(name)
				if err != nil {
					return err
				}
				ops = append(ops, op)
			}
			sizes, err := planSizes(f.sizes, ops)
			if err != nil {
				return err
			}
			cache, err := f.cache.open(cmd, true)
			if err != nil {
				return err
			}
			w, err := openOutput(cmd, f.output, cache.Path())
			if err != nil {
				return err
			}
			defer func() { err = w.finish(err) }()
			ctx := cmd.Context()
			o, err := f.dev.open(cmd, cache)
			if err != nil {
				return err
			}
			info := o.dev.Info()
			conditions, closeTelemetry, err := withTelemetry(&opts, info)
			if err != nil {
				return status.Join(err, o.Release())
			}
			defer closeTelemetry()
			opts.EnergyWindow = -1 // a peak is a rate
			rec := autotune.PeakRecord{Device: info.Name, Version: version, Time: time.Now().UTC()}
			type row struct {
				what, op, cand string
				rate           float64
				unit           string
				note           string
			}
			var rows []row
			measure := func(name, unit string, pick func(autotune.Result) float64) (float64, error) {
				op, err := kernels.Lookup(name)
				if err != nil {
					return 0, err
				}
				e, err := autotune.Measure(ctx, o.dev, op, autotune.ShapeOfSize(sizes.sizeFor(op, info)), opts)
				if err != nil {
					return 0, err
				}
				if e.Fastest < 0 {
					note := "not measured"
					if len(e.Results) > 0 {
						r := e.Results[0]
						note = string(r.Outcome) + ": " + oneLine(reason(outcomeOf(r.Outcome), r.Name, r.Error), 100)
					}
					rows = append(rows, row{what: name, op: name, unit: unit, note: note})
					return 0, nil
				}
				w := e.Results[e.Fastest]
				note := halfWidthText(*w.Stats)
				if c := w.Conditions; c != nil {
					// The peak is at the highest clocks its kernels ran at.
					rec.SMClockMHz = max(rec.SMClockMHz, c.SMClockMHz.Max)
					rec.MemClockMHz = max(rec.MemClockMHz, c.MemClockMHz.Max)
					note += "  at " + c.String()
				}
				if slices.Contains(w.Flags, telemetry.FlagThrottled) || slices.Contains(w.Flags, telemetry.FlagClocksMoved) {
					note += " [" + strings.Join(w.Flags, ",") + "]"
				}
				rows = append(rows, row{what: name, op: name, cand: w.Name, rate: pick(w), unit: unit, note: note})
				return pick(w), nil
			}
			gflops := func(r autotune.Result) float64 { return r.GFLOPs }
			gbps := func(r autotune.Result) float64 { return r.GBps }
			var errs []error
			var e error
			rec.GFLOPs, e = measure("peak-fma-f32", "GFLOP/s", gflops)
			errs = append(errs, e)
			rec.FP16GFLOPs, e = measure("peak-fma-f16", "GFLOP/s", gflops)
			errs = append(errs, e)
			rec.Int32GOPs, e = measure("peak-mad-i32", "GOP/s", gflops)
			errs = append(errs, e)
			rec.BandwidthGBps, e = measure("copy", "GB/s", gbps)
			errs = append(errs, e)
			// The matrix units (tensor cores), where the device has them.
			rec.MatrixF16GFLOPs, e = measure("peak-coopmat-f16", "GFLOP/s", gflops)
			errs = append(errs, e)
			rec.MatrixF16AccGFLOPs, e = measure("peak-coopmat-f16acc", "GFLOP/s", gflops)
			errs = append(errs, e)
			rec.MatrixS8GOPs, e = measure("peak-coopmat-s8", "GOP/s", gflops)
			errs = append(errs, e)
			if err := status.Join(errs...); err != nil {
				return status.Join(err, o.Release())
			}
			if err := cache.SavePeak(info.Hardware(), rec); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "vkbench: warning: peak not stored: %v\n", err)
			}
			if err := o.Release(); err != nil {
				return err
			}
			if f.format == "json" {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(rec)
			}
			fmt.Fprintf(w, "peak of device %d: %s (%s)\n", info.Index, info.Name, info.Hardware())
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  measure\tbest candidate\trate\t\t±95% CI")
			for _, r := range rows {
				rate := "-"
				if r.rate > 0 {
					rate = fmt.Sprintf("%.1f", r.rate)
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.what, r.cand, rate, r.unit, r.note)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "conditions: %s\n", conditions)
			return err
		},
	}
	f.register(cmd.Flags())
	// Flags of run that mean nothing to peak: its operations are fixed and
	// it tunes no keys.
	for _, name := range []string{"manifest", "level", "count", "objective", "energy-window"} {
		_ = cmd.Flags().MarkHidden(name) // registered just above
	}
	cmd.Flags().Lookup("format").Usage = "output: table or json"
	return cmd
}
