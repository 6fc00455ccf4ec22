package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// writeResults writes file in format (table, json, csv or gobench); a
// verbose table says each benchmark's conditions under it.
func writeResults(w io.Writer, format string, file *results.File, verbose bool) error {
	switch format {
	case "json":
		return writeJSON(w, file)
	case "csv":
		return writeCSV(w, file)
	case "gobench":
		return writeGoBench(w, file)
	}
	if err := writeTable(w, file); err != nil {
		return err
	}
	return writeConditions(w, file, verbose)
}

func writeTable(w io.Writer, file *results.File) error {
	fmt.Fprintf(w, "device %d: %s (%s), %s mode", file.Device.Index, file.Device.Name, file.Device.Driver, file.Mode)
	if file.Rounds > 1 {
		fmt.Fprintf(w, ", %d rounds pooled", file.Rounds)
	}
	fmt.Fprintln(w)
	// Energy per run is a column where any benchmark has it.
	energy := slices.ContainsFunc(file.Benchmarks, func(b results.Benchmark) bool { return b.EnergyJ > 0 })
	// One table per operation: a line without a tab, as each operation's
	// title, ends tabwriter's columns, so that each table is aligned on
	// its own.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var op string
	for _, b := range file.Benchmarks {
		if head := b.Op + "/" + b.DType + "/" + b.Shape; head != op {
			op = head
			fmt.Fprintf(tw, "\n%s %s, size %s\n", b.Op, b.DType, b.Shape)
			head := "  \tcandidate\tmedian\t±95% CI\tmin\tGB/s\tGFLOP/s\t% peak\t"
			if energy {
				head += "energy/run\t"
			}
			fmt.Fprintln(tw, head+"status")
		}
		mark := ""
		if b.Winner {
			mark = "*"
		}
		med, ci, mn := "-", "-", "-"
		if s := b.Stats; s != nil {
			med, mn = report.Seconds(s.Median), report.Seconds(s.Min)
			ci = halfWidthText(*s)
		}
		gbps, gflops := b.Rates()
		row := fmt.Sprintf("  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", mark, b.Candidate, med, ci, mn,
			report.Rate("%.1f", gbps), report.Rate("%.1f", gflops), report.Rate("%.0f%%", b.PercentPeak))
		if energy {
			e := "-"
			if b.EnergyJ > 0 {
				e = joules(b.EnergyJ)
			}
			row += e + "\t"
		}
		fmt.Fprintln(tw, row+statusText(b))
	}
	return tw.Flush()
}

// writeJSON writes v as indented JSON, as every command's JSON output is.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// halfWidthText is the 95% interval of s's median as ± a percentage of
// it, or "-" where s has too few samples for one.
func halfWidthText(s stats.Stats) string {
	if !s.HasInterval() {
		return "-"
	}
	return fmt.Sprintf("±%.1f%%", s.HalfWidth()*100)
}

// statusText says what became of a candidate, in a few words.
func statusText(b results.Benchmark) string {
	checked := "verified"
	flags := b.Flags
	if slices.Contains(flags, autotune.FlagNotVerified) {
		// The operation checks nothing ("verify": "none"): its results
		// ran, and nothing more is known of them.
		checked = "not verified"
		flags = slices.DeleteFunc(slices.Clone(flags), func(f string) bool { return f == autotune.FlagNotVerified })
	}
	var s string
	switch b.Outcome {
	case results.Measured:
		s = checked
	case results.Dropped:
		s = checked + ", dropped early (slower)"
	default:
		s = string(b.Outcome)
		if b.Error != "" {
			s += ": " + report.OneLine(report.Reason(b.Error, b.Candidate), 100)
		}
	}
	if len(flags) > 0 {
		s += " [" + strings.Join(flags, ",") + "]"
	}
	return s
}

func writeCSV(w io.Writer, file *results.File) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"op", "dtype", "shape", "candidate", "outcome", "winner", "median_s", "ci_lo_s", "ci_hi_s", "min_s", "max_s", "samples", "batch", "rounds", "gb_per_s", "gflop_per_s", "percent_of_peak", "flags", "error"}); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, b := range file.Benchmarks {
		row := []string{b.Op, b.DType, b.Shape, b.Candidate, string(b.Outcome), strconv.FormatBool(b.Winner)}
		if s := b.Stats; s != nil {
			lo, hi := "", "" // no interval: too few samples for one
			if s.HasInterval() {
				lo, hi = f(s.Lo), f(s.Hi)
			}
			row = append(row, f(s.Median), lo, hi, f(s.Min), f(s.Max), strconv.Itoa(s.N), strconv.Itoa(s.Batch), strconv.Itoa(len(b.Rounds)))
		} else {
			row = append(row, "", "", "", "", "", "", "", "")
		}
		row = append(row, f(b.GBps), f(b.GFLOPs), f(b.PercentPeak), strings.Join(b.Flags, ";"), b.Error)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeGoBench writes one line per round in Go's benchmark format, as go
// test -count N writes one per run: the round's median time per run in
// ns/op (the iterations are the round's runs) and, for operations that
// move data, MB/s. benchstat then compares the rounds, as compare does.
func writeGoBench(w io.Writer, file *results.File) error {
	fmt.Fprintf(w, "goos: vulkan\ngoarch: %s\npkg: vkbench\ncpu: %s\n", benchName(file.Device.Hardware), file.Device.Name)
	for _, b := range file.Benchmarks {
		name := "Benchmark" + benchName(b.Name)
		for _, r := range b.Rounds {
			if r.Median <= 0 {
				continue
			}
			line := fmt.Sprintf("%s\t%d\t%.1f ns/op", name, max(r.N*r.Batch, 1), r.Median*1e9)
			if b.Bytes > 0 {
				line += fmt.Sprintf("\t%.2f MB/s", b.Bytes/r.Median/1e6)
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchName makes a string safe as a Go benchmark name: no spaces.
func benchName(s string) string { return benchNameReplacer.Replace(s) }

var benchNameReplacer = strings.NewReplacer(" ", "_", "\t", "_")

// percentOfRoof is a result's rate as a percentage of what the roofline
// allows at its arithmetic intensity: min(compute peak of the operation's
// arithmetic (autotune.Peak.ComputeOf), intensity ×
// bandwidth peak) for operations that compute, the bandwidth peak for those
// that only move data; 0 when the peak is not known.
func percentOfRoof(r results.Result, op kernels.Operation, peak *autotune.Peak) float64 {
	if peak == nil {
		return 0
	}
	gbps, gflops := r.Rates()
	c, bw := peak.ComputeOf(op), peak.BandwidthGBps
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
