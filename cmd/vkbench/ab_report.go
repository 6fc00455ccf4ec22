package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// ABSchema names the version of ab's JSON report.
const ABSchema = "vkbench.ab/v1"

// The verdicts of ab.
const (
	abSlower   = "slower"
	abFaster   = "faster"
	abSame     = "same"
	abUnclear  = "unclear"
	abWrong    = "wrong"
	abFailed   = "failed"
	abNotRun   = "not measured"
	abOnlyOld  = "only in old"
	abOnlyNew  = "only in new"
	abNotCheck = "not verified"
)

// abRound is one round of a pair: each version's median time per run,
// and the round's ratio NEW/OLD: the median of the ratios of the samples
// taken in the same pass (one of each, next to each other in time), so
// that what changes from one pass to the next cancels.
type abRound struct {
	Old   float64 `json:"old_median_s"`
	New   float64 `json:"new_median_s"`
	Ratio float64 `json:"ratio"`
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

// abRow is one candidate of both versions.
type abRow struct {
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
	Rounds  []abRound `json:"rounds,omitempty"`
	Verdict string    `json:"verdict"`
	// Verified says that NEW's results were checked against OLD's.
	Verified bool   `json:"verified"`
	Note     string `json:"note,omitempty"`
}

// abReport is what ab found.
type abReport struct {
	Schema  string         `json:"schema"`
	Version string         `json:"vkbench_version"`
	Time    time.Time      `json:"time"`
	Old     string         `json:"old"`
	New     string         `json:"new"`
	Device  results.Device `json:"device"`
	Mode    string         `json:"mode"`
	Seed    uint64         `json:"seed"`
	Rounds  int            `json:"rounds"`
	// Conditions says where the GPU's conditions were read from, or why
	// they were not ("not available: ...").
	Conditions string  `json:"conditions,omitempty"`
	Threshold  float64 `json:"threshold"`
	Confidence float64 `json:"confidence"`
	Rows       []abRow `json:"pairs"`
	// Counts of the verdicts that fail the gate, and of the others that
	// say something was not compared.
	Slower   int `json:"slower"`
	Wrong    int `json:"wrong"`
	Failed   int `json:"failed"`
	Unclear  int `json:"unclear"`
	Unpaired int `json:"unpaired"`
}

func newABReport(oldPath, newPath string, info hal.DeviceInfo, opts autotune.Options, threshold float64) *abReport {
	return &abReport{Schema: ABSchema, Version: version, Time: time.Now().UTC(), Old: oldPath, New: newPath,
		Device: resultsDevice(info),
		Mode:   string(opts.Mode), Seed: opts.Seed, Rounds: opts.Rounds, Threshold: threshold, Confidence: stats.Confidence}
}

// add adds the rows of one paired operation, measured in e.
func (r *abReport) add(p abPair, e *autotune.Entry) {
	prefix := fmt.Sprintf("%s/%s/%s/", p.op.Name(), p.op.DType(), e.Shape)
	for i, name := range p.names {
		row := abRow{Name: prefix + name, Op: p.op.Name(), Candidate: name}
		r.judge(&row, e.Results[2*i], e.Results[2*i+1])
		if note := conditionsNote(e.Results[2*i], e.Results[2*i+1]); note != "" {
			row.Note = strings.TrimPrefix(row.Note+"; "+note, "; ")
		}
		row.Verified = row.Verdict != abWrong && row.Verdict != abNotRun && row.Verdict != abFailed && kernels.Verifies(p.op)
		if !kernels.Verifies(p.op) {
			row.Note = strings.TrimPrefix(row.Note+"; "+abNotCheck+" (\"verify\": \"none\")", "; ")
		}
		r.Rows = append(r.Rows, row)
	}
	for _, n := range p.onlyOld {
		r.Rows = append(r.Rows, abRow{Name: prefix + n, Op: p.op.Name(), Candidate: n, Verdict: abOnlyOld})
	}
	for _, n := range p.onlyNew {
		r.Rows = append(r.Rows, abRow{Name: prefix + n, Op: p.op.Name(), Candidate: n, Verdict: abOnlyNew})
	}
}

// judge gives row its numbers and verdict from the results of OLD's
// candidate and NEW's.
func (r *abReport) judge(row *abRow, old, cur results.Result) {
	measured := func(res results.Result) bool {
		return (res.Outcome == results.Measured || res.Outcome == results.Dropped) && res.Stats != nil
	}
	switch {
	case cur.Outcome == results.Wrong:
		row.Verdict, row.Note = abWrong, "new: "+report.OneLine(cur.Error, 300)
		return
	case !measured(old):
		row.Verdict, row.Note = abNotRun, fmt.Sprintf("old %s: %s", old.Outcome, report.OneLine(old.Error, 200))
		return
	case !measured(cur):
		// OLD ran and NEW did not: the change broke it.
		row.Verdict, row.Note = abFailed, fmt.Sprintf("new %s where old ran: %s", cur.Outcome, report.OneLine(cur.Error, 200))
		return
	}
	var logs, olds, news []float64
	for k := range min(len(old.Rounds), len(cur.Rounds)) {
		o, n := old.Rounds[k].Median, cur.Rounds[k].Median
		q := roundRatio(old.Rounds[k], cur.Rounds[k])
		if o <= 0 || n <= 0 || !(q > 0) || math.IsInf(q, 0) {
			continue
		}
		row.Rounds = append(row.Rounds, abRound{Old: o, New: n, Ratio: q})
		logs, olds, news = append(logs, math.Log(q)), append(olds, o), append(news, n)
	}
	th := benchmath.DefaultThresholds
	median := func(xs []float64) float64 {
		return benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Sorted(slices.Values(xs)), &th), stats.Confidence).Center
	}
	if len(logs) < 2 {
		row.Verdict, row.Note = abUnclear, fmt.Sprintf("%d round(s) measured both: too few for an interval", len(logs))
		return
	}
	row.OldMedian, row.NewMedian = median(olds), median(news)
	sum := benchmath.AssumeNormal.Summary(benchmath.NewSample(logs, &th), stats.Confidence)
	row.Ratio, row.Lo, row.Hi = math.Exp(sum.Center), math.Exp(sum.Lo), math.Exp(sum.Hi)
	t := r.Threshold
	switch {
	case row.Lo > 1+t:
		row.Verdict = abSlower
		row.Note = fmt.Sprintf("slower by %s to %s, past %.1f%%", pct(row.Lo), pct(row.Hi), t*100)
	case row.Hi < 1-t:
		row.Verdict = abFaster
		row.Note = fmt.Sprintf("faster by %s to %s", pct(1/row.Hi), pct(1/row.Lo))
	case row.Lo >= 1-t && row.Hi <= 1+t:
		row.Verdict = abSame
		row.Note = fmt.Sprintf("within ±%.1f%%", t*100)
	default:
		row.Verdict = abUnclear
		row.Note = fmt.Sprintf("the interval reaches past ±%.1f%%: not shown slower; more rounds (--count) would narrow it", t*100)
	}
}

// pct writes a ratio above 1 as the percentage it exceeds 1 by.
func pct(ratio float64) string { return fmt.Sprintf("%.1f%%", (ratio-1)*100) }

// finish counts the verdicts.
func (r *abReport) finish() {
	for _, row := range r.Rows {
		switch row.Verdict {
		case abSlower:
			r.Slower++
		case abWrong:
			r.Wrong++
		case abFailed:
			r.Failed++
		case abUnclear:
			r.Unclear++
		case abNotRun, abOnlyOld, abOnlyNew:
			r.Unpaired++
		}
	}
}

// err is the gate's verdict: exit status 1 when a pair is slower, or NEW
// computed wrong or failed where OLD ran.
func (r *abReport) err() error {
	if r.Slower+r.Wrong+r.Failed == 0 {
		return nil
	}
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
	return errRegressionText("ab: NEW: " + strings.Join(parts, ", "))
}

// errRegressionText is a regression (exit status 1) told in words.
type errRegressionText string

func (e errRegressionText) Error() string { return string(e) }

func writeAB(w io.Writer, format string, r *abReport) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	case "junit":
		return writeABJUnit(w, r)
	}
	fmt.Fprintf(w, "old %s, new %s\ndevice %d: %s (%s), %s mode, %d rounds\n\n", r.Old, r.New, r.Device.Index, r.Device.Name, r.Device.Driver, r.Mode, r.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\told\tnew\tnew/old\t95% interval\tverdict")
	for _, row := range r.Rows {
		ratio, ci := "-", "-"
		if row.Ratio > 0 {
			ratio = fmt.Sprintf("%.3f", row.Ratio)
			ci = fmt.Sprintf("[%.3f, %.3f]", row.Lo, row.Hi)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", row.Name, report.Seconds(row.OldMedian), report.Seconds(row.NewMedian), ratio, ci, abVerdictText(row))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d slower (the whole 95%% interval above +%.1f%%), %d wrong, %d failed, %d unclear, %d not paired\n",
		r.Slower, r.Threshold*100, r.Wrong, r.Failed, r.Unclear, r.Unpaired)
	return err
}

func abVerdictText(row abRow) string { return withNote(row.Verdict, row.Note) }

func writeABJUnit(w io.Writer, r *abReport) error {
	s := junitSuite{Name: "vkbench ab", Tests: len(r.Rows)}
	for _, row := range r.Rows {
		c := junitCase{Name: row.Name, Class: "vkbench.ab", Output: fmt.Sprintf("old %s, new %s, new/old %.3f [%.3f, %.3f]: %s",
			report.Seconds(row.OldMedian), report.Seconds(row.NewMedian), row.Ratio, row.Lo, row.Hi, abVerdictText(row))}
		switch row.Verdict {
		case abSlower, abWrong, abFailed:
			c.Failure = &junitMessage{Message: abVerdictText(row)}
			s.Failures++
		case abNotRun, abOnlyOld, abOnlyNew:
			c.Skipped = &junitMessage{Message: abVerdictText(row)}
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	return encodeJUnit(w, s)
}
