package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
)

// compareLong is compare's help.
const compareLong = `Compare two result files (vkbench JSON, or Go benchmark format with one line
per round, as go test -count writes it) benchmark by benchmark, by the
variation between rounds: each file must come from a run with --count 5 or
more (vkbench run --count 5), each round prepared, warmed up and sampled
anew. The samples of one round share the device's state of that moment, so
comparing them across two runs calls any drift between the runs significant;
the rounds' medians vary as the runs do. For each benchmark: the change of
the median of the rounds' medians, the p-value of Welch's t-test over the
logarithms of the rounds' medians, adjusted by Holm's method for the number
of benchmarks compared, and a verdict. A benchmark is a regression when it
is slower by more than --threshold and the change is significant at
--alpha, or when NEW computed a wrong result, or failed where BASE ran
(the rule vkbench ab applies too). The adjustment makes --alpha the
chance that two runs in which nothing changed report anything at all, however many benchmarks they hold
(tested one at a time, 17 benchmarks at 0.05 would flag about one pair of
identical runs in four). Where the rounds' spread was too wide for a
slowdown of --threshold to show, compare says how large one had to be.
Before any test, the slowest round or two of each file are left out where
the generalized ESD test (Grubbs' test extended to two) at 0.01, over the
logarithms of that file's rounds' medians, calls them outliers (a
neighbour's job on a shared machine slows a round or two far more than the
rest, and their spread would hide a regression); the row's note says how
many were left out, and n_base and n_new in the JSON count the rounds
kept.

A run of several rounds also measures a probe in every round, among the
operations: a fixed 4 MiB copy. Where both files have it, compare prints how
much its speed changed, the machine's rather than the kernels'. A benchmark
is judged relative to the probe alone, round by round, where that
demonstrably steadies its rounds: where, within each file, its round
medians over the probe's vary less than its own (a Pitman-Morgan test at
0.05); a probe that does not move with a kernel only adds its noise.
Every other benchmark is slower only where both its own times and its
times relative to the probe say so, each significant: a machine slower
through one whole run moves a kernel by some part of what it moves the
probe, and then shows in one of the two as no slowdown. Every benchmark
judged relative to the probe must be slower net of it too: its rounds
over the probe's raised to the slope at which, within each file, it
moves with the probe (net_delta and probe_slope in the JSON), so that a
kernel the machine slows more than the probe is not taken for slower
either; where the probe moved far and that slope is uncertain, no change
is taken. The delta column
is always the benchmark's own change; "vs probe" the change relative to
the probe (relative_delta in the JSON, with probe_variance, the ratio of
the two variances). Relative to the probe a change is never reversed: one
whose own times moved the other way is judged the same, with a note.
--relative judges every benchmark relative to the probe and net of it,
never by its own times; --own-times by its own times alone.

Each side may be several files, the runs of several processes (BASE... --
NEW...): their rounds are pooled, and where both sides have two runs or
more, each run counts as one value, the mean of its rounds, so that the
variation between processes, which one run cannot show, is what a
difference is judged against (five runs a side find a 10% slowdown on a
busy machine more than four times in five; three, one time in five).

Where the two runs cannot be interleaved on one machine, this is the gate;
where they can (a kernel before and after a change), vkbench ab measures
both in one process, alternating, and is the better one. Both files must
come from devices of one name, in one mode (hot or --cold), for one
--objective and from one --seed (the inputs): another driver is a change
compare judges; another GPU, mode, objective or seed is not, and is
refused, naming both sides. The runs of one side may differ in their
seeds, not in their modes or objectives; one run given twice on a side (a
path repeated, a copy) is refused.

A benchmark judged the same whose rounds were too scattered for a
--threshold slowdown to show is unclear (as ab says of such a pair), and so
is one not run in a file (run lost the device before its turn): what it
does is --on-unclear's: pass, warn (the default: one warning on
stderr, and under GitHub Actions one annotation, naming all such
benchmarks; the report says how large a change could have shown) or
fail (exit 1, saying that of each, an ::error annotation each). Under
GitHub Actions (GITHUB_ACTIONS=true) each benchmark that fails the gate
is an ::error annotation, on standard output when the report goes to -o,
else on stderr.

With --format json the report follows results/schema/compare-v1.json
(schema vkbench.compare/v1). In JUnit, an unclear benchmark is skipped,
saying how large a change could have shown (a failure with --on-unclear
fail), and so is one with too few rounds to judge, saying so.

Exit status: 0 when nothing regressed (an unclear benchmark with
--on-unclear pass or warn), 1 when something did, or a benchmark is
unclear with --on-unclear fail, 2 for bad input,
including files with too few rounds to judge (it says how many are needed)
and files with no benchmark measured in both (it says what each holds), 4
the output could not be written (with -o, the report is written on exit 1
too).
Benchmarks present in only one file, or not measured in one, are reported;
with --fail-on-missing they fail the comparison too (exit 1), for a CI job
whose benchmarks must not disappear unnoticed.`

func newCompareCmd() *cobra.Command {
	opts := results.DefaultCompareOptions
	thresholdPct := opts.Threshold * 100
	var format, output string
	var failOnMissing bool
	onUnclear := results.UnclearWarns
	cmd := &cobra.Command{
		Use:   "compare BASE NEW | BASE... -- NEW...",
		Short: "Compare two result files and fail on a significant regression",
		Long:  compareLong,
		Args:  compareArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkGate(thresholdPct, onUnclear, format); err != nil {
				return err
			}
			if opts.Alpha <= 0 || opts.Alpha >= 1 {
				return usageError{fmt.Errorf("--alpha %g is outside (0, 1)", opts.Alpha)}
			}
			if opts.Relative && opts.OwnTimes {
				return usageError{fmt.Errorf("--relative and --own-times say opposite things: give one")}
			}
			opts.Threshold = thresholdPct / 100
			basePaths, newPaths := args[:1], args[1:]
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				basePaths, newPaths = args[:dash], args[dash:]
			}
			// The output is opened before the files are read, and written
			// whatever the verdict.
			out, err := openOutput(cmd, output, inputs("a file compared", args...)...)
			if err != nil {
				return err
			}
			rep, err := compareFiles(basePaths, newPaths, opts)
			rep.OnUnclear = onUnclear
			if err == nil {
				err = writeCompare(out, format, rep, terminalWidth(out))
			}
			if err := out.finish(err); err != nil {
				return err
			}
			if verbose(cmd) { // what benchmath warned of each row
				for _, r := range rep.Rows {
					for _, warn := range r.Warn {
						fmt.Fprintf(cmd.ErrOrStderr(), "vkbench: %s: %s\n", r.Name, warn)
					}
				}
			}
			warnUnclear(cmd, "compare", rep.OnUnclear, compareTable(rep))
			if f := rep.Failures(failOnMissing); f != "" {
				return errFailed(f)
			}
			if rep.Unjudged > 0 {
				return usageError{fmt.Errorf("%s could not be judged: %s", plural(rep.Unjudged, "benchmark", "benchmarks"), firstUnjudged(rep))}
			}
			return nil
		},
	}
	floatVar(cmd.Flags(), &thresholdPct, "threshold", thresholdPct, "smallest slowdown of the median that counts, in percent (as ab's and --precision)")
	floatVar(cmd.Flags(), &opts.Alpha, "alpha", opts.Alpha, "significance level over all the benchmarks compared (each p-value adjusted by Holm's method)")
	cmd.Flags().StringVar(&format, "format", "table", "output: table, json or junit")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the output to this file instead of standard output")
	cmd.Flags().BoolVar(&opts.Relative, "relative", false, "judge each benchmark's rounds relative to the probe's in the same rounds and net of it (where both files measured it), even where the probe does not steady them")
	cmd.Flags().BoolVar(&opts.OwnTimes, "own-times", false, "judge each benchmark by its own times alone, not relative to the probe as well")
	cmd.Flags().BoolVar(&failOnMissing, "fail-on-missing", false, "exit 1 also when a benchmark is in one file only, or not measured in one")
	onUnclearFlag(cmd.Flags(), &onUnclear, "a benchmark judged the same whose rounds could not have shown a --threshold slowdown, or not run in a file,")
	return cmd
}

// compareFiles reads and compares the files of each side. Files that
// cannot be read, of other devices or modes, too few rounds to judge any
// benchmark, or no benchmark measured in both, are bad input.
func compareFiles(basePaths, newPaths []string, opts results.CompareOptions) (results.Report, error) {
	base, err := readMerged(basePaths)
	if err != nil {
		return results.Report{}, usageError{err}
	}
	cur, err := readMerged(newPaths)
	if err != nil {
		return results.Report{}, usageError{err}
	}
	// Another driver on the same device is one of the changes compare
	// judges; another device, mode, objective or seed is not.
	if b, n := results.Unalike(base, cur); b != "" {
		return results.Report{}, usageError{fmt.Errorf("base ran %s, new %s: compare judges two runs measured alike (one kind of device, one mode, objective and seed), where a difference is the kernels' or the driver's; measure both sides alike", b, n)}
	}
	rep := results.Compare(base, cur, opts)
	rep.Base, rep.New = basePaths, newPaths
	switch {
	case rep.Unjudged > 0 && rep.Judged == 0:
		return rep, usageError{fmt.Errorf("cannot judge significance: %s", firstUnjudged(rep))}
	case rep.Judged == 0 && rep.Regressions == 0:
		return rep, usageError{fmt.Errorf("nothing to compare: no benchmark was measured in both files (%s); compare judges two runs of the same benchmarks (operation, type, size, candidate)", unmatched(rep))}
	}
	return rep, nil
}

// unmatched says, for a comparison with nothing in both files, how many
// benchmarks each side has alone and names one of each.
func unmatched(rep results.Report) string {
	_, byVerdict := groupBy(rep.Rows, func(r results.Row) string { return string(r.Verdict) })
	var parts []string
	for _, v := range []results.Verdict{results.OnlyBase, results.OnlyNew, results.NotMeasured, results.Unclear} {
		if rows := byVerdict[string(v)]; len(rows) > 0 {
			where := map[results.Verdict]string{results.OnlyBase: "in base only", results.OnlyNew: "in new only", results.NotMeasured: "not measured in one", results.Unclear: "not run in one"}[v]
			parts = append(parts, fmt.Sprintf("%d %s, such as %s", len(rows), where, rows[0].Name))
		}
	}
	return strings.Join(parts, "; ")
}

// writeCompare writes rep in format: JSON; JUnit, a case per benchmark
// (gateTable.cases says which fail and which are skipped), with the notes
// as the suite's output; or a table, a row per benchmark, then the
// summary and the notes that say how far to trust it, in lines of width.
func writeCompare(w io.Writer, format string, rep results.Report, width tableWidth) error {
	switch format {
	case "json":
		return writeJSON(w, rep)
	case "junit":
		return writeJUnit(w, "compare", 0, compareNotes(rep), compareTable(rep).cases(rep.OnUnclear))
	}
	var b strings.Builder
	compareTable(rep).write(&b, width)
	b.WriteByte('\n')
	wrapAt(&b, width.lineWidth(), "", strings.Split(compareNotes(rep), "\n")...)
	_, err := io.WriteString(w, b.String())
	return err
}

// compareTable is a row per benchmark: its medians, their change, its
// change relative to the probe (where the files have one), its p-value
// and rounds.
func compareTable(rep results.Report) gateTable {
	t := gateTable{head: []string{"base", "new", "delta", "vs probe", "p", "rounds"}}
	for _, r := range rep.Rows {
		p, rounds := fmtP(r)
		note := status.TextForPeople(r.Note) // as run says an error; the JSON keeps it whole
		g := gateRow{name: r.Name, cells: []string{report.Seconds(r.BaseMedian), report.Seconds(r.NewMedian), fmtDelta(r.Delta), fmtRelative(r), p, rounds}, verdict: string(r.Verdict), note: note}
		threshold := 100 * rep.Options.Threshold
		switch v := r.Verdict; {
		case v == results.Slower && r.RelativeDelta != nil:
			g.failure = fmt.Sprintf("slower by %s relative to the probe, %s by its own times (p=%.3g)", fmtRelative(r), fmtDelta(r.Delta), r.P)
		case v == results.Slower:
			g.failure = fmt.Sprintf("slower by %s (p=%.3g)", fmtDelta(r.Delta), r.P)
		case v.Fails():
			g.failure = verdictText(v, note)
		case v == results.Unclear: // not run in a file
			g.unclear, g.undecided = verdictText(v, note), note
		case v == results.OnlyBase, v == results.OnlyNew, v == results.NotMeasured, v == results.Unjudged:
			g.skipped = verdictText(v, note)
		case r.Undecided(rep.Options.Threshold):
			// Not shown slower, but a slowdown past the threshold could
			// not have shown: CI must not see a plain pass.
			// Its verdict is ab's word for what a gate could not decide.
			g.verdict = string(results.Unclear)
			g.unclear = withNote(fmt.Sprintf("%s: %s; a %.1f%% regression may have passed", results.Unclear, detectableText(r.Detectable), threshold), report.OneLine(note, 300))
			g.undecided = fmt.Sprintf("a slowdown of %.1f%% could not be ruled out: %s (%s rounds)", threshold, detectableText(r.Detectable), rounds)
		}
		t.rows = append(t.rows, g)
	}
	if rep.Probe == "" { // no probe: no column of changes relative to it
		t.head = slices.Delete(t.head, 3, 4)
		for i := range t.rows {
			t.rows[i].cells = slices.Delete(t.rows[i].cells, 3, 4)
		}
	}
	return t
}

// compareNotes is the summary of a comparison and the notes that say how
// far to trust it, a line each: under the table, and in JUnit's suite.
func compareNotes(rep results.Report) string {
	var b strings.Builder
	if rep.Probe != "" {
		fmt.Fprintf(&b, "base, new: median time per run (the median of the rounds' medians); delta: new/base - 1 of those; vs probe: the change relative to the probe, round by round (its p and verdict are about that change too)\n")
	}
	// A regression is a slowdown unless said otherwise: the rows that
	// computed a wrong result or failed are counted apart, and so are
	// those that could not be decided, as the gate's last line counts them.
	var wrong, broke int
	for _, r := range rep.Rows {
		switch r.Verdict {
		case results.Miscomputed:
			wrong++
		case results.Broke:
			broke++
		}
	}
	kinds := slices.Concat(counted(wrong, "wrong"), counted(broke, "failed where the base ran"))
	if len(kinds) > 0 {
		kinds[0] = strings.Replace(kinds[0], " ", " of them ", 1)
	}
	judged := fmt.Sprintf("slower by more than %.1f%%, significant at alpha %.3g over the rounds' medians of %s, p adjusted by Holm's method",
		rep.Options.Threshold*100, rep.Options.Alpha, plural(rep.Judged, "benchmark", "benchmarks"))
	if rep.Judged == 0 { // only failures: "over the rounds' medians of 0 benchmarks" said nothing
		judged = "none slower: nothing was measured in both files"
	}
	if len(kinds) > 0 {
		judged += "; " + sentence(kinds)
	}
	// The regressions are counted always: the verdict stands on them.
	counts := slices.Concat([]string{fmt.Sprintf("%s (%s)", plural(rep.Regressions, "regression", "regressions"), judged)},
		counted(rep.Missing, "missing or not measured"), counted(rep.Unjudged, "with too few rounds to judge"), counted(rep.Unclear, "unclear"))
	fmt.Fprintln(&b, sentence(counts))
	switch {
	case rep.Options.Relative && rep.Probe != "":
		fmt.Fprintf(&b, "probe %s: %s in new; each benchmark judged relative to it and net of it, round by round (--relative)\n", rep.Probe, fmtDelta(rep.ProbeShift))
	case rep.Options.OwnTimes && rep.Probe != "":
		fmt.Fprintf(&b, "probe %s: %s in new; each benchmark judged by its own times alone (--own-times)\n", rep.Probe, fmtDelta(rep.ProbeShift))
		if math.Abs(rep.ProbeShift) > rep.Options.Threshold {
			fmt.Fprintf(&b, "note: the probe moved past the threshold: the machine's speed may have differed between the runs, and the verdicts above include that; vkbench ab measures both versions in one run and is not misled so\n")
		}
	case rep.RelativeRows > 0:
		fmt.Fprintf(&b, "probe %s: %s in new; %d of %s judged relative to it alone, round by round, where it steadied their rounds (variance %s of their own); the others by their own times too; all net of it as well, slower only where every way is (--own-times: all by their own times)\n",
			rep.Probe, fmtDelta(rep.ProbeShift), rep.RelativeRows, plural(len(rep.Rows), "benchmark", "benchmarks"), steadied(rep, true))
	case rep.Probe != "" && steadied(rep, false) == "unknown":
		// No row to weigh it against: "variance unknown of their own"
		// said nothing.
		fmt.Fprintf(&b, "probe %s: %s in new; no benchmark measured in both files had rounds to set against its, so none was judged relative to it\n", rep.Probe, fmtDelta(rep.ProbeShift))
	case rep.Probe != "":
		fmt.Fprintf(&b, "probe %s: %s in new; it steadied no benchmark's rounds (relative to it their variance would be %s of their own, the median; Pitman-Morgan test at %.2g), so each was judged by its own times, relative to it and net of it, slower only where all are (--own-times, --relative: one way)\n",
			rep.Probe, fmtDelta(rep.ProbeShift), steadied(rep, false), results.ProbeAlpha)
		if math.Abs(rep.ProbeShift) > rep.Options.Threshold {
			fmt.Fprintf(&b, "note: the probe moved past the threshold: the machine's speed may have differed between the runs, and a kernel's change within that cannot be told from the machine's; vkbench ab measures both versions in one run and is not misled so\n")
		}
	case rep.ProbeNote != "":
		fmt.Fprintf(&b, "note: %s\n", rep.ProbeNote)
	}
	if und := rep.Undecided(); len(und) > 0 {
		ds := make([]float64, len(und))
		for i, r := range und {
			ds[i] = r.Detectable
		}
		slices.Sort(ds)
		gate := "--on-unclear fail fails the gate there"
		if rep.OnUnclear == results.UnclearFails {
			gate = "they fail the gate (--on-unclear fail)"
		}
		fmt.Fprintf(&b, "note: %d of %s: %s (the median over those): a %.1f%% regression may have passed there; measure more rounds (--count), on a quieter machine, or gate with vkbench ab; %s\n",
			len(und), plural(rep.Judged, "benchmark", "benchmarks"), detectableText(ds[len(ds)/2]), 100*rep.Options.Threshold, gate)
	}
	if rep.Together {
		fmt.Fprintf(&b, "note: every benchmark moved the same way (median %s): a device that ran at another speed during one run (clocks, heat, other work on it) looks the same; vkbench ab measures both versions in one run, alternately, and is not misled so\n", fmtDelta(rep.Shift))
	}
	return b.String()
}

// detectableText says how large a change the rounds' spread let show.
func detectableText(d float64) string {
	return fmt.Sprintf("with these rounds' spread only a change of about %.1f%% or more could show", 100*d)
}

// steadied is the median, over the benchmarks judged relative to the
// probe (or all, unless relativeOnly), of their variance relative to it
// over their own, in words.
func steadied(rep results.Report, relativeOnly bool) string {
	var vs []float64
	for _, r := range rep.Rows {
		if (r.Relative || !relativeOnly) && r.ProbeVariance > 0 {
			vs = append(vs, r.ProbeVariance)
		}
	}
	if len(vs) == 0 {
		return "unknown"
	}
	slices.Sort(vs)
	return fmt.Sprintf("×%.2f", vs[len(vs)/2])
}

// fmtRelative is a row's change relative to the probe, or "-".
func fmtRelative(r results.Row) string {
	if r.RelativeDelta == nil {
		return "-"
	}
	return fmtDelta(*r.RelativeDelta)
}

// firstUnjudged is the note of the first row that could not be judged:
// how many rounds there were, and what to do.
func firstUnjudged(rep results.Report) string {
	for _, r := range rep.Rows {
		if r.Verdict == results.Unjudged {
			return r.Note
		}
	}
	return ""
}

func fmtDelta(d float64) string {
	if math.IsNaN(d) {
		return "-"
	}
	return fmt.Sprintf("%+.2f%%", d*100)
}

// fmtP is a row's p-value and the rounds it was judged by, base+new; "-"
// where it was not judged.
func fmtP(r results.Row) (p, rounds string) {
	switch {
	case math.IsNaN(r.P):
		return "-", "-"
	case r.P < 0.001:
		p = "<0.001"
	default:
		p = fmt.Sprintf("%.3f", r.P)
	}
	return p, fmt.Sprintf("%d+%d", r.N1, r.N2)
}

// compareArgs accepts BASE NEW, or BASE... -- NEW... with at least one
// file on each side of the "--".
func compareArgs(cmd *cobra.Command, args []string) error {
	dash := cmd.ArgsLenAtDash()
	switch {
	case dash < 0 && len(args) != 2:
		return usageError{fmt.Errorf("compare takes BASE NEW, or BASE... -- NEW... (several runs a side); got %d argument(s) (see %s --help)", len(args), cmd.CommandPath())}
	case dash >= 0 && (dash == 0 || dash == len(args)):
		return usageError{fmt.Errorf("compare BASE... -- NEW... needs a file on each side of --; got %d before it and %d after (see %s --help)", dash, len(args)-dash, cmd.CommandPath())}
	}
	return nil
}

// readMerged reads results files, the runs of one side, and merges their
// rounds (results.Merge).
func readMerged(paths []string) (*results.File, error) {
	var files []*results.File
	for _, p := range paths {
		f, err := results.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if len(f.Benchmarks) == 0 { // as a Go benchmark file with none is refused
			return nil, status.Newf(status.InvalidArgument, "in %s: results: no benchmarks found (its list of benchmarks is empty)", p)
		}
		files = append(files, f)
	}
	f, err := results.Merge(files...)
	if err != nil {
		return nil, status.Annotatef(err, "merging %s", strings.Join(paths, ", "))
	}
	return f, nil
}

// argsWhere refuses, as bad usage that msg says, a number of arguments
// that ok refuses.
func argsWhere(ok func(n int) bool, msg string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if !ok(len(args)) {
			return usageError{errors.New(msg)}
		}
		return nil
	}
}

// exactArgs is cobra.ExactArgs with an error that counts as bad usage.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			want := map[int]string{0: "no arguments", 1: "1 argument"}[n]
			return usageError{fmt.Errorf("%s takes %s, got %d: %q (see %s --help)", cmd.Name(), cmp.Or(want, fmt.Sprint(n, " arguments")), len(args), args, cmd.CommandPath())}
		}
		return nil
	}
}
