package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

func newABReport(oldPath, newPath string, info hal.DeviceInfo, opts autotune.Options, threshold float64) *results.ABReport {
	return &results.ABReport{Schema: results.ABSchema, Version: version, Time: time.Now().UTC(), Old: oldPath, New: newPath,
		Device: resultsDevice(info),
		Mode:   string(opts.Mode), Seed: opts.Seed, Rounds: opts.Rounds, Threshold: threshold, Confidence: stats.Confidence}
}

// addPair adds the rows of one paired operation, measured in e: its
// candidates alternate, OLD's then NEW's.
func addPair(r *results.ABReport, p abPair, e *autotune.Entry) {
	prefix := fmt.Sprintf("%s/%s/%s/", p.op.Name(), p.op.DType(), e.Size)
	bs := benchmarksOf(p.op, e, nil)
	for i, name := range p.names {
		r.AddPair(prefix+name, p.op.Name(), name, bs[2*i], bs[2*i+1], kernels.Verifies(p.op))
	}
	for _, n := range p.onlyOld {
		r.AddUnpaired(prefix+n, p.op.Name(), n, results.OnlyOld)
	}
	for _, n := range p.onlyNew {
		r.AddUnpaired(prefix+n, p.op.Name(), n, results.OnlyInNew)
	}
}

// abErr is the gate's verdict: exit status 1 when a pair is slower, or NEW
// computed wrong or failed where OLD ran.
func abErr(r *results.ABReport) error {
	if f := r.Failures(); f != "" {
		return errRegressionText("ab: NEW: " + f)
	}
	return nil
}

// errRegressionText is a regression (exit status 1) told in words.
type errRegressionText string

func (e errRegressionText) Error() string { return string(e) }

func writeAB(w io.Writer, format string, r *results.ABReport) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	case "junit":
		return writeABJUnit(w, r)
	}
	fmt.Fprintf(w, "old %s, new %s\ndevice %d: %s (%s), %s mode, %d rounds\n\n", r.Old, r.New, r.Device.Index, r.Device.Name, r.Device.Driver, r.Mode, r.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\told\tnew\tnew/old\t95% interval\tverdict")
	for _, row := range r.Rows {
		ratio, ci := "-", "-"
		if row.Ratio > 0 {
			ratio = fmt.Sprintf("%.3f", row.Ratio)
			ci = fmt.Sprintf("[%.3f, %.3f]", row.Lo, row.Hi)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", row.Name, report.Seconds(row.OldMedian), report.Seconds(row.NewMedian), ratio, ci, abVerdictText(row))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d slower (the whole 95%% interval above +%.1f%%), %d wrong, %d failed, %d unclear, %d not paired\n",
		r.Slower, r.Threshold*100, r.Wrong, r.Failed, r.Unclear, r.Unpaired)
	return err
}

func abVerdictText(row results.ABRow) string {
	return withNote(string(row.Verdict), report.OneLine(row.Note, 300))
}

func writeABJUnit(w io.Writer, r *results.ABReport) error {
	s := junitSuite{Name: "vkbench ab", Tests: len(r.Rows)}
	for _, row := range r.Rows {
		c := junitCase{Name: row.Name, Class: "vkbench.ab", Output: fmt.Sprintf("old %s, new %s, new/old %.3f [%.3f, %.3f]: %s",
			report.Seconds(row.OldMedian), report.Seconds(row.NewMedian), row.Ratio, row.Lo, row.Hi, abVerdictText(row))}
		switch {
		case row.Verdict.Fails():
			c.Failure = &junitMessage{Message: abVerdictText(row)}
			s.Failures++
		case row.Verdict == results.NotMeasured || row.Verdict == results.OnlyOld || row.Verdict == results.OnlyInNew:
			c.Skipped = &junitMessage{Message: abVerdictText(row)}
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	return encodeJUnit(w, s)
}
