package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/results"
)

// writeResults writes file in format (table, json, csv or gobench); a
// table shows as much as o asks, and a verbose one says each benchmark's
// conditions under it.
func writeResults(w io.Writer, format string, file *results.File, o tableOptions) error {
	switch format {
	case "json":
		return writeJSON(w, file)
	case "csv":
		return writeCSV(w, file)
	case "gobench":
		return writeGoBench(w, file)
	}
	return writeTable(w, file, o)
}

// writeJSON writes v as indented JSON, as every command's JSON output is.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// halfWidthText is a 95% interval's half-width relative to its median
// (stats.Stats.HalfWidth) as ± a percentage, "-" where there is no
// interval (+Inf).
func halfWidthText(w float64) string {
	if math.IsInf(w, 0) {
		return "-"
	}
	return fmt.Sprintf("±%.1f%%", w*100)
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
var benchName = strings.NewReplacer(" ", "_", "\t", "_").Replace
