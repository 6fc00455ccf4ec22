package main

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/results"
)

func newReportCmd() *cobra.Command {
	var (
		cf         cacheFlags
		output     string
		peakGBps   float64
		peakGFLOPs float64
	)
	cmd := &cobra.Command{
		Use:   "report FILE... -o OUTPUT",
		Short: "Draw charts of result files: every candidate's median and 95% interval, and a roofline",
		Long: `Draw charts of result files (vkbench run --format json; Go benchmark format is
read too). The format of OUTPUT follows its extension: .html (a self-contained
page with the charts inline and a table per operation), .svg or .png (the
charts one under the other).

For each operation (and dtype and size) one chart shows every candidate's
median time per run with its 95% confidence interval, lower is better; the
winner is filled. Candidates that failed or that the device does not support
have no point: their row says why. With several files the charts overlay
them: each candidate has one point per file, in the file's colour, so that a
base and a new run read side by side.

The roofline places each operation that does arithmetic by its arithmetic
intensity (FLOP per byte moved, x) and its achieved GFLOP/s (y), under the
device's bandwidth and compute roofs. The roofs come from --peak-gbps and
--peak-gflops, else from the peak that vkbench peak stored in the tune cache
(--cache) for the file's hardware; with neither the roofline is left out,
with a note. Operations that only move data (copy, transpose) are listed
under it with their bandwidth.

Exit status: 0 success, 2 bad usage or an unreadable or malformed file.`,
		Example: `  vkbench run --format json -o run.json
  vkbench report run.json -o report.html
  vkbench report base.json new.json -o compare.png --peak-gbps 900 --peak-gflops 30000`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("report needs at least one result file (see %s --help)", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := reportFormat(output)
			if err != nil {
				return err
			}
			if drawn, err := reportConvergence(cmd, args, output, format); drawn || err != nil {
				return err
			}
			if err := checkPeakFlags(peakGBps, peakGFLOPs); err != nil {
				return err
			}
			in, err := readReportFiles(args)
			if err != nil {
				return err
			}
			peaks := func(string) *autotune.Peak { return nil }
			if peakGBps == 0 || peakGFLOPs == 0 {
				cache, err := cf.open(cmd, false)
				if err != nil {
					return err
				}
				peaks = func(hardware string) *autotune.Peak {
					p, _ := cache.LoadPeak(hardware) // no stored peak is a note, not an error
					if p == nil {
						return nil
					}
					return &p.Peak
				}
			}
			rep := buildReport(in, func(hardware string) *autotune.Peak {
				p := autotune.Peak{BandwidthGBps: peakGBps, GFLOPs: peakGFLOPs}
				if stored := peaks(hardware); stored != nil {
					if p.BandwidthGBps == 0 {
						p.BandwidthGBps = stored.BandwidthGBps
					}
					if p.GFLOPs == 0 {
						p.GFLOPs = stored.GFLOPs
					}
				}
				if p.BandwidthGBps == 0 && p.GFLOPs == 0 {
					return nil
				}
				return &p
			})
			var buf bytes.Buffer
			if err := rep.write(&buf, format); err != nil {
				return err
			}
			out, err := openOutput(cmd, output, "")
			if err != nil {
				return err
			}
			if _, err := out.Write(buf.Bytes()); err != nil {
				out.Discard()
				return err
			}
			if err := out.Commit(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d chart(s) of %d file(s)\n", output, rep.charts(), len(in))
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "the report to write: .html, .svg or .png (required)")
	floatVar(cmd.Flags(), &peakGBps, "peak-gbps", 0, "the device's peak memory bandwidth in GB/s, for the roofline (default: the stored peak)")
	floatVar(cmd.Flags(), &peakGFLOPs, "peak-gflops", 0, "the device's peak GFLOP/s, for the roofline (default: the stored peak)")
	cf.register(cmd.Flags())
	return cmd
}

// reportFormat is the output format named by path's extension.
func reportFormat(path string) (string, error) {
	if path == "" {
		return "", usageError{fmt.Errorf("report needs -o FILE, ending in .html, .svg or .png")}
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".html", ".htm":
		return "html", nil
	case ".svg", ".png":
		return ext[1:], nil
	}
	return "", usageError{fmt.Errorf("-o %s: unknown report format %q (want .html, .svg or .png)", path, filepath.Ext(path))}
}

// reportInput is one result file and the label that names it in charts.
type reportInput struct {
	label string
	file  *results.File
}

func readReportFiles(paths []string) ([]reportInput, error) {
	in := make([]reportInput, len(paths))
	bases := map[string]int{}
	for i, p := range paths {
		f, err := results.ReadFile(p)
		if err != nil {
			return nil, usageError{err}
		}
		in[i] = reportInput{label: filepath.Base(p), file: f}
		bases[filepath.Base(p)]++
	}
	for i := range in {
		if bases[in[i].label] > 1 {
			in[i].label = paths[i] // two files of one name: tell them apart by path
		}
	}
	return in, nil
}

// opGroup is one operation at one dtype and size, across the files.
type opGroup struct {
	title string
	cands []string
	// at[c][f] is candidate c's benchmark in file f; nil if absent.
	at map[string][]*results.Benchmark
}

// splitName returns the group and candidate of b. Files in Go's benchmark
// format only have names: "op/dtype/shape/candidate" splits at the last
// slash.
func splitName(b *results.Benchmark) (group, title, cand string) {
	if b.Op != "" {
		return b.Op + "/" + b.DType + "/" + b.Shape, fmt.Sprintf("%s %s, size %s", b.Op, b.DType, b.Shape), b.Candidate
	}
	if i := strings.LastIndex(b.Name, "/"); i > 0 {
		return b.Name[:i], b.Name[:i], b.Name[i+1:]
	}
	return b.Name, b.Name, b.Name
}

func groupBenchmarks(in []reportInput) []*opGroup {
	var groups []*opGroup
	index := map[string]*opGroup{}
	for f, input := range in {
		for i := range input.file.Benchmarks {
			b := &input.file.Benchmarks[i]
			key, title, cand := splitName(b)
			g := index[key]
			if g == nil {
				g = &opGroup{title: title, at: map[string][]*results.Benchmark{}}
				index[key] = g
				groups = append(groups, g)
			}
			if g.at[cand] == nil {
				g.at[cand] = make([]*results.Benchmark, len(in))
				g.cands = append(g.cands, cand)
			}
			g.at[cand][f] = b
		}
	}
	return groups
}

// measured reports whether b has a median to draw.
func measured(b *results.Benchmark) bool {
	return b != nil && b.Stats != nil && b.Stats.Median > 0
}

// report is everything drawn: per operation a chart and a table, then a
// roofline (or a note) per hardware.
type report struct {
	in     []reportInput
	groups []*opGroup
	roofs  []roofline
}

type roofline struct {
	hardware string
	device   string
	peak     *autotune.Peak
	files    []int
	notes    []string
}

func buildReport(in []reportInput, peakOf func(hardware string) *autotune.Peak) *report {
	rep := &report{in: in, groups: groupBenchmarks(in)}
	byHW := map[string]int{}
	for f, input := range in {
		hw := input.file.Device.Hardware
		i, ok := byHW[hw]
		if !ok {
			i = len(rep.roofs)
			byHW[hw] = i
			rep.roofs = append(rep.roofs, roofline{hardware: hw, device: input.file.Device.Name, peak: peakOf(hw)})
		}
		rep.roofs[i].files = append(rep.roofs[i].files, f)
	}
	for i := range rep.roofs {
		rep.roofs[i].notes = rep.rooflineNotes(&rep.roofs[i])
	}
	return rep
}

func (r *report) charts() int {
	n := len(r.groups)
	for _, rl := range r.roofs {
		if rl.drawn(r) {
			n++
		}
	}
	return n
}

// onRoof reports whether b can stand on a roofline: it does arithmetic and
// moves bytes.
func onRoof(b *results.Benchmark) bool {
	return measured(b) && b.Flops > 0 && b.Bytes > 0 && b.GFLOPs > 0
}

func (rl *roofline) drawn(r *report) bool {
	if rl.peak == nil {
		return false
	}
	for _, f := range rl.files {
		for i := range r.in[f].file.Benchmarks {
			if onRoof(&r.in[f].file.Benchmarks[i]) {
				return true
			}
		}
	}
	return false
}

func (r *report) rooflineNotes(rl *roofline) []string {
	var notes []string
	hw := rl.hardware
	if hw == "" {
		hw = "unknown hardware"
	}
	switch {
	case rl.peak == nil:
		notes = append(notes, fmt.Sprintf("No roofline for %s: no peak is known (run vkbench peak on it, point --cache at the cache that holds its peak, or pass --peak-gbps and --peak-gflops).", hw))
	case rl.peak.BandwidthGBps == 0:
		notes = append(notes, fmt.Sprintf("The bandwidth roof of %s is unknown (--peak-gbps); only the compute roof is drawn.", hw))
	case rl.peak.GFLOPs == 0:
		notes = append(notes, fmt.Sprintf("The compute roof of %s is unknown (--peak-gflops); only the bandwidth roof is drawn.", hw))
	}
	// Operations that do no arithmetic are not on the roofline: say what
	// their best candidate moved.
	var noArith []string
	for _, f := range rl.files {
		seen := map[string]bool{}
		var arith bool
		for i := range r.in[f].file.Benchmarks {
			b := &r.in[f].file.Benchmarks[i]
			if onRoof(b) {
				arith = true
			}
			if !b.Winner || !measured(b) || b.Flops > 0 || b.GBps <= 0 {
				continue
			}
			key, title, _ := splitName(b)
			if seen[key] {
				continue
			}
			seen[key] = true
			pct := ""
			if rl.peak != nil && rl.peak.BandwidthGBps > 0 {
				pct = fmt.Sprintf(", %.0f%% of the %.0f GB/s roof", 100*b.GBps/rl.peak.BandwidthGBps, rl.peak.BandwidthGBps)
			}
			notes = append(notes, fmt.Sprintf("%s%s moves data only: best %s at %.3g GB/s%s.", title, fileSuffix(r, f), b.Candidate, b.GBps, pct))
		}
		if !arith {
			noArith = append(noArith, r.in[f].label)
		}
	}
	if len(noArith) > 0 && rl.peak != nil {
		notes = append(notes, fmt.Sprintf("Nothing to place on the roofline from %s: no benchmark there has both FLOPs and bytes.", strings.Join(noArith, ", ")))
	}
	return notes
}

func fileSuffix(r *report, f int) string {
	if len(r.in) < 2 {
		return ""
	}
	return " (" + r.in[f].label + ")"
}

// Colours: one per file when several overlay; with one file the winner
// stands out in orange among blue.
var (
	fileColors = []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
		color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	}
	winnerColor = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	roofColor   = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
)

func (r *report) color(f int, winner bool) color.Color {
	if len(r.in) == 1 && winner {
		return winnerColor
	}
	return fileColors[f%len(fileColors)]
}

// Sizes of the charts.
const (
	chartWidth  = 18 * vg.Centimeter
	rowPitch    = 0.65 * vg.Centimeter
	chartChrome = 3.2 * vg.Centimeter // title, axis, margins
	lineHeight  = 13                  // points, of a note line
)

// timeUnit picks the unit that shows seconds up to max best.
func timeUnit(max float64) (scale float64, unit string) {
	switch {
	case max < 1e-6:
		return 1e9, "ns"
	case max < 1e-3:
		return 1e6, "µs"
	case max < 1:
		return 1e3, "ms"
	}
	return 1, "s"
}

// rowLabel is a candidate's label on the chart: its name, and what became
// of it where it has no point.
func (r *report) rowLabel(g *opGroup, cand string) string {
	var notes []string
	for f, b := range g.at[cand] {
		var what string
		switch {
		case b == nil:
			what = "absent"
		case b.Outcome == results.Dropped:
			what = "dropped early"
		case !measured(b):
			what = string(b.Outcome)
			if len(r.in) == 1 && b.Error != "" {
				what += ": " + shortReason(b.Error, cand)
			}
		default:
			continue
		}
		if len(r.in) > 1 {
			what += " in " + r.in[f].label
		}
		notes = append(notes, what)
	}
	label := cand
	if len(notes) > 0 {
		label += " (" + strings.Join(notes, "; ") + ")"
	}
	return oneLine(label, 72)
}

// shortReason drops the prefixes of an error message that a chart's row
// does not need: status codes, package names and the candidate's own name
// ("UNIMPLEMENTED: kernels: gemm-x: needs 33 KiB" is "needs 33 KiB").
func shortReason(msg, cand string) string {
	for {
		head, rest, ok := strings.Cut(msg, ": ")
		if !ok || (head != cand && strings.ContainsAny(head, " ,")) || (head != cand && head != strings.ToUpper(head) && head != strings.ToLower(head)) {
			return msg
		}
		msg = rest
	}
}

// distinctTicks are gonum's default ticks with labels precise enough to
// tell apart (gonum rounds 1.35 and 1.4 both to "1.4").
type distinctTicks struct{}

func (distinctTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for prec := 0; prec <= 6; prec++ {
		seen := map[string]bool{}
		ok := true
		for _, t := range ticks {
			if t.Label == "" {
				continue
			}
			l := strconv.FormatFloat(t.Value, 'f', prec, 64)
			if seen[l] || math.Abs(t.Value-mustParse(l)) > 1e-9*math.Max(1, math.Abs(t.Value)) {
				ok = false
				break
			}
			seen[l] = true
		}
		if ok {
			for i := range ticks {
				if ticks[i].Label != "" {
					ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', prec, 64)
				}
			}
			break
		}
	}
	return ticks
}

func mustParse(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64) // formatted just before
	return v
}

// candidateChart draws one operation: a row per candidate, top down in
// catalogue order, with a point per file at the median and a bar over the
// 95% interval.
func (r *report) candidateChart(g *opGroup) (*plot.Plot, vg.Length, error) {
	hi := 0.0
	for _, c := range g.cands {
		for _, b := range g.at[c] {
			if measured(b) {
				hi = max(hi, b.Stats.Median)
				if b.Stats.HasInterval() {
					hi = max(hi, b.Stats.Hi)
				}
			}
		}
	}
	scale, unit := timeUnit(hi)
	p := newPlot()
	p.Title.Text = g.title
	if len(r.in) == 1 {
		p.Title.Text += " — " + r.in[0].label
	}
	p.X.Label.Text = fmt.Sprintf("time per run (%s), lower is better", unit)
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.X.Tick.Marker = distinctTicks{}
	p.Add(plotter.NewGrid())

	// Rows from the top: the legend takes the top rows.
	legendRows := int(math.Ceil(float64(r.legendEntries()) * 16 / rowPitch.Points()))
	n := len(g.cands)
	labels := make([]string, n+legendRows)
	for i, c := range g.cands {
		labels[n-1-i] = r.rowLabel(g, c)
	}
	p.NominalY(labels...)
	p.Y.Max = float64(n + legendRows - 1)

	for f := range r.in {
		offset := 0.0
		if len(r.in) > 1 {
			offset = 0.3 * (float64(len(r.in)-1)/2 - float64(f)) / float64(len(r.in)-1)
		}
		for _, winner := range []bool{false, true} {
			var pts plotter.XYs
			var errs plotter.XErrors
			for i, c := range g.cands {
				b := g.at[c][f]
				if !measured(b) || b.Winner != winner {
					continue
				}
				s := b.Stats
				pts = append(pts, plotter.XY{X: s.Median * scale, Y: float64(n-1-i) + offset})
				lo, hi := s.Median, s.Median // no bar without an interval
				if s.HasInterval() {
					lo, hi = s.Lo, s.Hi
				}
				errs = append(errs, struct{ Low, High float64 }{(s.Median - lo) * scale, (hi - s.Median) * scale})
			}
			if len(pts) == 0 {
				continue
			}
			col := r.color(f, winner)
			bars, err := plotter.NewXErrorBars(struct {
				plotter.XYs
				plotter.XErrors
			}{pts, errs})
			if err != nil {
				return nil, 0, err
			}
			bars.Color = col
			bars.CapWidth = 0.25 * rowPitch
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, 0, err
			}
			sc.Color = col
			sc.Radius = vg.Points(3)
			sc.Shape = draw.RingGlyph{}
			if winner {
				bars.Width = vg.Points(1.5)
				sc.Radius = vg.Points(4.5)
				sc.Shape = draw.CircleGlyph{}
			}
			p.Add(bars, sc)
		}
	}
	r.addLegend(p)
	// The axis need not start at zero: the intervals are what is compared.
	// A margin keeps the outer points and bars off the edges.
	if pad := (p.X.Max - p.X.Min) * 0.06; pad > 0 {
		p.X.Min, p.X.Max = max(0, p.X.Min-pad), p.X.Max+pad
	} else {
		p.X.Min, p.X.Max = 0, max(1, 2*p.X.Max)
	}
	return p, chartChrome + rowPitch*vg.Length(n+legendRows), nil
}

func (r *report) legendEntries() int {
	if len(r.in) == 1 {
		return 2
	}
	return len(r.in) + 1
}

func glyph(col color.Color, shape draw.GlyphDrawer, radius vg.Length) *plotter.Scatter {
	sc, _ := plotter.NewScatter(plotter.XYs{{}}) // one point cannot fail
	sc.Color, sc.Shape, sc.Radius = col, shape, radius
	return sc
}

func (r *report) addLegend(p *plot.Plot) {
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.XOffs = -vg.Points(4)
	if len(r.in) == 1 {
		p.Legend.Add("median, 95% interval", glyph(fileColors[0], draw.RingGlyph{}, vg.Points(3)))
		p.Legend.Add("winner", glyph(winnerColor, draw.CircleGlyph{}, vg.Points(4.5)))
		return
	}
	for f, input := range r.in {
		p.Legend.Add(input.label, glyph(r.color(f, false), draw.RingGlyph{}, vg.Points(3)))
	}
	p.Legend.Add("winner (filled)", glyph(color.Black, draw.CircleGlyph{}, vg.Points(4.5)))
}

// rooflineChart draws achieved GFLOP/s against arithmetic intensity, on
// log axes, under the roofs of rl.peak.
func (r *report) rooflineChart(rl *roofline) (*plot.Plot, vg.Length, error) {
	p := newPlot()
	p.Title.Text = "Roofline: " + rl.device
	p.X.Label.Text = "arithmetic intensity (FLOP/byte)"
	p.Y.Label.Text = "GFLOP/s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())

	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	widen := func(x, y float64) {
		xmin, xmax, ymin, ymax = min(xmin, x), max(xmax, x), min(ymin, y), max(ymax, y)
	}
	type layer struct {
		pts    plotter.XYs
		labels []string
	}
	var layers []func() error
	var placed plotter.XYs // labelled points, to keep labels apart
	for _, f := range rl.files {
		var others, winners layer
		for i := range r.in[f].file.Benchmarks {
			b := &r.in[f].file.Benchmarks[i]
			if !onRoof(b) {
				continue
			}
			pt := plotter.XY{X: b.Flops / b.Bytes, Y: b.GFLOPs}
			widen(pt.X, pt.Y)
			if b.Winner {
				label := b.Op
				if label == "" {
					label, _, _ = splitName(b)
				}
				winners.pts = append(winners.pts, pt)
				winners.labels = append(winners.labels, label)
			} else {
				others.pts = append(others.pts, pt)
			}
		}
		col, wcol := r.color(f, false), r.color(f, true)
		layers = append(layers, func() error {
			if len(others.pts) > 0 {
				sc, err := plotter.NewScatter(others.pts)
				if err != nil {
					return err
				}
				sc.Color, sc.Shape, sc.Radius = col, draw.RingGlyph{}, vg.Points(2.5)
				p.Add(sc)
			}
			if len(winners.pts) > 0 {
				sc, err := plotter.NewScatter(winners.pts)
				if err != nil {
					return err
				}
				sc.Color, sc.Shape, sc.Radius = wcol, draw.CircleGlyph{}, vg.Points(4)
				p.Add(sc)
				if len(r.in) > 1 {
					p.Legend.Add(r.in[f].label, sc)
				}
				for i, pt := range winners.pts {
					lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{pt}, Labels: winners.labels[i : i+1]})
					if err != nil {
						return err
					}
					lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(-4) - vg.Points(10)*vg.Length(crowded(placed, pt))}
					lb.TextStyle[0].Font = sansFont(9)
					lb.TextStyle[0].Color = wcol
					placed = append(placed, pt)
					p.Add(lb)
				}
			}
			return nil
		})
	}
	if len(r.in) == 1 {
		p.Legend.Add("winner", glyph(winnerColor, draw.CircleGlyph{}, vg.Points(4)))
		p.Legend.Add("other candidates", glyph(fileColors[0], draw.RingGlyph{}, vg.Points(2.5)))
	}
	pk := rl.peak
	ridge := 0.0
	if pk.BandwidthGBps > 0 && pk.GFLOPs > 0 {
		ridge = pk.GFLOPs / pk.BandwidthGBps
		widen(ridge, pk.GFLOPs)
	} else if pk.GFLOPs > 0 {
		ymax = max(ymax, pk.GFLOPs)
	}
	xmin, xmax = xmin/4, xmax*4
	ymin, ymax = ymin/4, ymax*3
	if pk.BandwidthGBps > 0 {
		// The memory roof starts inside the chart.
		ymin = min(ymin, pk.BandwidthGBps*xmin)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax

	var roof plotter.XYs
	switch {
	case ridge > 0:
		roof = plotter.XYs{{X: xmin, Y: pk.BandwidthGBps * xmin}, {X: ridge, Y: pk.GFLOPs}, {X: xmax, Y: pk.GFLOPs}}
	case pk.BandwidthGBps > 0:
		roof = plotter.XYs{{X: xmin, Y: pk.BandwidthGBps * xmin}, {X: xmax, Y: pk.BandwidthGBps * xmax}}
	default:
		roof = plotter.XYs{{X: xmin, Y: pk.GFLOPs}, {X: xmax, Y: pk.GFLOPs}}
	}
	line, err := plotter.NewLine(roof)
	if err != nil {
		return nil, 0, err
	}
	line.Color = roofColor
	line.Width = vg.Points(1.5)
	p.Add(line)
	// The roofs' labels: the memory roof's under its rising line, the
	// compute roof's over its flat one.
	addRoofLabel := func(pt plotter.XY, text string, dy vg.Length) error {
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{pt}, Labels: []string{text}})
		if err != nil {
			return err
		}
		lb.Offset = vg.Point{X: vg.Points(4), Y: dy}
		lb.TextStyle[0].Font = sansFont(9)
		lb.TextStyle[0].Color = roofColor
		p.Add(lb)
		return nil
	}
	if pk.BandwidthGBps > 0 {
		x := xmin * 1.3
		if err := addRoofLabel(plotter.XY{X: x, Y: pk.BandwidthGBps * x}, fmt.Sprintf("memory %.0f GB/s", pk.BandwidthGBps), vg.Points(-14)); err != nil {
			return nil, 0, err
		}
	}
	if pk.GFLOPs > 0 {
		x := max(ridge, xmin) * 1.3
		if err := addRoofLabel(plotter.XY{X: x, Y: pk.GFLOPs}, fmt.Sprintf("compute %.0f GFLOP/s", pk.GFLOPs), vg.Points(4)); err != nil {
			return nil, 0, err
		}
	}
	for _, add := range layers {
		if err := add(); err != nil {
			return nil, 0, err
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	return p, 11 * vg.Centimeter, nil
}

// panel is one chart with its notes under it, or notes alone.
type panel struct {
	plot   *plot.Plot
	height vg.Length
	notes  []string
}

func (r *report) panels() ([]panel, error) {
	var out []panel
	for _, g := range r.groups {
		p, h, err := r.candidateChart(g)
		if err != nil {
			return nil, err
		}
		out = append(out, panel{plot: p, height: h})
	}
	for i := range r.roofs {
		rl := &r.roofs[i]
		pn := panel{notes: rl.notes}
		if rl.drawn(r) {
			p, h, err := r.rooflineChart(rl)
			if err != nil {
				return nil, err
			}
			pn.plot, pn.height = p, h
		}
		out = append(out, pn)
	}
	return out, nil
}

// sansFont is the charts' font: sans-serif reads better at these sizes
// than gonum's default serif.
func sansFont(size vg.Length) font.Font {
	f := plot.DefaultFont
	f.Variant = "Sans"
	return font.From(f, size)
}

// newPlot is a plot in the charts' font.
func newPlot() *plot.Plot {
	p := plot.New()
	for _, s := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		s.Font = sansFont(s.Font.Size)
	}
	return p
}

// noteStyle is the style of the notes under a chart.
func noteStyle() text.Style {
	return text.Style{Color: color.Black, Font: sansFont(9), Handler: plot.DefaultTextHandler}
}

// wrapNote breaks a note into lines that fit the chart's width.
func wrapNote(s string, sty text.Style, width vg.Length) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		next := w
		if line != "" {
			next = line + " " + w
		}
		if line != "" && sty.Width(next) > width {
			lines = append(lines, line)
			next = w
		}
		line = next
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func (pn panel) lines(sty text.Style) []string {
	var out []string
	for _, n := range pn.notes {
		out = append(out, wrapNote(n, sty, chartWidth-vg.Centimeter)...)
	}
	return out
}

func (pn panel) totalHeight(sty text.Style) vg.Length {
	h := pn.height + vg.Length(len(pn.lines(sty)))*lineHeight
	if len(pn.notes) > 0 {
		h += vg.Points(8)
	}
	return h
}

// drawPanels draws the panels one under the other on c, whose height is
// the sum of theirs.
func drawPanels(c vg.CanvasSizer, panels []panel) {
	dc := draw.New(c)
	sty := noteStyle()
	y := dc.Max.Y
	for _, pn := range panels {
		top := y
		if pn.plot != nil {
			// gonum draws to the edges; leave a margin around each chart.
			pn.plot.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: dc.Min.X + vg.Points(6), Y: top - pn.height + vg.Points(4)},
				Max: vg.Point{X: dc.Max.X - vg.Points(12), Y: top - vg.Points(6)}}})
			y -= pn.height
		}
		y -= vg.Points(4)
		for _, l := range pn.lines(sty) {
			y -= lineHeight
			dc.FillText(sty, vg.Point{X: dc.Min.X + vg.Centimeter/2, Y: y}, l)
		}
		if len(pn.notes) > 0 {
			y -= vg.Points(4)
		}
		y = top - pn.totalHeight(sty)
	}
}

func heightOf(panels []panel) vg.Length {
	var h vg.Length
	sty := noteStyle()
	for _, pn := range panels {
		h += pn.totalHeight(sty)
	}
	return max(h, vg.Centimeter)
}

func (r *report) write(w io.Writer, format string) error {
	panels, err := r.panels()
	if err != nil {
		return err
	}
	switch format {
	case "svg":
		c := vgsvg.New(chartWidth, heightOf(panels))
		drawPanels(c, panels)
		_, err = c.WriteTo(w)
		return err
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(chartWidth, heightOf(panels)), vgimg.UseDPI(144), vgimg.UseBackgroundColor(color.White))
		drawPanels(c, panels)
		_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	}
	return r.writeHTML(w, panels)
}

// inlineSVG draws one panel's chart as SVG to put inside an HTML page.
func inlineSVG(pn panel) (template.HTML, error) {
	if pn.plot == nil {
		return "", nil
	}
	c := vgsvg.New(chartWidth, pn.height)
	drawPanels(c, []panel{{plot: pn.plot, height: pn.height}})
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:] // drop the XML declaration and comment, which HTML does not want
	}
	return template.HTML(s), nil //nolint:gosec // drawn here; vgsvg escapes every text
}

type htmlRow struct {
	File, Candidate, Outcome, Median, CI, GBps, GFLOPs, Peak, Note string
	Winner                                                         bool
}

type htmlSection struct {
	Title string
	SVG   template.HTML
	Rows  []htmlRow
	Notes []string
}

type htmlFile struct {
	Label, Device, Hardware, Driver, Mode, Version, Time string
	Seed                                                 uint64
	Benchmarks                                           int
}

func (r *report) writeHTML(w io.Writer, panels []panel) error {
	var page struct {
		Version  string
		Several  bool
		Files    []htmlFile
		Sections []htmlSection
	}
	page.Version = version
	page.Several = len(r.in) > 1
	for _, input := range r.in {
		f := input.file
		hf := htmlFile{Label: input.label, Device: f.Device.Name, Hardware: f.Device.Hardware, Driver: f.Device.Driver,
			Mode: f.Mode, Version: f.Version, Seed: f.Seed, Benchmarks: len(f.Benchmarks)}
		if !f.Time.IsZero() {
			hf.Time = f.Time.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		page.Files = append(page.Files, hf)
	}
	for i, g := range r.groups {
		svg, err := inlineSVG(panels[i])
		if err != nil {
			return err
		}
		sec := htmlSection{Title: g.title, SVG: svg}
		for _, c := range g.cands {
			for f, b := range g.at[c] {
				if b == nil {
					sec.Rows = append(sec.Rows, htmlRow{File: r.in[f].label, Candidate: c, Outcome: "absent"})
					continue
				}
				row := htmlRow{File: r.in[f].label, Candidate: c, Outcome: string(b.Outcome), Winner: b.Winner,
					Median: "-", CI: "-", GBps: "-", GFLOPs: "-", Peak: "-", Note: b.Error}
				if measured(b) {
					row.Median = fmtSeconds(b.Stats.Median)
					row.CI = ciText(*b.Stats)
				}
				if b.GBps > 0 {
					row.GBps = fmt.Sprintf("%.3g", b.GBps)
				}
				if b.GFLOPs > 0 {
					row.GFLOPs = fmt.Sprintf("%.3g", b.GFLOPs)
				}
				if b.PercentPeak > 0 {
					row.Peak = fmt.Sprintf("%.0f%%", b.PercentPeak)
				}
				if len(b.Flags) > 0 {
					row.Note = strings.TrimSpace("[" + strings.Join(b.Flags, ",") + "] " + row.Note)
				}
				sec.Rows = append(sec.Rows, row)
			}
		}
		page.Sections = append(page.Sections, sec)
	}
	for i := range r.roofs {
		rl := &r.roofs[i]
		svg, err := inlineSVG(panels[len(r.groups)+i])
		if err != nil {
			return err
		}
		title := "Roofline: " + rl.device
		if rl.device == "" {
			title = "Roofline"
		}
		page.Sections = append(page.Sections, htmlSection{Title: title, SVG: svg, Notes: slices.Clone(rl.notes)})
	}
	return reportPage.Execute(w, page)
}

var reportPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>vkbench report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 2em; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.2em 0.6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.winner td { font-weight: bold; }
svg { max-width: 100%; height: auto; }
p.note { color: #555; }
</style>
</head>
<body>
<h1>vkbench report</h1>
<p>Drawn by vkbench {{.Version}}. Each chart shows every candidate's median time per run with its 95% confidence interval (lower is better); the winner is filled (★ in the tables).{{if .Several}} The files overlay: one point per file, in the file's colour.{{end}}</p>
<table>
<tr><th>file</th><th>device</th><th>hardware</th><th>driver</th><th>mode</th><th>seed</th><th>measured</th><th>vkbench</th><th>benchmarks</th></tr>
{{- range .Files}}
<tr><td>{{.Label}}</td><td>{{.Device}}</td><td>{{.Hardware}}</td><td>{{.Driver}}</td><td>{{.Mode}}</td><td class="num">{{.Seed}}</td><td>{{.Time}}</td><td>{{.Version}}</td><td class="num">{{.Benchmarks}}</td></tr>
{{- end}}
</table>
{{- range .Sections}}
<section>
<h2>{{.Title}}</h2>
{{- if .SVG}}
<figure>
{{.SVG}}</figure>
{{- end}}
{{- range .Notes}}
<p class="note">{{.}}</p>
{{- end}}
{{- if .Rows}}
<table>
<tr>{{if $.Several}}<th>file</th>{{end}}<th></th><th>candidate</th><th>outcome</th><th>median</th><th>95% CI</th><th>GB/s</th><th>GFLOP/s</th><th>% peak</th><th>note</th></tr>
{{- range .Rows}}
<tr{{if .Winner}} class="winner"{{end}}>{{if $.Several}}<td>{{.File}}</td>{{end}}<td>{{if .Winner}}★{{end}}</td><td>{{.Candidate}}</td><td>{{.Outcome}}</td><td class="num">{{.Median}}</td><td class="num">{{.CI}}</td><td class="num">{{.GBps}}</td><td class="num">{{.GFLOPs}}</td><td class="num">{{.Peak}}</td><td>{{.Note}}</td></tr>
{{- end}}
</table>
{{- end}}
</section>
{{- end}}
</body>
</html>
`))

// crowded counts the labelled points so near pt (on log axes) that their
// labels would overlap pt's; pt's label goes that many lines lower.
func crowded(placed plotter.XYs, pt plotter.XY) int {
	n := 0
	for _, q := range placed {
		if math.Abs(math.Log10(q.X/pt.X)) < 0.5 && math.Abs(math.Log10(q.Y/pt.Y)) < 0.12 {
			n++
		}
	}
	return n
}
