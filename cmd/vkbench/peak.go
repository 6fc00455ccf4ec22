package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// peakMeasures are what peak measures, in its table's order: each
// operation, the unit of its rate (GB/s is the winner's bandwidth, the
// others its arithmetic rate), and where the record keeps it. The matrix
// units' (tensor cores') peaks are measured where the device has them.
var peakMeasures = []struct {
	op, unit string
	into     func(*autotune.PeakRecord) *float64
}{
	{"peak-fma-f32", "GFLOP/s", func(r *autotune.PeakRecord) *float64 { return &r.GFLOPs }},
	{"peak-fma-f16", "GFLOP/s", func(r *autotune.PeakRecord) *float64 { return &r.FP16GFLOPs }},
	{"peak-mad-i32", "GOP/s", func(r *autotune.PeakRecord) *float64 { return &r.Int32GOPs }},
	{"copy", "GB/s", func(r *autotune.PeakRecord) *float64 { return &r.BandwidthGBps }},
	{"peak-coopmat-f16", "GFLOP/s", func(r *autotune.PeakRecord) *float64 { return &r.MatrixF16GFLOPs }},
	{"peak-coopmat-f16acc", "GFLOP/s", func(r *autotune.PeakRecord) *float64 { return &r.MatrixF16AccGFLOPs }},
	{"peak-coopmat-s8", "GOP/s", func(r *autotune.PeakRecord) *float64 { return &r.MatrixS8GOPs }},
	{"peak-coopmat-bf16", "GFLOP/s", func(r *autotune.PeakRecord) *float64 { return &r.MatrixBF16GFLOPs }},
}

// newPeakCmd is peak: the device's own peak rates, stored in the cache.
func newPeakCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "peak",
		Short: "Measure the device's own peak FLOP/s and memory bandwidth, and store them",
		Long: `Measure the device's peak arithmetic rates with the FMA-chain kernels (fp32,
and fp16 and int32 where the device supports them), its memory bandwidth with
the copy kernels, and where it has cooperative matrices its matrix units'
(tensor cores') rates (fp16 with fp32 and fp16 sums, int8, bfloat16), at sizes that
fill it. The results are stored per hardware in
the tune cache, so that run and tune can show percent of peak and flag results
above it, and report can draw the roofline.

--size sets one measure's size: copy=N, peak-fma-f32=NxITERS (and likewise
peak-fma-f16, peak-mad-i32 and the peak-coopmat operations).

Exit status: 0 success, 2 bad usage, 3 a device failure, 4 the output could not
be written.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runPeak(cmd, &f) },
	}
	f.register(cmd.Flags())
	cmd.Flags().Lookup("format").Usage = "output: table or json"
	return cmd
}

// runPeak measures the peaks of the device that f's flags choose, stores
// them in the cache for its hardware, and writes them as f.format says.
func runPeak(cmd *cobra.Command, f *benchFlags) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	if err := f.checkFormat("table", "json"); err != nil {
		return err
	}
	var names []string
	for _, m := range peakMeasures {
		names = append(names, m.op)
	}
	ops, err := operations(names, nil)
	if err != nil {
		return err
	}
	sizes, err := planSizes(f.sizes, ops)
	if err != nil {
		return err
	}
	sess, err := f.open(cmd, true, &opts)
	if err != nil {
		return err
	}
	info := sess.dev.Info()
	opts.EnergyWindow = -1 // a peak is a rate
	p := &peakRun{ctx: cmd.Context(), dev: sess.dev, info: info, sizes: sizes, opts: opts,
		rec: autotune.PeakRecord{Device: info.Name, Version: version, Time: time.Now().UTC()}}
	if err := p.measureAll(); err != nil {
		return sess.close(cmd, err)
	}
	if err := autotune.SavePeak(sess.cache, info.Hardware(), p.rec); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "vkbench: warning: peak not stored: %v\n", err)
	}
	if f.format == "json" {
		return sess.close(cmd, writeJSON(sess.out, p.rec))
	}
	return sess.close(cmd, writePeakTable(sess.out, info, p.rows, sess.conditions))
}

// peakRow is one measure in peak's table: its winner, or why none was
// measured (an outcome and its reason).
type peakRow struct {
	what, cand string
	rate       float64
	unit       string
	note       string

	outcome, reason string
}

// peakRun measures one device's peaks into rec, with a row per measure.
type peakRun struct {
	ctx   context.Context
	dev   hal.Device
	info  hal.DeviceInfo
	sizes sizePlan
	opts  autotune.Options
	rec   autotune.PeakRecord
	rows  []peakRow
}

func (p *peakRun) measureAll() error {
	var errs []error
	for _, m := range peakMeasures {
		var err error
		*m.into(&p.rec), err = p.measure(m.op, m.unit)
		errs = append(errs, err)
	}
	return status.Join(errs...)
}

// measure measures the operation name and returns its winner's rate in
// unit; 0 where no candidate was measured, which its row says why.
func (p *peakRun) measure(name, unit string) (float64, error) {
	op, err := catalogue.Lookup(name)
	if err != nil {
		return 0, err
	}
	e, err := autotune.Measure(p.ctx, p.dev, op, p.sizes.sizeFor(op, p.info), p.opts)
	if err != nil {
		return 0, err
	}
	if e.Fastest < 0 {
		row := peakRow{what: name, unit: unit, outcome: "not measured", reason: "no candidate"}
		if len(e.Results) > 0 {
			r := e.Results[0]
			row.outcome, row.reason = string(r.Outcome), report.OneLine(report.Reason(r.Error, r.Name), columns)
		}
		p.rows = append(p.rows, row)
		return 0, nil
	}
	w := e.Results[e.Fastest]
	note := halfWidthText(*w.Stats)
	if c := w.Conditions; c != nil {
		// The peak is at the highest clocks its kernels ran at.
		p.rec.SMClockMHz = max(p.rec.SMClockMHz, c.SMClockMHz.Max)
		p.rec.MemClockMHz = max(p.rec.MemClockMHz, c.MemClockMHz.Max)
		note += "  at " + c.String()
	}
	if slices.Contains(w.Flags, telemetry.FlagThrottled) || slices.Contains(w.Flags, telemetry.FlagClocksMoved) {
		note += " [" + strings.Join(w.Flags, ",") + "]"
	}
	rate, gops := w.Rates()
	if unit != "GB/s" {
		rate = gops
	}
	p.rows = append(p.rows, peakRow{what: name, cand: w.Name, rate: rate, unit: unit, note: note})
	return rate, nil
}

// writePeakTable writes the peaks of the device info as a table, a row
// per measure, each reason a measure was not measured once under it with
// the measures it stopped, and the conditions they were measured in.
func writePeakTable(w io.Writer, info hal.DeviceInfo, rows []peakRow, conditions string) error {
	var b strings.Builder
	wrap(&b, "", fmt.Sprintf("peak of device %d: %s (%s)", info.Index, info.Name, info.Hardware()))
	g := grid{indent: "  ", elastic: 1}
	g.add("measure", "best candidate", "rate", "", "±95% CI")
	var why reasons
	for _, r := range rows {
		if r.outcome != "" {
			g.add(r.what, "-", "-", r.unit, r.outcome)
			why.add(r.outcome+", "+r.reason, r.what)
			continue
		}
		g.add(r.what, r.cand, report.Rate("%.1f", r.rate), r.unit, r.note)
	}
	g.write(&b)
	why.write(&b, "  ")
	wrap(&b, "", "conditions: "+conditions)
	_, err := io.WriteString(w, b.String())
	return err
}
