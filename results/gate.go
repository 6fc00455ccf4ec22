package results

import (
	"fmt"
	"slices"
	"strings"
)

// Fails reports whether v fails a gate, Compare's or ab's: NEW slower
// past the threshold, computing a wrong result or failing where the base
// ran.
func (v Verdict) Fails() bool { return v == Slower || v == Miscomputed || v == Broke }

// The choices of what an undecided pair does to the gate
// (ABReport.OnUnclear, Report.OnUnclear): nothing, a warning, or a failure.
const (
	UnclearPasses = "pass"
	UnclearWarns  = "warn"
	UnclearFails  = "fail"
)

// Undecided says of an unclear pair how large a slowdown could not be
// ruled out, and after how many rounds; of one without rounds, why.
func (row ABRow) Undecided() string {
	if len(row.Rounds) == 0 {
		return row.Note
	}
	return fmt.Sprintf("%s after %s (%.0f s)", row.Note, plural(len(row.Rounds), "round"), row.Seconds)
}

// Failures says, in words, what fails the gate (Verdict.Fails, and the
// unclear pairs where OnUnclear is UnclearFails); "" when none.
func (r *ABReport) Failures() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(r.Slower, fmt.Sprintf("slower than OLD by more than %.1f%%", r.Threshold*100))
	add(r.Wrong, "computed a wrong result")
	add(r.Failed, "failed where OLD ran")
	if r.OnUnclear == UnclearFails {
		add(r.Unclear, "unclear (--on-unclear fail)")
	}
	return strings.Join(parts, ", ")
}

// Failures says, in words, what fails the gate: the benchmarks that
// regressed, with failOnMissing those missing or not measured in one
// file, and the unclear ones where OnUnclear is UnclearFails; "" when
// none.
func (rep Report) Failures(failOnMissing bool) string {
	var parts []string
	add := func(n int, what string) {
		switch {
		case n == 0:
		case len(parts) == 0: // the first count says what it counts
			parts = append(parts, plural(n, "benchmark")+" "+what)
		default:
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(rep.Regressions, "regressed")
	if failOnMissing {
		add(rep.Missing, "missing or not measured (--fail-on-missing)")
	}
	if rep.OnUnclear == UnclearFails {
		add(rep.Unclear, "unclear (--on-unclear fail)")
	}
	return strings.Join(parts, ", ")
}

// Undecided returns the rows that are Row.Undecided: there, passing the
// gate rules no regression out.
func (rep Report) Undecided() []Row {
	return slices.DeleteFunc(slices.Clone(rep.Rows), func(r Row) bool { return !r.Undecided(rep.Options.Threshold) })
}

// Undecided reports whether the row was judged the same while its rounds
// could not have shown a slowdown of threshold (Detectable past it).
func (r Row) Undecided(threshold float64) bool { return r.Verdict == Same && r.Detectable > threshold }
