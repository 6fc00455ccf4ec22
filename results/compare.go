package results

import (
	"encoding/json"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// CompareOptions set when a change is a regression.
type CompareOptions struct {
	// Threshold is the smallest slowdown of the median that counts, as a
	// fraction (0.05 is 5%).
	Threshold float64 `json:"threshold"`
	// Alpha is the significance level of the Mann–Whitney U test.
	Alpha float64 `json:"alpha"`
}

// DefaultCompareOptions: 5% slower, at significance 0.05.
var DefaultCompareOptions = CompareOptions{Threshold: 0.05, Alpha: 0.05}

// Verdict is the outcome of comparing one benchmark.
type Verdict string

const (
	// Slower is a regression: slower by more than the threshold, and
	// significant.
	Slower Verdict = "slower"
	// Faster is an improvement past the threshold, and significant.
	Faster Verdict = "faster"
	// Same is no change that is both significant and past the threshold.
	Same Verdict = "~"
	// OnlyBase is a benchmark of the base file missing from the new one.
	OnlyBase Verdict = "missing in new"
	// OnlyNew is a benchmark of the new file missing from the base.
	OnlyNew Verdict = "missing in base"
	// NotMeasured is a benchmark without samples in one of the files (it
	// failed or was unsupported there).
	NotMeasured Verdict = "not measured"
)

// Row is the comparison of one benchmark.
type Row struct {
	Name       string  `json:"name"`
	BaseMedian float64 `json:"base_median_s,omitempty"`
	NewMedian  float64 `json:"new_median_s,omitempty"`
	// Delta is NewMedian/BaseMedian - 1: positive is slower.
	Delta   float64  `json:"delta"`
	P       float64  `json:"p"`
	N1      int      `json:"n_base"`
	N2      int      `json:"n_new"`
	Verdict Verdict  `json:"verdict"`
	Note    string   `json:"note,omitempty"`
	Warn    []string `json:"warnings,omitempty"`
}

// Report is the comparison of two files.
type Report struct {
	Options CompareOptions `json:"options"`
	Rows    []Row          `json:"rows"`
	// Regressions counts Slower rows; Missing counts rows present in only
	// one file or not measured in one.
	Regressions int `json:"regressions"`
	Missing     int `json:"missing"`
}

// Compare compares every benchmark of base with the one of the same name
// in cur. Benchmarks in only one file, or without samples in one, are
// reported, never ignored.
func Compare(base, cur *File, opts CompareOptions) Report {
	rep := Report{Options: opts}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = opts.Alpha
	for _, b := range base.Benchmarks {
		n, ok := cur.Lookup(b.Name)
		if !ok {
			rep.Rows = append(rep.Rows, Row{Name: b.Name, Verdict: OnlyBase, Delta: math.NaN(), P: math.NaN()})
			rep.Missing++
			continue
		}
		rep.Rows = append(rep.Rows, compareOne(b, *n, &th, opts))
		if r := rep.Rows[len(rep.Rows)-1]; r.Verdict == Slower {
			rep.Regressions++
		} else if r.Verdict == NotMeasured {
			rep.Missing++
		}
	}
	for _, n := range cur.Benchmarks {
		if _, ok := base.Lookup(n.Name); !ok {
			rep.Rows = append(rep.Rows, Row{Name: n.Name, Verdict: OnlyNew, Delta: math.NaN(), P: math.NaN()})
			rep.Missing++
		}
	}
	return rep
}

func samplesOf(b Benchmark) []float64 {
	if b.Stats == nil {
		return nil
	}
	if len(b.Stats.Samples) > 0 {
		return b.Stats.Samples
	}
	return nil
}

func compareOne(b, n Benchmark, th *benchmath.Thresholds, opts CompareOptions) Row {
	row := Row{Name: b.Name, Delta: math.NaN(), P: math.NaN()}
	s1, s2 := samplesOf(b), samplesOf(n)
	if len(s1) == 0 || len(s2) == 0 {
		row.Verdict = NotMeasured
		row.Note = "no samples in " + map[bool]string{true: "base", false: "new"}[len(s1) == 0]
		return row
	}
	a1 := slices.Sorted(slices.Values(s1))
	a2 := slices.Sorted(slices.Values(s2))
	x := benchmath.NewSample(a1, th)
	y := benchmath.NewSample(a2, th)
	sum1 := benchmath.AssumeNothing.Summary(x, 0.95)
	sum2 := benchmath.AssumeNothing.Summary(y, 0.95)
	cmp := benchmath.AssumeNothing.Compare(x, y)
	row.BaseMedian, row.NewMedian = sum1.Center, sum2.Center
	row.N1, row.N2, row.P = cmp.N1, cmp.N2, cmp.P
	for _, w := range append(append(x.Warnings, y.Warnings...), cmp.Warnings...) {
		row.Warn = append(row.Warn, w.Error())
	}
	if sum1.Center > 0 {
		row.Delta = sum2.Center/sum1.Center - 1
	}
	significant := cmp.P < opts.Alpha
	switch {
	case significant && row.Delta > opts.Threshold:
		row.Verdict = Slower
	case significant && row.Delta < -opts.Threshold:
		row.Verdict = Faster
	default:
		row.Verdict = Same
	}
	return row
}

// MarshalJSON writes the row with null for the values it does not have
// (NaN: no delta or p-value for a benchmark missing from a file), since
// JSON has no NaN.
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row
	out := struct {
		plain
		Delta *float64 `json:"delta"`
		P     *float64 `json:"p"`
	}{plain: plain(r)}
	if !math.IsNaN(r.Delta) {
		out.Delta = &r.Delta
	}
	if !math.IsNaN(r.P) {
		out.P = &r.P
	}
	return json.Marshal(out)
}
