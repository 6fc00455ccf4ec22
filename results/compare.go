package results

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	moremath "github.com/aclements/go-moremath/stats"

	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/telemetry"
	"golang.org/x/perf/benchmath"
)

// CompareOptions set when a change is a regression.
type CompareOptions struct {
	// Threshold is the smallest slowdown of the median that counts, as a
	// fraction (0.05 is 5%).
	Threshold float64 `json:"threshold"`
	// Alpha is the family-wise significance level: the chance that a
	// comparison of two files in which nothing changed reports any
	// benchmark as changed, however many they hold (see Compare).
	Alpha float64 `json:"alpha"`
	// Relative judges every benchmark relative to the probe (File.Probe)
	// and net of it, not by its own times, where both files have the same
	// probe; without it, only those the probe steadies (see Compare).
	Relative bool `json:"relative,omitempty"`
	// OwnTimes judges every benchmark by its own times (the report still
	// says how much the probe moved).
	OwnTimes bool `json:"own_times,omitempty"`

	// withoutNet judges no benchmark net of the probe (Row.NetDelta), and
	// keepOutliers leaves no round out (steadyRounds): the controls of
	// BenchmarkCompareGate and the tests.
	withoutNet, keepOutliers bool
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
	// Unjudged is a benchmark with fewer rounds than RoundsNeeded in one
	// file or both.
	Unjudged Verdict = "cannot judge"
)

// Row is the comparison of one benchmark.
type Row struct {
	Name       string  `json:"name"`
	BaseMedian float64 `json:"base_median_s,omitempty"`
	NewMedian  float64 `json:"new_median_s,omitempty"`
	// Delta is NewMedian/BaseMedian - 1, of the medians of the rounds'
	// medians (its own times): positive is slower.
	Delta float64 `json:"delta"`
	// RelativeDelta is the change relative to the probe, wherever both
	// files have it (unless OwnTimes). Relative says that Delta did not
	// count (Compare says when).
	RelativeDelta *float64 `json:"relative_delta,omitempty"`
	Relative      bool     `json:"relative,omitempty"`
	// NetDelta is, where RelativeDelta is, the change net of the probe's:
	// of the rounds over the probe's raised to ProbeSlope (probeFit.slope).
	// It counts too.
	NetDelta   *float64 `json:"net_delta,omitempty"`
	ProbeSlope float64  `json:"probe_slope,omitempty"`
	// ProbeVariance and ProbeP are, where both files have the probe,
	// probeFit's ratio and p: under 1, the probe steadies the rounds.
	ProbeVariance float64 `json:"probe_variance,omitempty"`
	ProbeP        float64 `json:"probe_p,omitempty"`
	// P is the p-value the verdict takes: RawP, Welch's (the largest of
	// its tests where it was judged several ways: every change must be
	// significant), adjusted by Holm's method.
	P    float64 `json:"p"`
	RawP float64 `json:"p_raw"`
	// N1 and N2 are the rounds compared, in base and in new: those kept,
	// where a round far slower than the rest of its run was left out (the
	// note says how many).
	N1      int      `json:"n_base"`
	N2      int      `json:"n_new"`
	Verdict Verdict  `json:"verdict"`
	Note    string   `json:"note,omitempty"`
	Warn    []string `json:"warnings,omitempty"`
	// Detectable is the smallest slowdown the rounds' spread would have let
	// the test call significant, at the strictest step's level (Alpha over
	// the benchmarks judged): a change past the threshold but under this
	// can pass unnoticed. Where several ways count, see judge.
	Detectable float64 `json:"detectable,omitempty"`

	tests []welchFit // one for each way it was judged
}

// welchFit is one of a row's Welch tests: the change of the median, the
// standard error of the difference of the log medians, its degrees of
// freedom.
type welchFit struct{ delta, se, dof float64 }

// judged reports whether v is a verdict on a difference: slower, faster or
// the same.
func (v Verdict) judged() bool { return v == Slower || v == Faster || v == Same }

// newRow is the row of benchmark name with verdict v (none yet: ""), and
// no delta or p-value (NaN) until it is compared.
func newRow(name string, v Verdict) Row {
	return Row{Name: name, Verdict: v, Delta: math.NaN(), P: math.NaN(), RawP: math.NaN()}
}

// CompareSchema names the version of the comparison's report (Report).
const CompareSchema = "vkbench.compare/v1"

// Report is the comparison of two files.
type Report struct {
	Schema string `json:"schema"`
	// Base and New are the files compared, each side's in order.
	Base    []string       `json:"base,omitempty"`
	New     []string       `json:"new,omitempty"`
	Options CompareOptions `json:"options"`
	Rows    []Row          `json:"rows"`
	// Regressions counts the rows that fail (Verdict.Fails); Missing those
	// in only one file or not measured in one; Unjudged those Unjudged.
	Regressions int `json:"regressions"`
	Missing     int `json:"missing"`
	Unjudged    int `json:"unjudged"`
	// Judged counts the rows whose difference could be judged.
	Judged int `json:"judged"`
	// Unclear counts the rows Undecided returns and those of verdict
	// Unclear; OnUnclear is what they do to the gate, as ABReport's (""
	// is UnclearWarns).
	Unclear   int    `json:"unclear,omitempty"`
	OnUnclear string `json:"on_unclear,omitempty"`
	// Together is set when every judged benchmark, two or more, moved the
	// same way by more than the threshold: what a device that ran at
	// another speed during one of the runs (clocks, heat, other work on
	// it) does to every benchmark alike. Shift is then the median of
	// their deltas. The verdicts stand; a reader is told.
	Together bool    `json:"moved_together,omitempty"`
	Shift    float64 `json:"shift,omitempty"`
	// Probe names the probe both files measured, and ProbeShift how much
	// slower it ran in new (its median round): how much the machine's
	// speed differed. ProbeNote says why there is none where a file had one.
	Probe      string  `json:"probe,omitempty"`
	ProbeShift float64 `json:"probe_shift,omitempty"`
	ProbeNote  string  `json:"probe_note,omitempty"`
	// RelativeRows counts the rows that are Row.Relative.
	RelativeRows int `json:"relative_rows,omitempty"`
	// Detectable is the median of the rows' Detectable. Over the
	// threshold, an exit status 0 says less than it seems to.
	Detectable float64 `json:"detectable,omitempty"`
}

// Compare compares every benchmark of base with the one of the same name
// in cur, by its rounds: Welch's t-test of the logarithms of the rounds'
// medians (welchTest), its p-values adjusted by Holm's method over the
// benchmarks judged (so that Options.Alpha bounds the chance of reporting
// anything at all when nothing changed), and the change of their median
// against the threshold. Benchmarks in only one file, without samples in
// one, or with too few rounds to judge (Unjudged) are reported, never
// ignored. Before any test, each run's slow outlier rounds are left out
// with the probe's in them (steadyRounds); the row says how many.
//
// Where both files measured the same probe, a benchmark is judged
// relative to it, round by round, alone only where that demonstrably
// steadies its rounds (or always, with Options.Relative): where the
// variance of its log round medians over the probe's is smaller than
// that of its own (probeSteadies), one-sided at ProbeAlpha. A probe that
// does not move with a kernel only adds its own noise: judged against
// it, a loaded run measured faster looked slower still. Every other
// benchmark (unless OwnTimes) is slower or faster only where its own
// times and its times relative to the probe both say so, each
// significant and past the threshold (an intersection–union test: the
// larger p-value is the one adjusted). The variance test cannot see a
// run slower as a whole: with whole runs 3% apart and those benchmarks
// judged by their own times alone, one identical pair in ten reported a
// regression, twice what Alpha promises.
//
// A machine whose speed changes by p slows a kernel by b·p: its own times
// move by b·p and relative to the probe by (b−1)·p, of the other sign for
// b under 1, but alike for b over 1 (arithmetic when the SM clocks drop
// more than a copy slows; with half the kernels at b = 2, one pair in
// eleven reported one). So every benchmark judged relative to the probe
// is judged net of it too (an analysis of covariance): its rounds are
// divided by the probe's raised to b, the slope of its log round medians
// against the probe's (Row.ProbeSlope), and Welch's standard error is
// widened by the slope's error times how far the probe moved. That kept
// every machine BenchmarkCompareGate simulates at 1.1% of pairs or fewer.
// Its price: where the probe moved far and the rounds say little of how a
// benchmark moves with it, a change both other ways show is not taken.
// Nor does the probe ever reverse a change: a benchmark judged relative
// to it alone whose own times moved one way is the same, with a note.
//
// Why not the rank test benchstat uses: a U test of five rounds against
// five cannot give a p-value under 0.008, too coarse for any correction
// over more than six benchmarks, and without a correction a file of 17
// benchmarks compared at 0.05 each reports a chance difference in most
// pairs of runs. A round's median summarises many samples, so its
// logarithm is close to normal and the t-test is sound.
func Compare(base, cur *File, opts CompareOptions) Report {
	rep := Report{Schema: CompareSchema, Options: opts}
	var bp, np []float64
	switch {
	case base.Probe == nil && cur.Probe == nil:
	case base.Probe == nil || cur.Probe == nil:
		rep.ProbeNote = "only one file has a probe (run --count 2 or more measures one)"
	case base.Probe.Name != cur.Probe.Name:
		rep.ProbeNote = fmt.Sprintf("the files' probes differ (%s, %s)", base.Probe.Name, cur.Probe.Name)
	default:
		rep.Probe = base.Probe.Name
		rep.ProbeShift = median(cur.Probe.RoundMedians)/median(base.Probe.RoundMedians) - 1
		bp, np = base.Probe.RoundMedians, cur.Probe.RoundMedians
	}
	for _, b := range base.Benchmarks {
		r := newRow(b.Name, OnlyBase)
		if n, ok := cur.Lookup(b.Name); ok {
			r = compareOne(b, *n, bp, np, opts)
		}
		if r.Relative {
			rep.RelativeRows++
		}
		rep.Rows = append(rep.Rows, r)
	}
	for _, n := range cur.Benchmarks {
		if _, ok := base.Lookup(n.Name); !ok {
			rep.Rows = append(rep.Rows, newRow(n.Name, OnlyNew))
		}
	}
	judge(rep.Rows, opts)
	count := map[Verdict]*int{OnlyBase: &rep.Missing, OnlyNew: &rep.Missing, NotMeasured: &rep.Missing,
		Unjudged: &rep.Unjudged, Unclear: &rep.Unclear}
	var detectable []float64
	for _, r := range rep.Rows {
		if r.Detectable > 0 {
			detectable = append(detectable, r.Detectable)
		}
		if n := count[r.Verdict]; n != nil {
			*n++
		}
		if r.Verdict.judged() {
			rep.Judged++
		}
		if r.Verdict.Fails() {
			rep.Regressions++
		}
	}
	rep.Detectable = median(detectable) // 0 where none
	rep.Unclear += len(rep.Undecided())
	rep.Together, rep.Shift = movedTogether(rep.Rows, opts.Threshold)
	return rep
}

// judge adjusts the raw p-values of the rows still to be judged by Holm's
// step-down method (the k-th smallest of m multiplied by m − k + 1, never
// below the one before it, at most 1) and gives each its verdict. A row
// judged several ways must be past the threshold in each; its Detectable
// is the largest of theirs, times how far their changes lie apart (a
// slowdown must show in the one the probe's move held back most too).
func judge(rows []Row, opts CompareOptions) {
	var pending []int
	for i, r := range rows {
		if r.Verdict == "" {
			pending = append(pending, i)
		}
	}
	slices.SortStableFunc(pending, func(a, b int) int { return cmpFloat(rows[a].RawP, rows[b].RawP) })
	m, running := len(pending), 0.0
	for k, i := range pending {
		running = max(running, min(1, float64(m-k)*rows[i].RawP))
		r := &rows[i]
		r.P = running
		significant := r.P < opts.Alpha
		lo, hi, d := math.Inf(1), math.Inf(-1), 0.0
		for _, w := range r.tests {
			lo, hi = min(lo, w.delta), max(hi, w.delta)
			d = max(d, detectable(w.se, w.dof, opts.Alpha/float64(m)))
		}
		r.Detectable = (1+d)*(1+hi)/(1+lo) - 1
		switch {
		case significant && lo > opts.Threshold:
			r.Verdict = Slower
		case significant && hi < -opts.Threshold:
			r.Verdict = Faster
		default:
			r.Verdict = Same
		}
		switch {
		case r.Relative && ((r.Verdict == Slower && r.Delta < 0) || (r.Verdict == Faster && r.Delta > 0)):
			r.Verdict = Same
			addNote(&r.Note, r.ways()+": the probe would reverse the change, so neither is taken")
		case len(r.tests) > 1 && significant && (hi > opts.Threshold || lo < -opts.Threshold) && r.Verdict == Same:
			addNote(&r.Note, r.ways()+": the machine's speed may explain the change, so it is not taken")
		}
	}
}

// ways tells the row's change by each way it was judged against the
// probe, each under its name.
func (r *Row) ways() string {
	s := fmt.Sprintf("%+.1f%% by its own times, %+.1f%% relative to the probe", 100*r.Delta, 100**r.RelativeDelta)
	if r.NetDelta != nil {
		s += fmt.Sprintf(", %+.1f%% net of it", 100**r.NetDelta)
	}
	return s
}

func addNote(notes *string, note string) { *notes = strings.TrimPrefix(*notes+"; "+note, "; ") }

// detectable is the smallest slowdown that Welch's test, with standard
// error se of the difference of the log medians and dof degrees of
// freedom, calls significant at level alpha (two-sided); 0 where the
// test has no spread to go by.
func detectable(se, dof, alpha float64) float64 {
	if se <= 0 || !(dof > 0) || math.IsInf(dof, 0) {
		return 0
	}
	t := moremath.InvCDF(moremath.TDist{V: dof})(1 - alpha/2)
	return math.Exp(t*se) - 1
}

// cmpFloat orders NaN last.
func cmpFloat(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	}
	return cmp.Compare(a, b)
}

// movedTogether reports whether every judged row, two or more, moved the
// same way past threshold, and the median of their deltas.
func movedTogether(rows []Row, threshold float64) (bool, float64) {
	var deltas []float64
	up, down := 0, 0
	for _, r := range rows {
		if !r.Verdict.judged() || math.IsNaN(r.Delta) {
			continue
		}
		deltas = append(deltas, r.Delta)
		switch {
		case r.Delta > threshold:
			up++
		case r.Delta < -threshold:
			down++
		}
	}
	if len(deltas) < 2 || (up != len(deltas) && down != len(deltas)) {
		return false, 0
	}
	slices.Sort(deltas)
	return true, deltas[len(deltas)/2]
}

// compareOne compares benchmark b of base with n of new; relative to the
// probe's round medians (bp in base, np in new) where each has one per
// round. The verdict of a row it could judge is judge's, which needs
// every row's p-value.
func compareOne(b, n Benchmark, bp, np []float64, opts CompareOptions) Row {
	row := newRow(b.Name, "")
	s1, s2 := b.RoundMedians(), n.RoundMedians()
	if v, note := brokenNew(len(s1) > 0, b, n, "base"); v != "" {
		row.Verdict, row.Note = v, note
		return row
	}
	if len(s1) == 0 || len(s2) == 0 {
		row.Verdict, row.Note = NotMeasured, unmeasured(b, n, len(s1) == 0, len(s2) == 0, "base")
		return row
	}
	row.BaseMedian, row.NewMedian = median(s1), median(s2)
	if row.BaseMedian > 0 {
		row.Delta = row.NewMedian/row.BaseMedian - 1
	}
	var notes []string
	if len(bp) != len(s1) || len(np) != len(s2) {
		if len(bp) > 0 && !opts.OwnTimes {
			notes = append(notes, "rounds do not match the probe's: own times judged")
		}
		bp, np = nil, nil
	}
	rounds1, rounds2 := len(s1), len(s2)
	s1, bp, runs1 := steadyRounds(s1, bp, b.Runs, opts)
	s2, np, runs2 := steadyRounds(s2, np, n.Runs, opts)
	row.N1, row.N2 = len(s1), len(s2)
	if row.N1 < rounds1 || row.N2 < rounds2 {
		notes = append(notes, fmt.Sprintf("rounds far slower than the rest of their run left out: %d in base, %d in new", rounds1-row.N1, rounds2-row.N2))
	}
	ways := [][2][]float64{{s1, s2}} // the rounds of each way it is judged, base and new
	var fit probeFit
	if len(bp) > 0 && len(np) > 0 {
		fit = probeSteadies(s1, bp, s2, np)
		row.ProbeVariance, row.ProbeP = fit.ratio, fit.p
		if !opts.OwnTimes {
			rel := [2][]float64{relative(s1, bp, 1), relative(s2, np, 1)}
			row.RelativeDelta = medianChange(rel)
			if row.Relative = opts.Relative || row.ProbeP < ProbeAlpha; row.Relative {
				ways = ways[:0]
			}
			ways = append(ways, rel)
			if !opts.withoutNet {
				net := [2][]float64{relative(s1, bp, fit.slope), relative(s2, np, fit.slope)}
				row.ProbeSlope, row.NetDelta = fit.slope, medianChange(net)
				ways = append(ways, net)
			}
		}
	}
	if minUTestP(rounds1, rounds2) > opts.Alpha {
		row.Verdict, row.Note = Unjudged, fmt.Sprintf("%s in base, %s in new: too few for a difference to be judged at alpha %g; measure both with --count %d or more, or gate with vkbench ab",
			plural(rounds1, "round"), plural(rounds2, "round"), opts.Alpha, RoundsNeeded(opts.Alpha))
		return row
	}
	// By runs only where both sides pooled several: one run's rounds
	// cannot show how far another run would lie.
	if len(runMeans(s1, runs1)) < 2 || len(runMeans(s2, runs2)) < 2 {
		runs1, runs2 = nil, nil
	}
	var ps []float64
	for i, w := range ways {
		// Net of the probe, the slope's own error adds to the difference's
		// as far as the probe moved (analysis of covariance).
		extra := 0.0
		if i == len(ways)-1 && row.NetDelta != nil {
			dq := moremath.Mean(runMeans(logsOf(np), runs2)) - moremath.Mean(runMeans(logsOf(bp), runs1))
			extra = dq * dq * fit.slopeVar
		}
		p, se, dof, warn := welchTest(w[0], w[1], runs1, runs2, extra)
		ps = append(ps, p)
		row.tests = append(row.tests, welchFit{*medianChange(w), se, dof})
		for _, w := range warn {
			if !slices.Contains(row.Warn, w) {
				row.Warn = append(row.Warn, w)
			}
		}
	}
	row.RawP = slices.Max(ps) // every way must be significant
	if c := conditionsNote("base", "new", b, n); c != "" {
		notes = append(notes, c)
	}
	row.Note = strings.Join(notes, "; ")
	return row
}

// welchTest is Welch's t-test of the logarithms of s1 against s2: its
// p-value, the standard error of the difference of the means and its
// Welch–Satterthwaite degrees of freedom (zeros where either side has
// fewer than two values, or neither any spread), and benchmath's
// warnings. extra is a variance the difference has besides theirs (the
// slope's, net of the probe). Where runs1 and runs2 say how many of each
// side's rounds came from each of several runs (Merge), the test is of
// the runs' means: rounds of one process share its shift, and taken as
// independent, 15 rounds of three runs a side reported such shifts as
// regressions in 7% of identical pairs (BenchmarkCompareGate).
func welchTest(s1, s2 []float64, runs1, runs2 []int, extra float64) (p, se, dof float64, warn []string) {
	th := benchmath.DefaultThresholds
	// On logarithms: a round's median is positive, and a change of speed
	// scales it. NewSample sorts them.
	x := benchmath.NewSample(runMeans(logsOf(s1), runs1), &th)
	y := benchmath.NewSample(runMeans(logsOf(s2), runs2), &th)
	c := benchmath.AssumeNormal.Compare(x, y)
	for _, w := range c.Warnings {
		warn = append(warn, w.Error())
	}
	n1, n2 := float64(len(x.Values)), float64(len(y.Values))
	if n1 < 2 || n2 < 2 {
		return c.P, 0, 0, warn
	}
	v1, v2 := moremath.Variance(x.Values)/n1, moremath.Variance(y.Values)/n2
	if v1+v2 == 0 {
		// Every value of each side the same (a timer too coarse to see
		// noise): the t-test fails, and benchmath says p 1, which passed
		// rounds all 20% slower. Without noise, any difference is one.
		if moremath.Mean(x.Values) != moremath.Mean(y.Values) {
			return 0, 0, 0, warn
		}
		return 1, 0, 0, warn
	}
	se, dof = math.Sqrt(v1+v2+extra), (v1+v2)*(v1+v2)/(v1*v1/(n1-1)+v2*v2/(n2-1))
	if extra > 0 {
		if runs1 == nil && runs2 == nil {
			// Net of the probe, the slope was fitted from these rounds
			// too, which takes one degree of freedom more (analysis of
			// covariance: n1 + n2 − 3). Runs' means are other values
			// than those it was fitted from.
			dof = min(dof, n1+n2-3)
		}
		t := math.Abs(moremath.Mean(y.Values)-moremath.Mean(x.Values)) / se
		p = 2 * (1 - moremath.TDist{V: dof}.CDF(t))
		return p, se, dof, warn
	}
	return c.P, se, dof, warn
}

// runMeans is the mean of each run's values, runs saying how many each
// has (a run without any is left out); values itself where runs is nil.
func runMeans(values []float64, runs []int) []float64 {
	if runs == nil {
		return values
	}
	var out []float64
	for _, n := range runs {
		if n > 0 {
			out = append(out, moremath.Mean(values[:n]))
		}
		values = values[n:]
	}
	return out
}

// relative divides each round's median by the probe's raised to slope:
// 1 for the rounds relative to the probe, probeFit.slope for them net of
// it.
func relative(rounds, probe []float64, slope float64) []float64 {
	out := make([]float64, len(rounds))
	for i, v := range rounds {
		out[i] = v / math.Pow(probe[i], slope)
	}
	return out
}

func medianChange(sides [2][]float64) *float64 {
	d := median(sides[1])/median(sides[0]) - 1
	return &d
}

// median is the median of values, as stats.Summarize takes it.
func median(values []float64) float64 { return stats.Summarize(values, 1).Median }

// conditionsNote says what in the two benchmarks' conditions makes a
// verdict one to take with care: either measured while the GPU throttled
// or its clocks moved, or the two at SM clocks apart (ClocksApart).
func conditionsNote(baseName, newName string, b, n Benchmark) string {
	var notes []string
	names := [2]string{baseName, newName}
	for i, m := range [2]Benchmark{b, n} {
		if slices.Contains(m.Flags, telemetry.FlagThrottled) {
			notes = append(notes, names[i]+" measured while the GPU throttled")
		}
		if slices.Contains(m.Flags, telemetry.FlagClocksMoved) {
			notes = append(notes, names[i]+"'s clocks moved")
		}
	}
	if bc, nc := b.Conditions, n.Conditions; bc != nil && nc != nil && telemetry.ClocksApart(bc.SMClockMHz.Max, nc.SMClockMHz.Max) {
		notes = append(notes, fmt.Sprintf("%s ran at SM %.0f MHz, %s at %.0f MHz", baseName, bc.SMClockMHz.Max, newName, nc.SMClockMHz.Max))
	}
	return strings.Join(notes, "; ")
}

// minUTestP is the smallest two-sided p-value a Mann–Whitney U test of n1
// values against n2 can give, when they do not overlap at all:
// 2 / C(n1+n2, n1).
func minUTestP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return min(1, 2/c)
}

// RoundsNeeded is how many rounds each file should have for a comparison
// at alpha: the fewest with which even a rank test could call a difference
// significant (over four values it cannot reach p < 0.05), and at least
// 5, so that one odd round does not decide alone. With fewer, Compare
// does not judge.
func RoundsNeeded(alpha float64) int {
	n := 1
	for minUTestP(n, n) > alpha && n < 1000 {
		n++
	}
	return max(n, 5)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
		RawP  *float64 `json:"p_raw"`
	}{plain: plain(r), Delta: nilIfNaN(r.Delta), P: nilIfNaN(r.P), RawP: nilIfNaN(r.RawP)}
	return json.Marshal(out)
}

func nilIfNaN(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}
