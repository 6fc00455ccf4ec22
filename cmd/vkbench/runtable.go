package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
)

// tableOptions say how much a run's table shows.
type tableOptions struct {
	// precision is the half-width of the 95% interval asked for, as a
	// fraction of the median (--precision / 100): a wider interval is
	// shown as unsettled, not as a figure. 0 shows every interval.
	precision float64
	// verbose lists every candidate: those dropped early, those the
	// device cannot run, and each one's conditions.
	verbose bool
	tableWidth
}

// writeTable writes file for a person: per operation, its candidates
// that ran (those dropped early as slower and those the device cannot
// run folded into a line each, unless verbose), then a summary of the
// winners, and what writeConditions says. Every line fits the terminal
// it goes to (o.width); no name is cut in a file or a pipe.
func writeTable(w io.Writer, file *results.File, o tableOptions) error {
	var b strings.Builder
	head := fmt.Sprintf("device %d: %s (%s), %s mode", file.Device.Index, file.Device.Name, file.Device.Driver, file.Mode)
	groups := opGroups(file)
	if file.Rounds > 1 {
		head += fmt.Sprintf(", %d rounds pooled", file.Rounds)
		if fewest := fewestRounds(groups); fewest < file.Rounds {
			head += fmt.Sprintf(", %d for some operations", fewest)
		}
	}
	wrapAt(&b, o.lineWidth(), "", head)
	seen := legend{}
	oneLine := false
	for _, g := range groups {
		// Operations of one line each are a block.
		one := g.oneLine(o)
		if !one || !oneLine {
			b.WriteByte('\n')
		}
		oneLine = one
		g.write(&b, o, &seen)
	}
	writeWinners(&b, groups, o, &seen)
	seen.write(&b, o)
	writeConditions(&b, file, o)
	_, err := io.WriteString(w, b.String())
	return err
}

// opGroup is one operation at one dtype and size: its benchmarks, in the
// file's order.
type opGroup struct {
	op, dtype, shape string
	benches          []*results.Benchmark
}

func (g *opGroup) title() string { return fmt.Sprintf("%s %s, size %s", g.op, g.dtype, g.shape) }

// name is the operation and its dtype, the dtype left out where the
// operation's name already says it (gemm-f16).
func (g *opGroup) name() string {
	if strings.Contains(g.op, g.dtype) {
		return g.op
	}
	return g.op + " " + g.dtype
}

func opGroups(file *results.File) []*opGroup {
	var groups []*opGroup
	for i := range file.Benchmarks {
		b := &file.Benchmarks[i]
		if n := len(groups); n == 0 || groups[n-1].op != b.Op || groups[n-1].dtype != b.DType || groups[n-1].shape != b.Shape {
			groups = append(groups, &opGroup{op: b.Op, dtype: b.DType, shape: b.Shape})
		}
		groups[len(groups)-1].benches = append(groups[len(groups)-1].benches, b)
	}
	return groups
}

// fewestRounds is the fewest rounds that measured an operation of
// groups, that of each being its candidates' most: a device lost in the
// middle of a run leaves the operations after it fewer (0 where none ran).
func fewestRounds(groups []*opGroup) int {
	fewest := math.MaxInt
	for _, g := range groups {
		most := 0
		for _, b := range g.benches {
			most = max(most, len(b.Rounds))
		}
		if most > 0 {
			fewest = min(fewest, most)
		}
	}
	return fewest
}

// unit is the rate that matters for the operation, and the prefix and
// factor its column uses.
func (g *opGroup) unit() (report.Unit, string, float64) {
	unit := report.Bandwidth
	top := 0.0
	for _, b := range g.benches {
		if b.Ran() {
			unit = report.UnitOf(b)
			top = max(top, report.RateOf(b, unit))
		}
	}
	p, f := report.Prefix(top)
	return unit, p, f
}

// winner is the operation's winner and the runner-up's median, or nil.
func (g *opGroup) winner() (win *results.Benchmark, runnerUp float64) {
	for _, b := range g.benches {
		if b.Winner {
			win = b
		}
	}
	for _, b := range g.benches {
		if b != win && b.Ran() && (runnerUp == 0 || b.Stats.Median < runnerUp) {
			runnerUp = b.Stats.Median
		}
	}
	return win, runnerUp
}

func anyPeak(bs []*results.Benchmark) bool {
	return slices.ContainsFunc(bs, func(b *results.Benchmark) bool { return b.PercentPeak > 0 })
}

// oneLine reports whether the operation is one line: nothing of it ran,
// and o is not verbose.
func (g *opGroup) oneLine(o tableOptions) bool {
	return !o.verbose && !slices.ContainsFunc(g.benches, (*results.Benchmark).Ran)
}

// write writes the operation's table, or one line where nothing of it ran.
func (g *opGroup) write(b *strings.Builder, o tableOptions, seen *legend) {
	if g.oneLine(o) {
		why, whole := g.notMeasured()
		wrapAt(b, o.lineWidth(), "", g.title()+": "+why)
		seen.folded = seen.folded || !whole && slices.ContainsFunc(g.benches, func(b *results.Benchmark) bool {
			return b.Outcome == results.Dropped || b.Outcome == results.Unsupported
		})
		return
	}
	if o.tableWidth > 0 { // on a terminal, wrapped at its edge; elsewhere whole, as names are
		wrapAt(b, int(o.tableWidth), "", g.title())
	} else {
		b.WriteString(g.title() + "\n")
	}
	unit, prefix, factor := g.unit()
	peak := anyPeak(g.benches)
	energy := slices.ContainsFunc(g.benches, func(b *results.Benchmark) bool { return b.EnergyJ > 0 })
	t := o.grid("  ", 1)
	head := []string{"", "candidate", "median", "±95% CI", "min", prefix + string(unit)}
	if peak {
		head = append(head, "% peak")
	}
	if energy {
		head = append(head, "energy/run")
	}
	t.add(append(head, "notes")...)
	var explain []string // why candidates were wrong or failed, under the table
	// Verbose, why the device cannot run the candidates whose rows say
	// unsupported: each reason once, with the candidates it stops.
	var unsupported reasons
	folded := map[results.Outcome]int{} // counted under the table, unless verbose
	for _, bench := range g.benches {
		if (bench.Outcome == results.Dropped || bench.Outcome == results.Unsupported) && !o.verbose {
			folded[bench.Outcome]++
			continue
		}
		mark := ""
		if bench.Winner {
			mark = "*"
			seen.winner = true
		}
		med, ci, mn := "-", "-", "-"
		unsettled := false
		if s := bench.Stats; s != nil {
			med, mn = report.Seconds(s.Median), report.Seconds(s.Min)
			ci = halfWidthText(s.HalfWidth())
			if unsettled = s.HasInterval() && o.precision > 0 && s.HalfWidth() > o.precision; unsettled {
				ci = "unsettled"
				seen.unsettled = true
			}
		}
		row := []string{mark, bench.Candidate, med, ci, mn, report.Rate("%.1f", report.RateOf(bench, unit)*factor)}
		if peak {
			row = append(row, report.PeakText(bench))
			seen.peak.See(bench)
		}
		if energy {
			row = append(row, joules(bench.EnergyJ))
		}
		note := notesOf(bench, unsettled)
		if bench.Tie != "" {
			note = strings.TrimSuffix("tie; "+note, "; ")
			if !slices.Contains(seen.ties, bench.Tie) {
				seen.ties = append(seen.ties, bench.Tie)
			}
		}
		if (bench.Outcome == results.Wrong || bench.Outcome == results.Failed || bench.Outcome == results.NotRun) && bench.Error != "" {
			explain = append(explain, bench.Candidate+" "+string(bench.Outcome)+": "+report.Reason(bench.Error, bench.Candidate))
		}
		if bench.Outcome == results.Unsupported {
			unsupported.add("unsupported, "+report.Reason(bench.Error, bench.Candidate), bench.Candidate)
		}
		t.add(append(row, note)...)
	}
	t.write(b)
	wrapAt(b, o.lineWidth(), "    ", explain...)
	if o.verbose {
		unsupported.write(b, o.lineWidth(), "    ")
		return
	}
	if n := folded[results.Dropped]; n > 0 {
		wrapAt(b, o.lineWidth(), "  ", fmt.Sprintf("+ %d dropped early, slower than the leader", n))
		seen.folded = true
	}
	if folded[results.Unsupported] > 0 {
		wrapAt(b, o.lineWidth(), "  ", "+ "+report.CountReasons(g.benches, results.Unsupported))
		seen.folded = true
	}
}

// notMeasured says why nothing of the operation was measured: the
// reasons counted, or, where the operation as a whole failed at its size
// (every candidate failed the same way), that reason once, without the
// operation and size the line says already.
func (g *opGroup) notMeasured() (why string, whole bool) {
	first := g.benches[0]
	same := func(b *results.Benchmark) bool { return b.Outcome == first.Outcome && b.Error == first.Error }
	if first.Outcome != results.Failed && first.Outcome != results.NotRun || slices.ContainsFunc(g.benches, func(b *results.Benchmark) bool { return !same(b) }) {
		return report.CountReasons(g.benches), false
	}
	why = report.Reason(first.Error, first.Candidate)
	why = strings.TrimPrefix(why, g.op+" "+g.shape+": ")
	if first.Outcome == results.NotRun {
		return string(results.NotRun) + ": " + why, true
	}
	return "not measured: " + why, true
}

// notesOf says what became of a candidate beyond its numbers, in a few
// words: nothing for one verified and measured within the precision.
// Where the interval is shown as unsettled, the flags that say why
// sampling stopped short of the precision go unsaid, and so do those
// the % peak column says.
func notesOf(b *results.Benchmark, unsettled bool) string {
	var notes []string
	switch b.Outcome {
	case results.Measured:
	case results.Dropped:
		notes = append(notes, "dropped (slower)")
	default:
		notes = append(notes, string(b.Outcome))
	}
	for _, f := range b.Flags {
		switch {
		case f == autotune.FlagNotVerified:
			notes = slices.Insert(notes, 0, report.FlagText(f))
		case unsettled && (f == autotune.FlagMaxSamples || f == autotune.FlagBudgetSpent):
		case (f == autotune.FlagAbovePeakBandwidth || f == autotune.FlagAbovePeakFLOPs) && report.PeakText(b) == report.AbovePeak:
			// the % peak column says it
		default:
			notes = append(notes, report.FlagText(f))
		}
	}
	return strings.Join(notes, "; ")
}

// writeWinners writes the summary: per operation, its winner, the
// winner's time and the rate that matters for the operation, the
// percentage of the device's peak, and how much slower the runner-up is,
// or "tie" where their intervals overlap.
func writeWinners(b *strings.Builder, groups []*opGroup, o tableOptions, seen *legend) {
	peak := slices.ContainsFunc(groups, func(g *opGroup) bool { return anyPeak(g.benches) })
	t := o.grid("  ", 2)
	head := []string{"operation", "size", "winner", "median", "rate"}
	if peak {
		head = append(head, "% peak")
	}
	// The margin is a figure: an empty last column (a grid's notes) keeps
	// it with the others where a narrow terminal stacks the rows.
	t.add(append(head, "margin", "")...)
	for _, g := range groups {
		win, runnerUp := g.winner()
		if win == nil || win.Stats == nil {
			continue // its line above says why
		}
		unit := report.UnitOf(win)
		row := []string{g.name(), g.shape, win.Candidate, report.Seconds(win.Stats.Median), report.RateText(report.RateOf(win, unit), unit)}
		if peak {
			row = append(row, report.PeakText(win))
			seen.peak.See(win)
		}
		margin := "-"
		switch {
		case win.Tie != "":
			margin = "tie"
		case runnerUp > 0:
			margin = fmt.Sprintf("%.1f%%", (runnerUp/win.Stats.Median-1)*100)
		}
		t.add(append(row, margin, "")...)
	}
	if len(t.rows) == 1 {
		return
	}
	b.WriteString("\n")
	wrapAt(b, o.lineWidth(), "", "winners (margin: how much slower the runner-up is)")
	t.write(b)
}

// legend is what a table's marks mean, said once under the tables where
// they appear.
type legend struct {
	ties      []string // the rules that broke ties, each once
	winner    bool
	unsettled bool
	folded    bool
	peak      report.PeakLegend
}

func (l legend) write(b *strings.Builder, o tableOptions) {
	b.WriteString("\n")
	w := o.lineWidth()
	if l.winner {
		fastest, indent := "* the fastest", ""
		for i, rule := range l.ties {
			if i == 0 {
				fastest += "; tie: " + rule
				continue
			}
			wrapAt(b, w, indent, fastest)
			fastest, indent = "or: "+rule, "  "
		}
		wrapAt(b, w, indent, fastest)
	}
	if l.unsettled {
		wrapAt(b, w, "", fmt.Sprintf("unsettled: the 95%% interval is wider than the ±%g%% asked (--precision)", o.precision*100))
	}
	if l.folded {
		wrapAt(b, w, "", "candidates dropped early or that the device cannot run are counted: -v lists them")
	}
	wrapAt(b, w, "", l.peak.Notes()...)
}

// reasons are why things did not run, each with the name it stopped.
type reasons []struct{ why, name string }

func (r *reasons) add(why, name string) { *r = append(*r, struct{ why, name string }{why, name}) }

// write writes each reason once, in the order first seen, a line each
// wrapped at columns, with the names it stopped: "why: name, name".
func (r reasons) write(b *strings.Builder, columns int, indent string) {
	whys, byWhy := groupBy(r, func(x struct{ why, name string }) string { return x.why })
	for _, why := range whys {
		var names []string
		for _, x := range byWhy[why] {
			names = append(names, x.name)
		}
		wrapAt(b, columns, indent, why+": "+strings.Join(names, ", "))
	}
}
