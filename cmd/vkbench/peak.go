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
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// peakMeasures are what peak measures, in its table's order: each
// operation, the unit of its rate (GB/s is the winner's bandwidth, the
// others its arithmetic rate), and where the record keeps it. The matrix
// units' (tensor cores') peaks are measured where the device has them.
var peakMeasures = []struct {
	op, unit string
	into     func(*autotune.Rates) *float64
}{
	{"peak-fma-f32", "GFLOP/s", func(r *autotune.Rates) *float64 { return &r.GFLOPs }},
	{"peak-fma-f16", "GFLOP/s", func(r *autotune.Rates) *float64 { return &r.FP16GFLOPs }},
	{"peak-mad-i32", "GOP/s", func(r *autotune.Rates) *float64 { return &r.Int32GOPs }},
	{"copy", "GB/s", func(r *autotune.Rates) *float64 { return &r.BandwidthGBps }},
	{"peak-coopmat-f16", "GFLOP/s", func(r *autotune.Rates) *float64 { return &r.MatrixF16GFLOPs }},
	{"peak-coopmat-f16acc", "GFLOP/s", func(r *autotune.Rates) *float64 { return &r.MatrixF16AccGFLOPs }},
	{"peak-coopmat-s8", "GOP/s", func(r *autotune.Rates) *float64 { return &r.MatrixS8GOPs }},
	{"peak-coopmat-bf16", "GFLOP/s", func(r *autotune.Rates) *float64 { return &r.MatrixBF16GFLOPs }},
}

func newPeakCmd() *cobra.Command {
	var f benchFlags
	var replace bool
	cmd := &cobra.Command{
		Use:   "peak",
		Short: "Measure the device's own peak FLOP/s and memory bandwidth, and store them",
		Long: `Measure the device's peak arithmetic rates with the FMA-chain kernels (fp32,
and fp16 and int32 where the device supports them), its memory bandwidth with
the copy kernels, and where it has cooperative matrices its matrix units'
(tensor cores') rates (fp16 with fp32 and fp16 sums, int8, bfloat16), at sizes
that fill it: what Vulkan code reaches on the device, which can be less than
its data sheet's (see the README). The results are stored per hardware in the
tune cache, each rate with its 95% interval, so that run and tune can show
percent of peak and flag results above it, and report can draw the roofline.
It replaces the stored rates one by one. A rate whose interval is wider than
--precision is too noisy to trust: peak says so, and it replaces the stored
rate only where that one is noisier still (or was stored without an interval).
A rate measured below the stored one beyond both intervals does not replace it
either: a busy or throttled device measures low, so the stored rate stays, and
peak says so. --replace stores the new peak whatever the stored one says (a
device that became slower: a power cap, another driver). A rate not measured
(unsupported, a candidate of it computed a wrong result, or every candidate
failed when it ran) keeps the stored one, --replace or not. The stored
record's time is the latest peak's; a rate kept keeps its value and interval
only. A stored peak that cannot be read (damaged) is replaced whole, and peak
says so.

--size sets one measure's size: copy=N, peak-fma-f32=NxITERS (and likewise
peak-fma-f16, peak-mad-i32 and the peak-coopmat operations).

Exit status: 0 success; 1 a candidate computed a wrong result, a measure could
not run at its size, or every candidate of a measure failed when it ran (its
rate is not stored, the others' are), as run's; 2 bad usage; 3 a device
failure; 4 the output could not be written.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runPeak(cmd, &f, replace) },
	}
	f.register(cmd.Flags())
	cmd.Flags().BoolVar(&replace, "replace", false, "store this peak whatever the stored one says")
	cmd.Flags().Lookup("format").Usage = "output: table or json"
	return cmd
}

// runPeak measures the peaks of the device that f's flags choose, stores
// them in the cache for its hardware (over the stored peak's, unless
// replace), and writes them as f.format says.
func runPeak(cmd *cobra.Command, f *benchFlags, replace bool) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	if err := checkFormat(f.format, "table", "json"); err != nil {
		return err
	}
	var names []string
	for _, m := range peakMeasures {
		names = append(names, m.op)
	}
	ops, sizes, err := f.operations(cmd, names)
	if err != nil {
		return err
	}
	sess, err := f.open(cmd, true, &opts)
	if err != nil {
		return err
	}
	info := sess.dev.Info()
	opts.EnergyWindow = -1 // a peak is a rate
	rec := autotune.PeakRecord{Device: info.Name, Version: version, Time: time.Now().UTC()}
	rec.Low, rec.High = &autotune.Rates{}, &autotune.Rates{}
	var rows []peakRow
	var errs []error
	// As run's: a measure that cannot run at its size, or whose every
	// candidate failed when it ran; the others measured and stored.
	var failed opFailures
	for i, m := range peakMeasures {
		size := sizes.sizeFor(ops[i], info)
		row, err := measurePeak(cmd.Context(), sess.dev, ops[i], size, opts, m.unit, &rec, &failed)
		if err != nil && operationsOwn(cmd.Context(), sess.dev, err) {
			failed.add(new(results.File), ops[i], size, err) // peak's rows say it, not a results file
			row, err = peakRow{what: m.op, unit: m.unit, outcome: string(results.Failed), reason: report.Reason(err.Error(), "")}, nil
		}
		*m.into(&rec.Rates), *m.into(rec.Low), *m.into(rec.High) = row.rate, row.lo, row.hi
		row.halfWidth = rec.HalfWidth(m.into)
		rows, errs = append(rows, row), append(errs, err)
	}
	if err := status.Join(errs...); err != nil {
		return sess.close(cmd, err)
	}
	kept, err := autotune.SavePeak(cmd.Context(), sess.cache, info.Hardware(), rec, opts.TargetHalfWidth, replace)
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "vkbench: warning: peak not stored: %v\n", err)
	}
	said := []string{noisyPeak(rows, opts.TargetHalfWidth, kept, err == nil && sess.cache.Path() != ""), slowerPeak(rows, kept)}
	if kept.Damaged != nil && err == nil {
		said = append(said, fmt.Sprintf("The stored peak could not be read (%s); this one replaces it.", status.TextForPeople(kept.Damaged.Error())))
	}
	if kept.Old != nil && (kept.Slower != autotune.Rates{} || kept.Noisy != autotune.Rates{}) {
		said = append(said, fmt.Sprintf("The stored peak was last written %s; a rate kept then may be older.", kept.Old.Time.Format(time.DateTime)))
	}
	if f.format == "json" {
		for _, s := range said {
			if s != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "vkbench: warning: %s\n", s)
			}
		}
		err = writeJSON(sess.out, rec)
	} else {
		err = writePeakTable(sess.out, info, rows, said, sess.conditions, terminalWidth(sess.out))
	}
	if err := sess.close(cmd, err); err != nil {
		return err
	}
	return status.Join(failed.err(len(ops)), wrongPeak(rows))
}

// wrongPeak is the command's failure where a measure's candidate computed
// a wrong result, naming each such measure, its candidate and what was
// wrong; nil where none did. Such a measure's rate was not stored.
func wrongPeak(rows []peakRow) error {
	var wrong []string
	for _, r := range rows {
		if r.outcome == string(results.Wrong) {
			wrong = append(wrong, fmt.Sprintf("%s: candidate %s computed a wrong result: %s", r.what, r.cand, r.reason))
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	return errFailed(fmt.Sprintf("peak: %s; %s not stored", strings.Join(wrong, "; "), pick(len(wrong), "its rate is", "their rates are")))
}

// noisyPeak says, where the peak's intervals are wider than precision,
// which are, and what became of them: the stored rates that are tighter
// stay (kept.Noisy), those measured slower stay too (slowerPeak says so),
// and the others were stored with their intervals where the peak was
// stored.
func noisyPeak(rows []peakRow, precision float64, kept autotune.PeakKept, stored bool) string {
	var wide, stays []string
	var storedWide []string // wide rates stored: kept neither as noisier nor as slower
	for i, r := range rows {
		if r.halfWidth > precision {
			wide = append(wide, fmt.Sprintf("%s (%s)", r.what, halfWidthText(r.halfWidth)))
			switch {
			case *peakMeasures[i].into(&kept.Noisy) > 0:
				stays = append(stays, r.what)
			case *peakMeasures[i].into(&kept.Slower) == 0:
				storedWide = append(storedWide, r.what)
			}
		}
	}
	if len(wide) == 0 {
		return ""
	}
	of := pick(len(wide), "interval of %s is", "intervals of %s are")
	say := fmt.Sprintf("too noisy to trust: the 95%% "+of+" wider than the ±%g%% asked (--precision); measure again on a quiet machine or with a longer --budget. ",
		strings.Join(wide, ", "), precision*100)
	if len(stays) > 0 {
		rates, are := pick(len(stays), "rate", "rates"), pick(len(stays), "is tighter and stays", "are tighter and stay")
		say += fmt.Sprintf("Not stored for %s: the stored %s %s. ", strings.Join(stays, ", "), rates, are)
	}
	if n := len(storedWide); stored && n > 0 {
		// Named where some wide rate was not stored: "the rest" read
		// oddly where none was kept.
		if n == len(wide) {
			say += pick(n, "It is stored with its interval, as no tighter rate was", "They are stored with their intervals, as no tighter rates were")
		} else {
			say += fmt.Sprintf("Stored for %s, with %s, as no tighter %s", strings.Join(storedWide, ", "), pick(n, "its interval", "their intervals"), pick(n, "rate was", "rates were"))
		}
		say += ": a rate reads above peak only where its own interval lies above the peak's."
	}
	return strings.TrimSpace(say)
}

// slowerPeak says which rates the peak measured below the stored ones
// beyond both intervals, which SavePeak kept (kept.Slower), and how to
// store them anyway; "" where none.
func slowerPeak(rows []peakRow, kept autotune.PeakKept) string {
	var below []string
	for i, m := range peakMeasures {
		if *m.into(&kept.Slower) > 0 {
			below = append(below, fmt.Sprintf("%s: %s %s measured, below the stored %s %s (%s)", m.op,
				report.Rate("%.1f", rows[i].rate), m.unit, report.Rate("%.1f", *m.into(&kept.Slower)), m.unit, halfWidthText(kept.Old.HalfWidth(m.into))))
		}
	}
	if len(below) == 0 {
		return ""
	}
	n := len(below)
	rates, stay, these := pick(n, "rate", "rates"), pick(n, "stays", "stay"), pick(n, "this one", "these")
	return fmt.Sprintf("%s beyond both intervals: the stored %s %s (a busy or throttled device measures low); `vkbench peak --replace` stores %s.",
		strings.Join(below, "; "), rates, stay, these)
}

// peakRow is one measure in peak's table: its winner, or why none was
// measured (an outcome and its reason).
type peakRow struct {
	what, cand string
	// rate is the winner's, in the 95% interval [lo, hi], whose
	// half-width relative to it is halfWidth.
	rate, lo, hi, halfWidth float64
	unit                    string
	note                    string

	outcome, reason string
}

// measurePeak measures op at size and returns its row: its winner's rate
// in unit, or why no candidate was measured (the rate is then 0), with op
// among failed where every candidate that could run failed when it ran,
// as run counts it. The peak is at the highest clocks its kernels ran at:
// the winner's raise rec's.
func measurePeak(ctx context.Context, dev hal.Device, op kernels.Operation, size kernels.Size, opts autotune.Options, unit string, rec *autotune.PeakRecord, failed *opFailures) (peakRow, error) {
	e, err := autotune.Measure(ctx, dev, op, size, opts)
	if err != nil {
		return peakRow{}, err
	}
	failed.noneRan(op, size, e)
	row := peakRow{what: op.Name(), unit: unit}
	// A candidate that computed a wrong result makes the measure's rate
	// one that cannot be trusted, the fastest candidate's perhaps: none.
	wrong := slices.IndexFunc(e.Results, func(r results.Result) bool { return r.Outcome == results.Wrong })
	if e.Fastest < 0 || wrong >= 0 {
		row.outcome, row.reason = "not measured", "no candidate"
		if len(e.Results) > 0 {
			r := e.Results[max(wrong, 0)]
			row.outcome, row.reason = string(r.Outcome), report.Reason(r.Error, r.Name)
			row.cand = r.Name
		}
		return row, nil
	}
	w := e.Results[e.Fastest]
	row.cand = w.Name
	if c := w.Conditions; c != nil {
		rec.SMClockMHz = max(rec.SMClockMHz, c.SMClockMHz.Max)
		rec.MemClockMHz = max(rec.MemClockMHz, c.MemClockMHz.Max)
		row.note = "at " + c.String()
	}
	if slices.Contains(w.Flags, telemetry.FlagThrottled) || slices.Contains(w.Flags, telemetry.FlagClocksMoved) {
		row.note += " [" + report.FlagText(w.Flags...) + "]"
	}
	gbps, gops := w.Rates()
	row.rate = gops
	if unit == "GB/s" {
		row.rate = gbps
	}
	// A rate is work over time: the interval's slowest time is its lowest.
	if s := w.Stats; s.HasInterval() {
		row.lo, row.hi = row.rate*s.Median/s.Hi, row.rate*s.Median/s.Lo
	}
	return row, nil
}

// writePeakTable writes the peaks of the device info as a table, a row
// per measure, each reason a measure was not measured once under it with
// the measures it stopped, what noisyPeak and slowerPeak said, and the
// conditions they were measured in, in lines of width.
func writePeakTable(w io.Writer, info hal.DeviceInfo, rows []peakRow, said []string, conditions string, width tableWidth) error {
	var b strings.Builder
	lines := width.lineWidth()
	wrapAt(&b, lines, "", fmt.Sprintf("peak of device %d: %s (%s)", info.Index, info.Name, info.Hardware()))
	g := width.grid("  ", 1)
	g.add("measure", "best candidate", "rate", "", "±95% CI")
	var why reasons
	for _, r := range rows {
		if r.outcome != "" {
			g.add(r.what, "-", "-", r.unit, r.outcome)
			why.add(r.outcome+", "+r.reason, r.what)
			continue
		}
		g.add(r.what, r.cand, report.Rate("%.1f", r.rate), r.unit, strings.TrimSpace(halfWidthText(r.halfWidth)+"  "+r.note))
	}
	g.write(&b)
	why.write(&b, lines, "  ")
	wrapAt(&b, lines, "", said...)
	wrapAt(&b, lines, "", "conditions: "+conditions)
	_, err := io.WriteString(w, b.String())
	return err
}
