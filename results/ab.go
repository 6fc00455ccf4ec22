package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/vkbench/vkbench/stats"
)

// ABSchema names the version of ab's report (ABReport).
const ABSchema = "vkbench.ab/v1"

// The verdicts of a paired comparison (ab: both versions measured side by
// side in one run) beside Compare's Slower, Faster and NotMeasured, which
// it shares. Measured together, ab also sees what NEW computed and whether
// it ran where OLD did.
const (
	// Within is a ratio whose whole interval lies within ±threshold:
	// shown to be the same.
	Within Verdict = "same"
	// Unclear is a ratio whose interval reaches past ±threshold on one
	// side without lying past it: more rounds would tell.
	Unclear Verdict = "unclear"
	// Miscomputed is a NEW candidate whose result was wrong.
	Miscomputed Verdict = "wrong"
	// Broke is a NEW candidate that failed to build or run where the
	// base ran.
	Broke Verdict = "failed"
	// OnlyOld and OnlyNew are candidates of one version only.
	OnlyOld     Verdict = "only in old"
	OnlyInNew   Verdict = "only in new"
	NotVerified Verdict = "not verified"
)

// Fails reports whether v fails a gate: NEW slower past the threshold,
// or NEW computing a wrong result or failing where the base ran. The one
// rule of what a regression is, for Compare and ab alike.
func (v Verdict) Fails() bool { return v == Slower || v == Miscomputed || v == Broke }

// ABRound is one round of a pair: each version's median time per run,
// and the round's ratio NEW/OLD: the median of the ratios of the samples
// taken in the same pass (one of each, next to each other in time), so
// that what changes from one pass to the next cancels.
type ABRound struct {
	Old   float64 `json:"old_median_s"`
	New   float64 `json:"new_median_s"`
	Ratio float64 `json:"ratio"`
}

// ABRow is one candidate of both versions.
type ABRow struct {
	Name      string `json:"name"`
	Op        string `json:"op"`
	Candidate string `json:"candidate"`
	// OldMedian and NewMedian are the medians of the rounds' medians.
	OldMedian float64 `json:"old_median_s,omitempty"`
	NewMedian float64 `json:"new_median_s,omitempty"`
	// Ratio is NEW/OLD, the geometric mean of the rounds' ratios, with
	// its 95% interval [Lo, Hi] (a t interval over their logarithms: the
	// rounds' variation, not the samples').
	Ratio   float64   `json:"ratio,omitempty"`
	Lo      float64   `json:"ratio_lo,omitempty"`
	Hi      float64   `json:"ratio_hi,omitempty"`
	Rounds  []ABRound `json:"rounds,omitempty"`
	Verdict Verdict   `json:"verdict"`
	// Verified says that NEW's results were checked against OLD's.
	Verified bool   `json:"verified"`
	Note     string `json:"note,omitempty"`
}

// ABReport is what ab found: a row per candidate of the operations both
// versions have.
type ABReport struct {
	Schema  string    `json:"schema"`
	Version string    `json:"vkbench_version"`
	Time    time.Time `json:"time"`
	Old     string    `json:"old"`
	New     string    `json:"new"`
	Device  Device    `json:"device"`
	Mode    string    `json:"mode"`
	Seed    uint64    `json:"seed"`
	Rounds  int       `json:"rounds"`
	// Conditions says where the GPU's conditions were read from, or why
	// they were not ("not available: ...").
	Conditions string  `json:"conditions,omitempty"`
	Threshold  float64 `json:"threshold"`
	Confidence float64 `json:"confidence"`
	Rows       []ABRow `json:"pairs"`
	// Counts of the verdicts that fail the gate, and of the others that
	// say something was not compared.
	Slower   int `json:"slower"`
	Wrong    int `json:"wrong"`
	Failed   int `json:"failed"`
	Unclear  int `json:"unclear"`
	Unpaired int `json:"unpaired"`
}

// AddPair adds the row of candidate cand of operation op (named name),
// judged from OLD's benchmark and NEW's, measured side by side.
// verifies says that the operation checks its results at all; without
// it NEW was not verified against OLD either.
func (r *ABReport) AddPair(name, op, cand string, old, cur Benchmark, verifies bool) {
	row := ABRow{Name: name, Op: op, Candidate: cand}
	judgePair(&row, old, cur, r.Threshold)
	if note := conditionsNote("old", "new", old, cur); note != "" {
		row.Note = strings.TrimPrefix(row.Note+"; "+note, "; ")
	}
	row.Verified = row.Verdict != Miscomputed && row.Verdict != NotMeasured && row.Verdict != Broke && verifies
	if !verifies {
		row.Note = strings.TrimPrefix(row.Note+"; "+string(NotVerified)+" (\"verify\": \"none\")", "; ")
	}
	r.Rows = append(r.Rows, row)
}

// AddUnpaired adds the row of a candidate that only one version has.
func (r *ABReport) AddUnpaired(name, op, cand string, v Verdict) {
	r.Rows = append(r.Rows, ABRow{Name: name, Op: op, Candidate: cand, Verdict: v})
}

// judgePair gives row its numbers and verdict from the results of OLD's
// candidate and NEW's.
func judgePair(row *ABRow, old, cur Benchmark, threshold float64) {
	if v, note := brokenNew(old.Ran(), cur); v != "" {
		row.Verdict, row.Note = v, note
		return
	}
	switch {
	case !old.Ran():
		row.Verdict, row.Note = NotMeasured, fmt.Sprintf("old %s: %s", old.Outcome, old.Error)
		return
	case !cur.Ran():
		row.Verdict, row.Note = NotMeasured, fmt.Sprintf("new %s: %s", cur.Outcome, cur.Error)
		return
	}
	var logs, olds, news []float64
	for k := range min(len(old.Rounds), len(cur.Rounds)) {
		o, n := old.Rounds[k].Median, cur.Rounds[k].Median
		q := roundRatio(old.Rounds[k], cur.Rounds[k])
		if o <= 0 || n <= 0 || !(q > 0) || math.IsInf(q, 0) {
			continue
		}
		row.Rounds = append(row.Rounds, ABRound{Old: o, New: n, Ratio: q})
		logs, olds, news = append(logs, math.Log(q)), append(olds, o), append(news, n)
	}
	if len(logs) < 2 {
		row.Verdict, row.Note = Unclear, fmt.Sprintf("%d round(s) measured both: too few for an interval", len(logs))
		return
	}
	th := benchmath.DefaultThresholds
	row.OldMedian, row.NewMedian = median(olds), median(news)
	sum := benchmath.AssumeNormal.Summary(benchmath.NewSample(logs, &th), stats.Confidence)
	row.Ratio, row.Lo, row.Hi = math.Exp(sum.Center), math.Exp(sum.Lo), math.Exp(sum.Hi)
	t := threshold
	switch {
	case row.Lo > 1+t:
		row.Verdict = Slower
		row.Note = fmt.Sprintf("slower by %s to %s, past %.1f%%", pct(row.Lo), pct(row.Hi), t*100)
	case row.Hi < 1-t:
		row.Verdict = Faster
		row.Note = fmt.Sprintf("faster by %s to %s", pct(1/row.Hi), pct(1/row.Lo))
	case row.Lo >= 1-t && row.Hi <= 1+t:
		row.Verdict = Within
		row.Note = fmt.Sprintf("within ±%.1f%%", t*100)
	default:
		row.Verdict = Unclear
		row.Note = fmt.Sprintf("the interval reaches past ±%.1f%%: not shown slower; more rounds (--count) would narrow it", t*100)
	}
}

// brokenNew is the verdict on a NEW benchmark that broke, whatever the
// times: Miscomputed where it computed a wrong result, Broke where it
// failed to build or run and the base ran (baseRan); "" otherwise. One
// rule for Compare and ab: a candidate the device does not support is not
// measured, not broken (a comparison across devices sees those).
func brokenNew(baseRan bool, cur Benchmark) (Verdict, string) {
	switch {
	case cur.Outcome == Wrong:
		return Miscomputed, "new: " + cur.Error
	case baseRan && cur.Outcome == Failed:
		return Broke, "new failed where the base ran: " + cur.Error
	}
	return "", ""
}

// roundRatio is the ratio of one round: the median of the per-pass ratios
// when both have a sample of every pass, else the ratio of the medians.
func roundRatio(old, cur stats.Stats) float64 {
	if len(old.Samples) == 0 || len(old.Samples) != len(cur.Samples) {
		return cur.Median / old.Median
	}
	rs := make([]float64, len(old.Samples))
	for j := range rs {
		rs[j] = cur.Samples[j] / old.Samples[j]
	}
	slices.Sort(rs)
	if n := len(rs); n%2 == 0 {
		return (rs[n/2-1] + rs[n/2]) / 2
	}
	return rs[len(rs)/2]
}

// pct writes a ratio above 1 as the percentage it exceeds 1 by.
func pct(ratio float64) string { return fmt.Sprintf("%.1f%%", (ratio-1)*100) }

// Finish counts the verdicts.
func (r *ABReport) Finish() {
	for _, row := range r.Rows {
		switch row.Verdict {
		case Slower:
			r.Slower++
		case Miscomputed:
			r.Wrong++
		case Broke:
			r.Failed++
		case Unclear:
			r.Unclear++
		case NotMeasured, OnlyOld, OnlyInNew:
			r.Unpaired++
		}
	}
}

// Failures says, in words, what fails the gate: the pairs NEW is slower
// in, computed wrong in, or failed in where OLD ran; "" when none.
func (r *ABReport) Failures() string {
	var parts []string
	if r.Slower > 0 {
		parts = append(parts, fmt.Sprintf("%d slower than OLD by more than %.1f%%", r.Slower, r.Threshold*100))
	}
	if r.Wrong > 0 {
		parts = append(parts, fmt.Sprintf("%d computed a wrong result", r.Wrong))
	}
	if r.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed where OLD ran", r.Failed))
	}
	return strings.Join(parts, ", ")
}
