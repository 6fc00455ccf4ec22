package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

func newReportCmd() *cobra.Command {
	var (
		cf         cacheFlags
		output     string
		peakGBps   float64
		peakGFLOPs float64
	)
	cmd := &cobra.Command{
		Use:   "report FILE... -o OUTPUT",
		Short: "Draw charts of result files: every candidate's median and 95% interval, and a roofline",
		Long: `Draw charts of result files (vkbench run --format json; Go benchmark format is
read too) and of vkbench ab's reports (ab --format json), whose pairs are
drawn as their ratio NEW/OLD with its 95% interval, in the colour of their
verdict, against lines at 1 and at 1 ± the threshold. The format of OUTPUT follows its extension: .html (a self-contained
page with the charts inline and a table per operation), .svg or .png (the
charts one under the other).

For each operation (and dtype and size) one chart shows the median time per
run of every candidate measured, with its 95% confidence interval, lower is
better; the winner is filled, and those dropped early within 25% of the
winner are grey. The axis spans them: candidates dropped early as much
slower, those that failed and those the device does not support are notes
under the chart, counted by reason, and an operation with nothing measured is
a line of text, not a chart. A page's table per operation gives its times in
one unit, and each rate's percentage of the peak the run knew; where the file
records none, of the roofline's peak, marked †: of the roof that run's
percentage is of (bandwidth, and the compute rate of the operation's
precision: fp32, fp16, int32 or the matrix units'). Charts and tables list the
winner first (★ in the tables), then the candidates measured, best first by
the objective the file was run with (time, energy or edp), then those dropped
early, then those not measured, ties by name. With several files the charts
overlay them: each candidate has one point per file, in the file's colour, so
that a base and a new run read side by side; the first file orders them.

The roofline places each operation that does floating-point arithmetic by its
arithmetic intensity (FLOP per byte moved, x) and its achieved GFLOP/s (y),
its label beside its point, under the
device's bandwidth roof and the compute roof of each precision placed, each
labelled with its precision ("fp32 150 GFLOP/s", "fp16 ...", "matrix fp16
..."): an operation is judged against its own precision's roof, the one
vkbench run's "% peak" is of. The roofs come from --peak-gbps and
--peak-gflops (fp32), else from the peak that vkbench peak stored in the
tune cache (--cache) for the file's hardware, which holds the other
precisions' rates; with neither the roofline is left out,
with a note (a cache that cannot be read is a warning that names it, and the
note says its peak could not be read). Operations that only move data (copy,
transpose) are listed under it with their bandwidth, and integer operations
with their GOP/s.

Tuning logs (vkbench cache export-log, vkbench replay --format log) are drawn
as their searches' convergence: after each evaluation, the best figure found
so far, by what the log's searches ranked by (tune --objective: time, energy
per run, or energy × time; time where a configuration has no energy).

Exit status: 0 success, 2 bad usage, an unreadable or malformed file, or
nothing to draw (a result file without benchmarks, and no other file with a
chart), 4 the report could not be written.`,
		Example: `  vkbench run --format json -o run.json
  vkbench report run.json -o report.html
  vkbench report base.json new.json -o compare.png --peak-gbps 900 --peak-gflops 30000`,
		Args: argsWhere(func(n int) bool { return n > 0 }, "report needs at least one result file (see vkbench report --help)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, args, output, &cf, peakGBps, peakGFLOPs)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "the report to write: .html, .svg or .png (required)")
	floatVar(cmd.Flags(), &peakGBps, "peak-gbps", 0, "the device's peak memory bandwidth in GB/s, for the roofline (default: the stored peak)")
	floatVar(cmd.Flags(), &peakGFLOPs, "peak-gflops", 0, "the device's peak fp32 GFLOP/s, for the roofline (default: the stored peak)")
	cf.register(cmd.Flags())
	return cmd
}

// runReport draws the report of the files args into output, whose
// extension says the format, with the roofs the flags give or the cache
// stores; or, when the files are tuning logs, the searches' convergence.
func runReport(cmd *cobra.Command, args []string, output string, cf *cacheFlags, peakGBps, peakGFLOPs float64) error {
	if output == "" {
		return usageError{fmt.Errorf("report needs -o FILE, ending in .html, .svg or .png")}
	}
	format, err := report.FormatOf(output)
	if err != nil {
		return usageError{fmt.Errorf("-o %s: %w", output, err)}
	}
	logs := 0
	for _, p := range args {
		if report.IsTuneLog(p) {
			logs++
		}
	}
	switch {
	case logs == len(args):
		return reportConvergence(cmd, args, output, format)
	case logs > 0:
		return usageError{fmt.Errorf("report draws result files or tuning logs, not both at once")}
	}
	if err := checkPeakFlags(peakGBps, peakGFLOPs); err != nil {
		return err
	}
	in, err := report.ReadFiles(args)
	if err != nil {
		return usageError{err}
	}
	opts, cache, err := reportPeaks(cmd, in, cf, peakGBps, peakGFLOPs)
	if err != nil {
		return err
	}
	return writeReport(cmd, output, append(inputs("a file the report draws", args...), cache...), func(w io.Writer) (int, error) {
		return report.Write(w, format, in, opts)
	}, func(n int) string { return plural(n, "chart", "charts") + " of " + plural(len(in), "file", "files") })
}

// writeReport writes the report that draw draws to output, which may not
// replace any of in, and says on stderr what it drew (said, of the count
// draw returns). A report of nothing is bad input.
func writeReport(cmd *cobra.Command, output string, in []input, draw func(io.Writer) (int, error), said func(int) string) error {
	var n int
	err := writeOutput(cmd, output, func(w io.Writer) (err error) {
		n, err = draw(w)
		return err
	}, in...)
	if errors.Is(err, report.ErrNothing) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %s\n", output, said(n))
	return err
}

// reportConvergence draws the convergence of the searches in the tuning
// logs paths (vkbench cache export-log, vkbench replay --format log).
func reportConvergence(cmd *cobra.Command, paths []string, output string, format report.Format) error {
	var ls []*search.TuneLog
	for _, p := range paths {
		l, err := readTuneLogFile(p)
		if err != nil {
			return err
		}
		ls = append(ls, l)
	}
	return writeReport(cmd, output, inputs("a file the report draws", paths...), func(w io.Writer) (int, error) {
		return report.Convergence(w, format, ls, report.Options{Version: version})
	}, func(n int) string {
		return "the convergence of " + plural(n, "search", "searches") + " in " + plural(len(ls), "log", "logs")
	})
}

// reportPeaks returns the report's options with the peak of each
// hardware of in, for its roofline: each roof from its flag
// (--peak-gbps, --peak-gflops: fp32) where set, else from the peak stored
// in the cache for the hardware (readPeak), whose other compute rates
// (fp16, int32, the matrix units') are the other precisions' roofs; nil where neither roof is
// known, and the cache named where its peak could not be read. The cache
// is opened only where a flag is missing, and closed once read; it is
// then among the report's inputs, which -o may not replace.
func reportPeaks(cmd *cobra.Command, in []report.Input, cf *cacheFlags, peakGBps, peakGFLOPs float64) (report.Options, []input, error) {
	stored := map[string]*autotune.PeakRecord{}
	opts := report.Options{Version: version, PeakUnread: map[string]string{}}
	var read []input
	if peakGBps == 0 || peakGFLOPs == 0 {
		cache, err := cf.open(cmd, false)
		if err != nil {
			return report.Options{}, nil, err
		}
		for _, f := range in {
			if f.File == nil { // ab's report: no roofline
				continue
			}
			hw := f.File.Device.Hardware
			if _, seen := stored[hw]; !seen {
				var unread bool
				if stored[hw], unread, err = readPeak(cmd, cache, hw); err != nil {
					break
				}
				if unread {
					opts.PeakUnread[hw] = cache.Path()
				}
			}
		}
		if err := status.Join(err, cache.Close()); err != nil {
			return report.Options{}, nil, err
		}
		read = []input{cacheInput(cache)}
	}
	opts.Peak = func(hardware string) *autotune.Peak {
		var p autotune.Peak
		if s := stored[hardware]; s != nil {
			p.Rates = s.Rates // every precision's compute roof
		}
		p.BandwidthGBps = cmp.Or(peakGBps, p.BandwidthGBps)
		p.GFLOPs = cmp.Or(peakGFLOPs, p.GFLOPs)
		if p.BandwidthGBps == 0 && p.GFLOPs == 0 {
			return nil
		}
		return &p
	}
	return opts, read, nil
}

// loadPeak returns the peak stored in cache for hardware: nil where
// none is, a note rather than an error, and nil where the cache could not
// be read, a warning that the store wrote on stderr, naming its file (the
// peak is a reference, the work goes on without it). The command's
// context ending while it reads is its error: what it would write
// without the peak is not what was asked.
func loadPeak(cmd *cobra.Command, cache *store.Store, hardware string) (*autotune.PeakRecord, error) {
	p, _, err := readPeak(cmd, cache, hardware)
	return p, err
}

// readPeak is loadPeak that says too whether the cache could not be read
// (unread), for a note to say so rather than that no peak is stored.
func readPeak(cmd *cobra.Command, cache *store.Store, hardware string) (p *autotune.PeakRecord, unread bool, err error) {
	p, err = autotune.LoadPeak(cmd.Context(), cache, hardware)
	if err != nil && cmd.Context().Err() != nil {
		return nil, false, err
	}
	return p, err != nil, nil
}
