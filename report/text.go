package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/vkbench/vkbench/stats"
)

// The words of numbers, shared by the charts, the page's tables and the
// command's tables, so that a median reads the same everywhere.

// Seconds writes a time in the unit a reader would choose: 1.5ns,
// 12.34µs, 0.125ms, 2.000s; "-" for no time.
func Seconds(s float64) string {
	switch {
	case s == 0 || math.IsNaN(s):
		return "-"
	case s < 1e-6:
		return fmt.Sprintf("%.1fns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.2fµs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.3fms", s*1e3)
	}
	return fmt.Sprintf("%.3fs", s)
}

// Interval is the 95% interval of s's median as [lo, hi], or "-" where s
// has too few samples for one.
func Interval(s stats.Stats) string {
	if !s.HasInterval() {
		return "-"
	}
	return fmt.Sprintf("[%s, %s]", Seconds(s.Lo), Seconds(s.Hi))
}

// Rate writes a rate (or a percentage of peak) with format, or "-" where
// it is 0: not measured, or no peak known.
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
// device … fails …". The results file keeps the whole message.
func Reason(msg, cand string) string {
	for {
		head, rest, ok := strings.Cut(msg, ": ")
		if !ok || (head != cand && strings.ContainsAny(head, " ,")) || (head != cand && head != strings.ToUpper(head) && head != strings.ToLower(head)) {
			return msg
		}
		msg = rest
	}
}

// OneLine is s on one line of at most n bytes, cut with an ellipsis.
func OneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		s = s[:n-1] + "…"
	}
	return s
}
