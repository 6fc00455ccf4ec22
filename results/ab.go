package results

import (
	"fmt"
	"math"
	"time"

	"github.com/vkbench/vkbench/stats"
)

// ABSchema names the version of ab's report (ABReport).
const ABSchema = "vkbench.ab/v2"

// The verdicts of a paired comparison (ab: both versions measured side by
// side in one run) beside Compare's Slower, Faster and NotMeasured.
const (
	// Within is a ratio whose whole interval lies within ±threshold:
	// shown to be the same.
	Within Verdict = "same"
	// NotSlower is a ratio whose interval lies below 1 + threshold but
	// reaches below 1 − threshold: not slower, perhaps faster.
	NotSlower Verdict = "not slower"
	// Unclear is a ratio whose interval reaches past 1 + threshold
	// without lying past it: more rounds would tell. Also Compare's and
	// ab's verdict on a candidate not run in one file or version (NotRun).
	Unclear Verdict = "unclear"
	// Miscomputed is a NEW candidate whose result was wrong.
	Miscomputed Verdict = "wrong"
	// Broke is a NEW candidate that failed to build or run where the
	// base ran.
	Broke Verdict = "failed"
	// OnlyOld and OnlyInNew are candidates of one version only;
	// NotVerified is said of a pair whose results were not compared.
	OnlyOld     Verdict = "only in old"
	OnlyInNew   Verdict = "only in new"
	NotVerified Verdict = "not verified"
)

// ABRound is one round of a pair: each version's median time per run,
// and the round's ratio NEW/OLD (roundRatio).
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
	// Ratio is NEW/OLD, the median of the rounds' ratios, and [Lo, Hi]
	// the bounds of its 95% confidence sequence (MedianBounds), 0 with
	// fewer than MinSequentialRounds.
	Ratio   float64   `json:"ratio,omitempty"`
	Lo      float64   `json:"ratio_lo,omitempty"`
	Hi      float64   `json:"ratio_hi,omitempty"`
	Rounds  []ABRound `json:"rounds,omitempty"`
	Verdict Verdict   `json:"verdict"`
	// Seconds is how long the pair's operation was measured, every round
	// of it until its pairs were decided (shared by its candidates).
	Seconds float64 `json:"seconds,omitempty"`
	// Verified says that NEW's results were checked against OLD's.
	Verified bool   `json:"verified"`
	Note     string `json:"note,omitempty"`
}

// HasBounds reports whether r has both bounds of its ratio's interval,
// each above 0 and finite.
func (r ABRow) HasBounds() bool { return r.Lo > 0 && r.Hi > 0 && !math.IsInf(r.Hi, 0) }

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
	// Rounds is the most rounds a pair was measured in; MinRounds
	// (--count), MaxTime (--max-time, in seconds, 0 for none) and
	// OnUnclear (UnclearPasses, ...) are ab's flags.
	Rounds    int     `json:"rounds"`
	MinRounds int     `json:"min_rounds"`
	MaxTime   float64 `json:"max_time_s"`
	OnUnclear string  `json:"on_unclear"`
	// Seconds is how long the measurement took, every pair.
	Seconds float64 `json:"seconds"`
	// Conditions is as File's.
	Conditions string  `json:"conditions,omitempty"`
	Threshold  float64 `json:"threshold"`
	Confidence float64 `json:"confidence"`
	Rows       []ABRow `json:"pairs"`
	// Counts of the verdicts (Finish).
	Slower   int `json:"slower"`
	Wrong    int `json:"wrong"`
	Failed   int `json:"failed"`
	Unclear  int `json:"unclear"`
	Unpaired int `json:"unpaired"`
	// Unmeasured are the pairs not measured in one version or both;
	// Unpaired the candidates of one version only.
	Unmeasured int `json:"not_measured"`
}

// AddPair adds the row of candidate cand of operation op (named name),
// judged from OLD's benchmark and NEW's. verifies says that the operation
// checks its results at all; without it NEW was not verified either.
func (r *ABReport) AddPair(name, op, cand string, old, cur Benchmark, verifies bool) {
	row := ABRow{Name: name, Op: op, Candidate: cand}
	judgePair(&row, old, cur, r.Threshold)
	if note := conditionsNote("old", "new", old, cur); note != "" {
		addNote(&row.Note, note)
	}
	row.Verified = row.Verdict != Miscomputed && row.Verdict != NotMeasured && row.Verdict != Broke && verifies
	if !verifies {
		addNote(&row.Note, string(NotVerified)+" (\"verify\": \"none\")")
	}
	r.Rows = append(r.Rows, row)
}

// AddUnmeasured adds the row of candidate cand of operation op (named
// name) that neither version measured because the operation could not
// run (why): said once, as it concerns both.
func (r *ABReport) AddUnmeasured(name, op, cand, why string) {
	r.Rows = append(r.Rows, ABRow{Name: name, Op: op, Candidate: cand, Verdict: NotMeasured, Note: "the operation could not run: " + why})
}

// AddUnpaired adds the row of a candidate that only one version has.
func (r *ABReport) AddUnpaired(name, op, cand string, v Verdict) {
	r.Rows = append(r.Rows, ABRow{Name: name, Op: op, Candidate: cand, Verdict: v})
}

func judgePair(row *ABRow, old, cur Benchmark, threshold float64) {
	if v, note := brokenNew(old.Ran(), old, cur, "old"); v != "" {
		row.Verdict, row.Note = v, note
		return
	}
	if !old.Ran() || !cur.Ran() {
		row.Verdict, row.Note = NotMeasured, unmeasured(old, cur, !old.Ran(), !cur.Ran(), "old")
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
	if len(logs) == 0 {
		row.Verdict, row.Note = Unclear, "no round measured both"
		return
	}
	row.OldMedian, row.NewMedian = median(olds), median(news)
	row.Ratio = math.Exp(median(logs))
	lo, hi := MedianBounds(logs, stats.Confidence)
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		row.Verdict = Unclear
		row.Note = fmt.Sprintf("too few rounds for a %.0f%% bound (%d or more)", stats.Confidence*100, MinSequentialRounds)
		return
	}
	row.Lo, row.Hi = math.Exp(lo), math.Exp(hi)
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
	case row.Hi <= 1+t:
		row.Verdict = NotSlower
		row.Note = fmt.Sprintf("at most %s slower, within %.1f%%; perhaps faster", pct(max(row.Hi, 1)), t*100)
	default:
		row.Verdict = Unclear
		row.Note = fmt.Sprintf("a slowdown of up to %s could not be ruled out (threshold %.1f%%)", pct(row.Hi), t*100)
	}
}

// Decided reports whether v answers the gate's question, whether NEW is
// slower past the threshold: every verdict but Unclear does.
func (v Verdict) Decided() bool { return v != Unclear }

// brokenNew is the verdict on a NEW benchmark that broke, whatever the
// times: Miscomputed where it computed a wrong result, Broke where it
// failed and the base ran (baseRan); Unclear where either side was not
// run (NotRun), which says nothing of this candidate; "" otherwise. base
// names the base's side in the notes, as each command does ("base",
// "old"). One rule for Compare and ab: a candidate the
// device does not support is not measured, not broken.
func brokenNew(baseRan bool, b, cur Benchmark, base string) (Verdict, string) {
	switch {
	case cur.Outcome == NotRun:
		return Unclear, "not run in new: " + cur.Error
	case b.Outcome == NotRun:
		return Unclear, "not run in " + base + ": " + b.Error
	case cur.Outcome == Wrong:
		return Miscomputed, "new: " + cur.Error
	case baseRan && cur.Outcome == Failed:
		return Broke, "new failed where " + base + " ran: " + cur.Error
	}
	return "", ""
}

// unmeasured says what became of a benchmark without samples in base, in
// new, or in both: each such side's outcome and error, once where both
// say the same ("unsupported in base and new: needs 48 KiB ..."). One
// wording for Compare and ab, base naming the base's side ("base",
// "old").
func unmeasured(b, n Benchmark, inBase, inNew bool, base string) string {
	say := func(m Benchmark, side string) string {
		if m.Error == "" {
			return "no samples in " + side
		}
		return fmt.Sprintf("%s in %s: %s", m.Outcome, side, m.Error)
	}
	switch {
	case inBase && inNew && b.Outcome == n.Outcome && b.Error == n.Error:
		return say(b, base+" and new")
	case inBase && inNew:
		return say(b, base) + "; " + say(n, "new")
	case inBase:
		return say(b, base)
	}
	return say(n, "new")
}

// roundRatio is the ratio of one round: the median of the ratios of the
// samples taken in the same pass (next to each other in time, so that
// what changes from one pass to the next cancels) when both have a sample
// of every pass, else the ratio of the medians.
func roundRatio(old, cur stats.Stats) float64 {
	if len(old.Samples) == 0 || len(old.Samples) != len(cur.Samples) {
		return cur.Median / old.Median
	}
	rs := make([]float64, len(old.Samples))
	for j := range rs {
		rs[j] = cur.Samples[j] / old.Samples[j]
	}
	return median(rs)
}

// pct writes a ratio above 1 as the percentage it exceeds 1 by.
func pct(ratio float64) string { return fmt.Sprintf("%.1f%%", (ratio-1)*100) }

// Finish counts the verdicts.
func (r *ABReport) Finish() {
	count := map[Verdict]*int{Slower: &r.Slower, Miscomputed: &r.Wrong, Broke: &r.Failed, Unclear: &r.Unclear,
		NotMeasured: &r.Unmeasured, OnlyOld: &r.Unpaired, OnlyInNew: &r.Unpaired}
	for _, row := range r.Rows {
		if n := count[row.Verdict]; n != nil {
			*n++
		}
	}
}

// ParseAB reads an ab report (vkbench ab --format json), validated
// against its schema.
func ParseAB(data []byte) (*ABReport, error) {
	var r ABReport
	if _, err := decodeValid(data, &r, ABSchema); err != nil {
		return nil, err
	}
	return &r, nil
}
