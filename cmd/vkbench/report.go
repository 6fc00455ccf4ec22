package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/results"
)

// newReportCmd is report: charts of result files.
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
read too). The format of OUTPUT follows its extension: .html (a self-contained
page with the charts inline and a table per operation), .svg or .png (the
charts one under the other).

For each operation (and dtype and size) one chart shows every candidate's
median time per run with its 95% confidence interval, lower is better; the
winner is filled. Candidates that failed or that the device does not support
have no point: their row says why. With several files the charts overlay
them: each candidate has one point per file, in the file's colour, so that a
base and a new run read side by side.

The roofline places each operation that does arithmetic by its arithmetic
intensity (FLOP per byte moved, x) and its achieved GFLOP/s (y), under the
device's bandwidth and compute roofs. The roofs come from --peak-gbps and
--peak-gflops, else from the peak that vkbench peak stored in the tune cache
(--cache) for the file's hardware; with neither the roofline is left out,
with a note. Operations that only move data (copy, transpose) are listed
under it with their bandwidth.

Exit status: 0 success, 2 bad usage or an unreadable or malformed file.`,
		Example: `  vkbench run --format json -o run.json
  vkbench report run.json -o report.html
  vkbench report base.json new.json -o compare.png --peak-gbps 900 --peak-gflops 30000`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("report needs at least one result file (see %s --help)", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, args, output, &cf, peakGBps, peakGFLOPs)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "the report to write: .html, .svg or .png (required)")
	floatVar(cmd.Flags(), &peakGBps, "peak-gbps", 0, "the device's peak memory bandwidth in GB/s, for the roofline (default: the stored peak)")
	floatVar(cmd.Flags(), &peakGFLOPs, "peak-gflops", 0, "the device's peak GFLOP/s, for the roofline (default: the stored peak)")
	cf.register(cmd.Flags())
	return cmd
}

// runReport draws the report of the files args into output, whose
// extension says the format, with the roofs the flags give or the cache
// stores.
func runReport(cmd *cobra.Command, args []string, output string, cf *cacheFlags, peakGBps, peakGFLOPs float64) error {
	format, err := reportFormat(output)
	if err != nil {
		return err
	}
	if drawn, err := reportConvergence(cmd, args, output, format); drawn || err != nil {
		return err
	}
	if err := checkPeakFlags(peakGBps, peakGFLOPs); err != nil {
		return err
	}
	in, err := readReportFiles(args)
	if err != nil {
		return err
	}
	peakOf, err := reportPeaks(cmd, cf, peakGBps, peakGFLOPs)
	if err != nil {
		return err
	}
	rep := buildReport(in, peakOf)
	if err := writeReportFile(cmd, output, func(w io.Writer) error { return rep.write(w, format) }); err != nil {
		return err
	}
	_, err = fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d chart(s) of %d file(s)\n", output, rep.charts(), len(in))
	return err
}

// writeReportFile draws a report with write, then writes it to path
// atomically (see openOutput): a report that cannot be drawn touches no
// file.
func writeReportFile(cmd *cobra.Command, path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	return writeOutput(cmd, path, "", func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// reportPeaks returns the peak of each hardware, for its roofline: each
// roof from its flag (--peak-gbps, --peak-gflops) where set, else from the
// peak stored in the cache for the hardware; nil where neither roof is
// known. The cache is opened only where a flag is missing.
func reportPeaks(cmd *cobra.Command, cf *cacheFlags, peakGBps, peakGFLOPs float64) (func(hardware string) *autotune.Peak, error) {
	var cache *autotune.Cache
	if peakGBps == 0 || peakGFLOPs == 0 {
		var err error
		if cache, err = cf.open(cmd, false); err != nil {
			return nil, err
		}
	}
	return func(hardware string) *autotune.Peak {
		p := autotune.Peak{BandwidthGBps: peakGBps, GFLOPs: peakGFLOPs}
		if cache != nil {
			if stored, _ := cache.LoadPeak(hardware); stored != nil { // no stored peak is a note, not an error
				p.BandwidthGBps = cmp.Or(p.BandwidthGBps, stored.BandwidthGBps)
				p.GFLOPs = cmp.Or(p.GFLOPs, stored.GFLOPs)
			}
		}
		if p.BandwidthGBps == 0 && p.GFLOPs == 0 {
			return nil
		}
		return &p
	}, nil
}

// reportFormat is the output format named by path's extension.
func reportFormat(path string) (string, error) {
	if path == "" {
		return "", usageError{fmt.Errorf("report needs -o FILE, ending in .html, .svg or .png")}
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".html", ".htm":
		return "html", nil
	case ".svg", ".png":
		return ext[1:], nil
	}
	return "", usageError{fmt.Errorf("-o %s: unknown report format %q (want .html, .svg or .png)", path, filepath.Ext(path))}
}

// reportInput is one result file and the label that names it in charts.
type reportInput struct {
	label string
	file  *results.File
}

func readReportFiles(paths []string) ([]reportInput, error) {
	in := make([]reportInput, len(paths))
	bases := map[string]int{}
	for i, p := range paths {
		f, err := results.ReadFile(p)
		if err != nil {
			return nil, usageError{err}
		}
		in[i] = reportInput{label: filepath.Base(p), file: f}
		bases[filepath.Base(p)]++
	}
	for i := range in {
		if bases[in[i].label] > 1 {
			in[i].label = paths[i] // two files of one name: tell them apart by path
		}
	}
	return in, nil
}

// opGroup is one operation at one dtype and size, across the files.
type opGroup struct {
	title string
	cands []string
	// at[c][f] is candidate c's benchmark in file f; nil if absent.
	at map[string][]*results.Benchmark
}

// splitName returns the group and candidate of b. Files in Go's benchmark
// format only have names: "op/dtype/shape/candidate" splits at the last
// slash.
func splitName(b *results.Benchmark) (group, title, cand string) {
	if b.Op != "" {
		return b.Op + "/" + b.DType + "/" + b.Shape, fmt.Sprintf("%s %s, size %s", b.Op, b.DType, b.Shape), b.Candidate
	}
	if i := strings.LastIndex(b.Name, "/"); i > 0 {
		return b.Name[:i], b.Name[:i], b.Name[i+1:]
	}
	return b.Name, b.Name, b.Name
}

func groupBenchmarks(in []reportInput) []*opGroup {
	var groups []*opGroup
	index := map[string]*opGroup{}
	for f, input := range in {
		for i := range input.file.Benchmarks {
			b := &input.file.Benchmarks[i]
			key, title, cand := splitName(b)
			g := index[key]
			if g == nil {
				g = &opGroup{title: title, at: map[string][]*results.Benchmark{}}
				index[key] = g
				groups = append(groups, g)
			}
			if g.at[cand] == nil {
				g.at[cand] = make([]*results.Benchmark, len(in))
				g.cands = append(g.cands, cand)
			}
			g.at[cand][f] = b
		}
	}
	return groups
}

// measured reports whether b has a median to draw.
func measured(b *results.Benchmark) bool {
	return b != nil && b.Stats != nil && b.Stats.Median > 0
}

// report is everything drawn: per operation a chart and a table, then a
// roofline (or a note) per hardware.
type report struct {
	in     []reportInput
	groups []*opGroup
	roofs  []roofline
}

func buildReport(in []reportInput, peakOf func(hardware string) *autotune.Peak) *report {
	rep := &report{in: in, groups: groupBenchmarks(in)}
	byHW := map[string]int{}
	for f, input := range in {
		hw := input.file.Device.Hardware
		i, ok := byHW[hw]
		if !ok {
			i = len(rep.roofs)
			byHW[hw] = i
			rep.roofs = append(rep.roofs, roofline{hardware: hw, device: input.file.Device.Name, peak: peakOf(hw)})
		}
		rep.roofs[i].files = append(rep.roofs[i].files, f)
	}
	for i := range rep.roofs {
		rep.roofs[i].notes = rep.rooflineNotes(&rep.roofs[i])
	}
	return rep
}

func (r *report) charts() int {
	n := len(r.groups)
	for _, rl := range r.roofs {
		if rl.drawn(r) {
			n++
		}
	}
	return n
}

func fileSuffix(r *report, f int) string {
	if len(r.in) < 2 {
		return ""
	}
	return " (" + r.in[f].label + ")"
}

func (r *report) write(w io.Writer, format string) error {
	panels, err := r.panels()
	if err != nil {
		return err
	}
	if format == "html" {
		return r.writeHTML(w, panels)
	}
	return writeCanvas(w, format, heightOf(panels), func(c vg.CanvasSizer) { drawPanels(c, panels) })
}
