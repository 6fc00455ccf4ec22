package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
)

// addPair adds the rows of one paired operation: as measured in its
// rounds, merged (its candidates alternate, OLD's then NEW's), or not
// measured, saying why once, where it could not run.
func addPair(r *results.ABReport, op *abOp) {
	p := op.pair
	prefix := fmt.Sprintf("%s/%s/%s/", p.op.Name(), p.op.DType(), op.size)
	var bs []results.Benchmark
	if op.failure == "" {
		bs = benchmarksOf(p.op, op.merged, nil)
	}
	for i, name := range p.names {
		if op.failure != "" {
			r.AddUnmeasured(prefix+name, p.op.Name(), name, op.failure)
		} else {
			r.AddPair(prefix+name, p.op.Name(), name, bs[2*i], bs[2*i+1], kernels.Verifies(p.op))
		}
		r.Rows[len(r.Rows)-1].Seconds = op.spent.Seconds()
	}
	for _, n := range p.onlyOld {
		r.AddUnpaired(prefix+n, p.op.Name(), n, results.OnlyOld)
	}
	for _, n := range p.onlyNew {
		r.AddUnpaired(prefix+n, p.op.Name(), n, results.OnlyInNew)
	}
}

func writeAB(w io.Writer, format string, r *results.ABReport, width tableWidth) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	case "junit":
		return writeABJUnit(w, r)
	}
	var b strings.Builder
	lines := width.lineWidth()
	limit := fmt.Sprintf("none started after %s", time.Duration(r.MaxTime*float64(time.Second)))
	if r.MaxTime == 0 {
		limit = "no more: --max-time 0"
	}
	wrapAt(&b, lines, "", fmt.Sprintf("old %s, new %s", r.Old, r.New),
		fmt.Sprintf("device %d: %s (%s), %s mode", r.Device.Index, r.Device.Name, r.Device.Driver, r.Mode),
		fmt.Sprintf("%s in %.1f s (at least %d; %s)", plural(r.Rounds, "round", "rounds"), r.Seconds, r.MinRounds, limit))
	b.WriteByte('\n')
	t := abTable(r)
	t.write(&b, width)
	b.WriteByte('\n')
	wrapAt(&b, lines, "", "old, new: median time per run (the median of the rounds' medians). new/old: the median of the rounds' ratios, each of samples taken back to back, which cancels what drifted between them (new÷old need not equal it); 95% bounds: its confidence sequence, valid however many rounds were looked at",
		abSummary(r))
	for _, row := range t.rows {
		if row.undecided != "" {
			wrapAt(&b, lines, "", fmt.Sprintf("unclear (--on-unclear %s): %s: %s", r.OnUnclear, row.name, row.undecided))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// abSummary counts the pairs by what they came to: how many were slower
// always (the verdict stands on it, "none slower" too), the others where
// there are any ("2 slower (...), 1 wrong, 1 not measured and 1 not
// paired").
func abSummary(r *results.ABReport) string {
	slower := "none slower"
	if r.Slower > 0 {
		slower = fmt.Sprintf("%d slower", r.Slower)
	}
	return sentence(slices.Concat([]string{fmt.Sprintf("%s (the 95%% bounds above +%.1f%%)", slower, r.Threshold*100)},
		counted(r.Wrong, "wrong"), counted(r.Failed, "failed"), counted(r.Unclear, "unclear"),
		counted(r.Unmeasured, "not measured"), counted(r.Unpaired, "not paired")))
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
		note := status.TextForPeople(row.Note) // as run says an error; the JSON keeps it whole
		g := gateRow{name: row.Name, cells: []string{report.Seconds(row.OldMedian), report.Seconds(row.NewMedian), ratio, bounds, rounds}, verdict: string(row.Verdict), note: note}
		switch v := row.Verdict; {
		case v.Fails():
			g.failure = verdictText(v, note)
		case v == results.Unclear:
			g.unclear, g.undecided = verdictText(v, note), status.TextForPeople(row.Undecided())
		case v == results.NotMeasured, v == results.OnlyOld, v == results.OnlyInNew:
			g.skipped = verdictText(v, note)
		}
		t.rows = append(t.rows, g)
	}
	return t
}

// writeABJUnit writes a case per pair, in its share of its operation's
// time (gateTable.cases says which fail and which are skipped).
func writeABJUnit(w io.Writer, r *results.ABReport) error {
	perOp := map[string]int{}
	for _, row := range r.Rows {
		if row.Seconds > 0 {
			perOp[row.Op]++
		}
	}
	cases := abTable(r).cases(r.OnUnclear)
	for i, row := range r.Rows {
		if n := perOp[row.Op]; n > 0 && row.Seconds > 0 {
			// The operation's time, shared by its pairs.
			cases[i].Time = junitTime(row.Seconds / float64(n))
		}
	}
	return writeJUnit(w, "ab", r.Seconds, "", cases)
}
