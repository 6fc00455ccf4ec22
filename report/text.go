package report

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// The words of numbers, shared by the charts, the page's tables and the
// command's tables, so that a median reads the same everywhere.

// Seconds writes a time in the unit a reader would choose: 1.5ns,
// 12.34µs, 0.125ms, 2.000s; "-" for no time.
func Seconds(s float64) string {
	if s == 0 || math.IsNaN(s) {
		return "-"
	}
	scale, unit := timeUnit(s)
	decimals := map[string]int{"ns": 1, "µs": 2, "ms": 3, "s": 3}[unit]
	return fmt.Sprintf("%.*f%s", decimals, s*scale, unit)
}

// Interval is the 95% interval of s's median as [lo, hi], or "-" where s
// has too few samples for one.
func Interval(s stats.Stats) string {
	if !s.HasInterval() {
		return "-"
	}
	return fmt.Sprintf("[%s, %s]", Seconds(s.Lo), Seconds(s.Hi))
}

// Rate writes a rate with format, or "-" where it is 0: not measured.
// (A percentage of peak is PeakText's to write.)
func Rate(format string, v float64) string {
	if v > 0 {
		return fmt.Sprintf(format, v)
	}
	return "-"
}

// Reason is a candidate's error as a row of a table or a chart shows it:
// without what leads the message and the row says already or does not
// need, so that what went wrong fits the row. Status codes, package
// names, the candidate's own name and a manifest's place (its file, line
// and JSON path) go: "UNIMPLEMENTED: kernels: gemm-x: needs 33 KiB" is
// "needs 33 KiB", "UNIMPLEMENTED: manifest: k.json:148:21:
// operations[4].candidates[1].assert[0]: the device … fails …" is "the
// device … fails …"; further in, the codes go too, as
// status.TextForPeople says an error to a person. The results file keeps
// the whole message.
func Reason(msg, cand string) string {
	msg = status.TextForPeople(msg)
	for {
		head, rest, ok := strings.Cut(msg, ": ")
		// A source's place with its line ("k.glsl:3") is what is wrong.
		word := !strings.ContainsAny(head, " ,:") && (head == strings.ToUpper(head) || head == strings.ToLower(head))
		if !ok || (head != cand && !word && !place.MatchString(head)) {
			return msg
		}
		msg = rest
	}
}

// place is a manifest's place in an error, its file (any path) then line
// and column: "/tmp/My Kernels/k.json:148:21".
var place = regexp.MustCompile(`\.json:\d+:\d+$`)

// flagWords are the results' flags in words. The flags themselves are
// tokens that results files keep, for programs to read.
var flagWords = map[string]string{
	autotune.FlagAbovePeakBandwidth: "above the bandwidth peak",
	autotune.FlagAbovePeakFLOPs:     "above the compute peak",
	autotune.FlagTimerDidNotTick:    "the timer did not tick in a sample",
	autotune.FlagBudgetSpent:        "budget spent before the precision was reached",
	autotune.FlagMaxSamples:         "max samples taken before the precision was reached",
	autotune.FlagPeakOtherClock:     "peak measured at another clock",
	autotune.FlagRemeasured:         "measured again after the speed drifted",
	autotune.FlagDrift:              "speed drifted while measured",
	autotune.FlagNotVerified:        "not verified",
	autotune.FlagDeviceLost:         "no winner: the device was lost before every candidate was measured",
	telemetry.FlagThrottled:         "throttled while measured",
	telemetry.FlagClocksMoved:       "clocks moved while measured",
}

// FlagText says a result's flags in words, "; " between them, as the
// command's tables and the page show them: "budget spent before the
// precision was reached" for "budget-spent-before-target"; a flag it
// does not know, as it is.
func FlagText(flags ...string) string {
	words := make([]string, len(flags))
	for i, f := range flags {
		words[i] = cmp.Or(flagWords[f], f)
	}
	return strings.Join(words, "; ")
}

// OneLine is s on one line of at most n characters, cut with an
// ellipsis.
func OneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// CountReasons says, in a line, how many of bs ended in each of outcomes
// (where none is given: wrong, failed, not run, unsupported and compiled)
// and why, the commonest reason first: "31 unsupported: 30× needs
// cooperative matrices (VK_NV_cooperative_matrix ×14, ...), which the
// device lacks; 1× needs 48 KiB of shared memory, device has 32 KiB".
func CountReasons(bs []*results.Benchmark, outcomes ...results.Outcome) string {
	var parts []string
	for _, outcome := range []results.Outcome{results.Wrong, results.Failed, results.NotRun, results.Unsupported, results.Compiled} {
		if len(outcomes) > 0 && !slices.Contains(outcomes, outcome) {
			continue
		}
		var reasons []string
		for _, b := range bs {
			if b.Outcome == outcome {
				reasons = append(reasons, Reason(b.Error, b.Candidate))
			}
		}
		if len(reasons) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s: %s", len(reasons), outcome, reasonsText(reasons)))
		}
	}
	return strings.Join(parts, "; ")
}

// reasonsText counts reasons: "12× why; 2× why else". Reasons that
// differ only inside their parentheses are counted together, with what
// differs: "needs cooperative matrices (VK_NV_cooperative_matrix ×12,
// VK_KHR_cooperative_matrix ×3), which the device lacks".
func reasonsText(reasons []string) string {
	type frame struct{ pre, post string } // a reason around its parentheses
	var frames []frame
	mids := map[frame][]string{}
	for _, r := range reasons {
		f, mid := frame{r, ""}, ""
		if i := strings.Index(r, "("); i >= 0 {
			if j := strings.Index(r[i:], ")"); j > 0 {
				f, mid = frame{r[:i+1], r[i+j:]}, r[i+1:i+j]
			}
		}
		frames = append(frames, f)
		mids[f] = append(mids[f], mid)
	}
	order, n := byCount(frames)
	var parts []string
	for _, f := range order {
		distinct, times := byCount(mids[f])
		for i, mid := range distinct {
			if len(distinct) > 1 {
				distinct[i] += fmt.Sprintf(" ×%d", times[mid])
			}
		}
		parts = append(parts, fmt.Sprintf("%d× %s%s%s", n[f], f.pre, strings.Join(distinct, ", "), f.post))
	}
	return strings.Join(parts, "; ")
}

// byCount is the distinct values of xs, the commonest first (ties in the
// order first seen), and how many times each occurs.
func byCount[T comparable](xs []T) ([]T, map[T]int) {
	n := map[T]int{}
	var out []T
	for _, x := range xs {
		if n[x]++; n[x] == 1 {
			out = append(out, x)
		}
	}
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(n[b], n[a]) })
	return out, n
}
