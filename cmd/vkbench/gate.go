package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
)

// What the two gates, ab and compare, share: the table of their verdicts,
// their JUnit, and what a benchmark they could not decide does
// (--on-unclear): one flag, one warning, one annotation, one rule for
// JUnit.

// onUnclearFlag registers --on-unclear, warn by default; what names the
// benchmarks it is about, "a pair still unclear at --max-time".
func onUnclearFlag(fs *pflag.FlagSet, p *string, what string) {
	fs.StringVar(p, "on-unclear", results.UnclearWarns, "what "+what+" does: pass (exit 0), warn (exit 0, a warning on stderr and, under GitHub Actions, a ::warning annotation) or fail (exit 1, an ::error annotation)")
}

// checkGate refuses, as bad usage, what both gates refuse: a --threshold
// (in percent) outside [0, 100), an --on-unclear other than pass, warn or
// fail, a --format other than table, json or junit.
func checkGate(thresholdPct float64, onUnclear, format string) error {
	switch {
	case thresholdPct < 0 || thresholdPct >= 100:
		return usageError{fmt.Errorf("--threshold %g is outside [0, 100)", thresholdPct)}
	case !slices.Contains([]string{results.UnclearPasses, results.UnclearWarns, results.UnclearFails}, onUnclear):
		return usageError{fmt.Errorf("--on-unclear %q: want pass, warn or fail", onUnclear)}
	}
	return checkFormat(format, "table", "json", "junit")
}

// gateTable is a gate's verdicts, compare's or ab's, for a person: the
// titles of the figures' columns, and a row per benchmark.
type gateTable struct {
	head []string
	rows []gateRow
}

// gateRow is a benchmark compared, or a pair of ab: its name, its
// figures, its verdict and the note that explains it; and what the gate
// makes of it: failure, the message of a row that fails the gate;
// skipped, of one not compared; unclear, of one the gate could not
// decide, whose undecided says what could not be ruled out ("" for a
// row decided).
type gateRow struct {
	name                                 string
	cells                                []string
	verdict, note                        string
	failure, skipped, unclear, undecided string
}

// text is row i in a line of words, each figure after its column's title,
// then the verdict with its note: a JUnit case's output.
func (t gateTable) text(i int) string {
	r := t.rows[i]
	figures := make([]string, len(t.head))
	for j, h := range t.head {
		figures[j] = h + " " + r.cells[j]
	}
	return strings.Join(figures, ", ") + ": " + verdictText(results.Verdict(r.verdict), r.note)
}

// write writes the rows a line each, under the titles, grouped under
// their names up to the last slash (the operation, type and size: a name
// is its heading and its row together). A row holds the rest of its name
// (whole in a file or a pipe, one too long widening the table, as
// benchstat's do; on a terminal cut at its start where width asks it),
// its figures, and its verdict, never cut, with a mark [n] for its note;
// the notes follow the table, numbered, each once. On a terminal too
// narrow for the rows, even with their names cut, each row is its name
// and verdict, then its figures on as many lines as they need
// (grid.stacked).
func (t gateTable) write(b *strings.Builder, width tableWidth) {
	g := width.grid("", 0)
	g.whole = true
	g.add(slices.Concat([]string{"benchmark"}, t.head, []string{"verdict"})...)
	var notes []string
	dirs, byDir := groupBy(t.rows, func(r gateRow) string {
		dir, _ := path.Split(r.name)
		return dir
	})
	if i := slices.Index(dirs, ""); i > 0 { // names without a heading first, under none
		dirs = slices.Insert(slices.Delete(dirs, i, i+1), 0, "")
	}
	for _, dir := range dirs {
		if dir != "" {
			g.add(dir)
		}
		for _, r := range byDir[dir] {
			v := r.verdict
			if note := report.OneLine(r.note, 300); note != "" {
				i := slices.Index(notes, note)
				if i < 0 {
					i, notes = len(notes), append(notes, note)
				}
				v += fmt.Sprintf(" [%d]", i+1)
			}
			g.add(slices.Concat([]string{"  " + strings.TrimPrefix(r.name, dir)}, r.cells, []string{v})...)
		}
	}
	g.write(b)
	for i, note := range notes {
		wrapAt(b, width.lineWidth(), "", fmt.Sprintf("[%d] %s", i+1, note))
	}
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	Output   string      `xml:"system-out,omitempty"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Time    string        `xml:"time,attr"` // seconds
	Failure *junitMessage `xml:"failure,omitempty"`
	Skipped *junitMessage `xml:"skipped,omitempty"`
	Output  string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
}

// writeJUnit writes a gate's cases as the JUnit suite "vkbench command",
// which took seconds, with notes, the summary, as its output. Every case
// is of class vkbench.command (vkbench.compare, vkbench.ab): CI systems
// group cases by class, a package and a class where it has a dot, and a
// job that runs both gates keeps their verdicts on one benchmark apart.
func writeJUnit(w io.Writer, command string, seconds float64, notes string, cases []junitCase) error {
	s := junitSuite{Name: "vkbench " + command, Tests: len(cases), Time: junitTime(seconds), Cases: cases, Output: notes}
	for i, c := range cases {
		cases[i].Class = "vkbench." + command
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitTime is a test case's or suite's time as JUnit writes it, in
// seconds.
func junitTime(seconds float64) string { return fmt.Sprintf("%.3f", seconds) }

// verdictText is a verdict, a compare row's or an ab pair's, and, where
// there is one, its note, on one line ("not measured (no samples in new)").
func verdictText(v results.Verdict, note string) string {
	return withNote(string(v), report.OneLine(note, 300))
}

// withNote is a verdict followed by its note in parentheses, where it has
// one.
func withNote(verdict, note string) string {
	if note == "" {
		return verdict
	}
	return verdict + " (" + note + ")"
}

// warnUnclear says on stderr what command could not decide, wrapped to
// its width (a terminal's, else columns): with --on-unclear warn once,
// how many and which (the report says why of each); with fail, the
// reasons of the failure, a line each; with pass nothing (the report
// still says it). Under GitHub Actions it also writes annotations of one
// line, as Actions reads them: an ::error for each row that fails the
// gate, or could not be decided with fail; with warn one ::warning for
// all those undecided (Actions shows a step's first ten or so). Annotations go to standard output,
// where Actions reads them, unless the report itself went there (no
// -o): then to stderr, which Actions reads too.
func warnUnclear(cmd *cobra.Command, command, onUnclear string, t gateTable) {
	stderr := cmd.ErrOrStderr()
	width := terminalWidth(stderr).lineWidth()
	var b strings.Builder
	var unclear []string
	for _, r := range t.rows {
		if r.unclear == "" {
			continue
		}
		unclear = append(unclear, r.name)
		if onUnclear == results.UnclearFails {
			wrapAt(&b, width, "", "vkbench: "+command+": unclear: "+r.name+": "+r.undecided)
		}
	}
	warn := onUnclear == results.UnclearWarns && len(unclear) > 0
	summary := plural(len(unclear), "benchmark", "benchmarks") + " unclear (the report says why of each): " + strings.Join(unclear, ", ")
	if warn {
		wrapAt(&b, width, "", "vkbench: warning: "+command+": "+summary)
	}
	fmt.Fprint(stderr, b.String())
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	annotations := cmd.OutOrStdout()
	if o, _ := cmd.Flags().GetString("output"); o == "" || o == "-" {
		annotations = stderr
	}
	annotate := func(level, title, msg string) {
		fmt.Fprintf(annotations, "::%s title=%s::%s\n", level, actionsEscape("vkbench "+command+title, true), actionsEscape(msg, false))
	}
	for _, r := range t.rows {
		switch {
		case r.failure != "":
			annotate("error", ": "+r.name, r.failure)
		case r.unclear != "" && onUnclear == results.UnclearFails:
			annotate("error", ": "+r.name, r.unclear)
		}
	}
	if warn {
		annotate("warning", "", summary)
	}
}

// cases are the rows as JUnit cases, each taking no time: a failure
// where the row fails the gate, or could not be decided and
// --on-unclear is fail; skipped where it was not compared, or could not
// be decided.
func (t gateTable) cases(onUnclear string) []junitCase {
	cases := make([]junitCase, len(t.rows))
	for i, r := range t.rows {
		c := junitCase{Name: r.name, Time: junitTime(0), Output: t.text(i)}
		switch {
		case r.failure != "":
			c.Failure = &junitMessage{Message: r.failure}
		case r.unclear != "" && onUnclear == results.UnclearFails:
			c.Failure = &junitMessage{Message: r.unclear}
		case r.unclear != "":
			c.Skipped = &junitMessage{Message: r.unclear}
		case r.skipped != "":
			c.Skipped = &junitMessage{Message: r.skipped}
		}
		cases[i] = c
	}
	return cases
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
