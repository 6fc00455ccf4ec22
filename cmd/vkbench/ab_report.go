package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
)

// addPair adds the rows of one paired operation, measured in e (its
// candidates alternate, OLD's then NEW's) over spent.
func addPair(r *results.ABReport, p abPair, e *autotune.Entry, spent time.Duration) {
	prefix := fmt.Sprintf("%s/%s/%s/", p.op.Name(), p.op.DType(), e.Size)
	bs := benchmarksOf(p.op, e, nil)
	for i, name := range p.names {
		r.AddPair(prefix+name, p.op.Name(), name, bs[2*i], bs[2*i+1], kernels.Verifies(p.op))
		r.Rows[len(r.Rows)-1].Seconds = spent.Seconds()
	}
	for _, n := range p.onlyOld {
		r.AddUnpaired(prefix+n, p.op.Name(), n, results.OnlyOld)
	}
	for _, n := range p.onlyNew {
		r.AddUnpaired(prefix+n, p.op.Name(), n, results.OnlyInNew)
	}
}

// warnUnclear says on stderr what could not be decided (a warning, or,
// with --on-unclear fail, the reasons of the failure), wrapped to the
// columns, unless --on-unclear pass asked for silence there (the report
// still says it); under GitHub Actions it also writes each as an
// annotation of one line, as Actions reads them: ::warning, or ::error
// for a pair that fails the gate. Annotations go to standard
// output, where Actions reads them, unless the report itself went there
// (no -o): then to stderr, which Actions reads too.
func warnUnclear(cmd *cobra.Command, r *results.ABReport) {
	stderr := cmd.ErrOrStderr()
	var b strings.Builder
	for _, u := range r.Undecided() {
		switch r.OnUnclear {
		case results.UnclearWarns:
			wrap(&b, "", "vkbench: warning: ab: undecided: "+u)
		case results.UnclearFails:
			wrap(&b, "", "vkbench: ab: undecided: "+u)
		}
	}
	fmt.Fprint(stderr, b.String())
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	annotations := cmd.OutOrStdout()
	if o, _ := cmd.Flags().GetString("output"); o == "" || o == "-" {
		annotations = stderr
	}
	for _, row := range r.Rows {
		level := ""
		switch {
		case row.Verdict.Fails(), row.Verdict == results.Unclear && r.OnUnclear == results.UnclearFails:
			level = "error"
		case row.Verdict == results.Unclear && r.OnUnclear == results.UnclearWarns:
			level = "warning"
		default:
			continue
		}
		fmt.Fprintf(annotations, "::%s title=%s::%s\n", level, actionsEscape("vkbench ab: "+row.Name, true), actionsEscape(verdictText(row.Verdict, row.Note), false))
	}
}

// actionsEscape escapes s for a GitHub Actions workflow command: its
// message (%, CR, LF) or, with property, a property's value (: and , too).
func actionsEscape(s string, property bool) string {
	pairs := []string{"%", "%25", "\r", "%0D", "\n", "%0A"}
	if property {
		pairs = append(pairs, ":", "%3A", ",", "%2C")
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

func writeAB(w io.Writer, format string, r *results.ABReport) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	case "junit":
		return writeABJUnit(w, r)
	}
	var b strings.Builder
	wrap(&b, "", fmt.Sprintf("old %s, new %s", r.Old, r.New))
	b.WriteString(report.OneLine(fmt.Sprintf("device %d: %s (%s), %s mode", r.Device.Index, r.Device.Name, r.Device.Driver, r.Mode), columns) + "\n")
	limit := fmt.Sprintf("none started after %s", time.Duration(r.MaxTime*float64(time.Second)))
	if r.MaxTime == 0 {
		limit = "no more: --max-time 0"
	}
	fmt.Fprintf(&b, "%s in %.1f s (at least %d; %s)\n\n", plural(r.Rounds, "round", "rounds"), r.Seconds, r.MinRounds, limit)
	abTable(r).write(&b)
	b.WriteByte('\n')
	wrap(&b, "", "old, new: median time per run (the median of the rounds' medians). new/old: the median of the rounds' ratios, each of samples taken back to back, which cancels what drifted between them (new÷old need not equal it); 95% bounds: its confidence sequence, valid however many rounds were looked at",
		fmt.Sprintf("%d slower (the 95%% bounds above +%.1f%%), %d wrong, %d failed, %d unclear, %d not paired", r.Slower, r.Threshold*100, r.Wrong, r.Failed, r.Unclear, r.Unpaired))
	for _, u := range r.Undecided() {
		wrap(&b, "", fmt.Sprintf("undecided (--on-unclear %s): %s", r.OnUnclear, u))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// abTable is a row per pair: its medians, its ratio with the ratio's 95%
// bounds, and the rounds it was measured in; "-" for what a pair lacks.
func abTable(r *results.ABReport) gateTable {
	t := gateTable{head: []string{"old", "new", "new/old", "95% bounds", "rounds"}}
	for _, row := range r.Rows {
		ratio, bounds, rounds := "-", "-", "-"
		if row.Ratio > 0 {
			ratio, rounds = fmt.Sprintf("%.3f", row.Ratio), fmt.Sprint(len(row.Rounds))
		}
		if row.HasBounds() {
			bounds = fmt.Sprintf("[%.3f, %.3f]", row.Lo, row.Hi)
		}
		t.rows = append(t.rows, gateRow{row.Name, []string{report.Seconds(row.OldMedian), report.Seconds(row.NewMedian), ratio, bounds, rounds}, string(row.Verdict), row.Note})
	}
	return t
}

// writeABJUnit writes a case per pair, in its share of its operation's
// time: a failure where it fails the gate (an unclear pair too, with
// --on-unclear fail), skipped where it was not compared or is unclear.
func writeABJUnit(w io.Writer, r *results.ABReport) error {
	perOp := map[string]int{}
	for _, row := range r.Rows {
		if row.Seconds > 0 {
			perOp[row.Op]++
		}
	}
	var cases []junitCase
	t := abTable(r)
	for i, row := range r.Rows {
		c := junitCase{Name: row.Name, Time: junitTime(0), Output: t.text(i)}
		if n := perOp[row.Op]; n > 0 && row.Seconds > 0 {
			// The operation's time, shared by its pairs.
			c.Time = junitTime(row.Seconds / float64(n))
		}
		unclear := row.Verdict == results.Unclear
		switch {
		case row.Verdict.Fails(), unclear && r.OnUnclear == results.UnclearFails:
			c.Failure = &junitMessage{Message: verdictText(row.Verdict, row.Note)}
		case unclear, row.Verdict == results.NotMeasured, row.Verdict == results.OnlyOld, row.Verdict == results.OnlyInNew:
			c.Skipped = &junitMessage{Message: verdictText(row.Verdict, row.Note)}
		}
		cases = append(cases, c)
	}
	return writeJUnit(w, "ab", r.Seconds, "", cases)
}
