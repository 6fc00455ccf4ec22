package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vkbench/vkbench/results"
)

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
	winnerColor  = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	droppedColor = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
	roofColor    = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
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

// distinctTicks are gonum's default ticks with labels precise enough to
// tell apart (gonum rounds 1.35 and 1.4 both to "1.4").
type distinctTicks struct{}

func (distinctTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for prec := 0; prec <= 6; prec++ {
		labelled, seen, ok := slices.Clone(ticks), map[string]bool{}, true
		for i, t := range ticks {
			if t.Label == "" {
				continue
			}
			l := strconv.FormatFloat(t.Value, 'f', prec, 64)
			v, _ := strconv.ParseFloat(l, 64) // formatted just before
			ok = ok && !seen[l] && math.Abs(t.Value-v) <= 1e-9*math.Max(1, math.Abs(t.Value))
			seen[l], labelled[i].Label = true, l
		}
		if ok {
			return labelled
		}
	}
	return ticks
}

// dropShown is how much slower than the winner a candidate dropped early
// may be and still be drawn: its chart is for telling the close ones
// apart.
const dropShown = 1.25

// drawn reports whether b, of file f, has a point on g's chart: it was
// measured to the end, or dropped early as slower but within dropShown of
// the winner. Other candidates dropped early, those that failed and those
// the device cannot run are kept off the chart's scale (a slow candidate
// dropped early once squeezed every other into the first pixels): the
// notes under the chart say what became of them.
func (g *opGroup) drawn(f int, b *results.Benchmark) bool {
	if !measured(b) {
		return false
	}
	switch b.Outcome {
	case results.Measured:
		return true
	case results.Dropped:
		w := g.winner(f)
		return w != "" && measured(g.at[w][f]) && b.Stats.Median <= dropShown*g.at[w][f].Stats.Median
	}
	return false
}

// winner is the candidate that won g in file f, "" where none did.
func (g *opGroup) winner(f int) string {
	for _, c := range g.cands {
		if b := g.at[c][f]; b != nil && b.Winner {
			return c
		}
	}
	return ""
}

// droppedDrawn reports whether any candidate dropped early has a point.
func (g *opGroup) droppedDrawn() bool {
	for _, bs := range g.at {
		for f, b := range bs {
			if b != nil && b.Outcome == results.Dropped && g.drawn(f, b) {
				return true
			}
		}
	}
	return false
}

// rows are the candidates of g that have a point in some file.
func (g *opGroup) rows() []string {
	var out []string
	for _, c := range g.cands {
		for f, b := range g.at[c] {
			if g.drawn(f, b) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// timeAxis is the extent of a chart's time axis, in seconds: every
// median, and the intervals as far as they do not take the axis from
// them (an interval of ±100% would leave ten medians in a corner). A bar
// that goes past the axis is cut at its end.
func (g *opGroup) timeAxis() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	var bounds [][2]float64
	for _, bs := range g.at {
		for f, b := range bs {
			if g.drawn(f, b) {
				lo, hi = min(lo, b.Stats.Median), max(hi, b.Stats.Median)
				if b.Stats.HasInterval() {
					bounds = append(bounds, [2]float64{b.Stats.Lo, b.Stats.Hi})
				}
			}
		}
	}
	span := max(hi-lo, 0.1*hi)
	lo, hi = axisExtent(lo, hi, 0.35*span, 0.05*span, bounds)
	return max(0, lo), hi
}

// axisExtent is the extent of an axis that holds [lo, hi] and the
// intervals of bounds as far as reach beyond it, widened by least on
// either side where that leaves it empty, with a margin.
func axisExtent(lo, hi, reach, least float64, bounds [][2]float64) (float64, float64) {
	ilo, ihi := lo, hi
	for _, b := range bounds {
		ilo, ihi = min(ilo, max(b[0], lo-reach)), max(ihi, min(b[1], hi+reach))
	}
	if ilo == ihi {
		ilo, ihi = ilo-least, ihi+least
	}
	pad := 0.06 * (ihi - ilo)
	return ilo - pad, ihi + pad
}

// rowChart is a chart of a row per label, top down, against a horizontal
// axis from lo to hi named xLabel.
func rowChart(title, xLabel string, labels []string, lo, hi float64, ticks plot.Ticker) *plot.Plot {
	p := newPlot(title, xLabel, "")
	// Ending at the axis's right end, the label stays inside the chart
	// when long row names leave the axis narrower than it.
	p.X.Label.Position = draw.PosRight
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.X.Tick.Marker = ticks
	p.Add(plotter.NewGrid())
	n := len(labels)
	names := make([]string, n)
	for i, l := range labels {
		names[n-1-i] = OneLine(l, 40)
	}
	p.NominalY(names...)
	// Every row on the axis, half a row from either end. Spanned by the
	// points alone, gonum's axis left off the name of a row whose points
	// lay inside its line: a first row drawn for the second of two files
	// only (offset below the line) lost its name, its point up by the
	// title.
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	return p
}

// candidatePanel draws one operation: a row per candidate measured, top
// down as order ranks them, with a point per file at the median and a bar
// over the 95% interval, on an axis that the measured candidates span.
// Where no candidate was measured it is its notes alone.
func (r *report) candidatePanel(g *opGroup) (panel, error) {
	pn := panel{title: g.title, notes: r.groupNotes(g)}
	rows := g.rows()
	if len(rows) == 0 {
		return pn, nil
	}
	lo, hi := g.timeAxis()
	scale, unit := timeUnit(hi)
	title := g.title
	if len(r.in) == 1 {
		title += " — " + r.in[0].Label
	}
	p := rowChart(title, fmt.Sprintf("time per run (%s), lower is better", unit), rows, lo*scale, hi*scale, distinctTicks{})
	n := len(rows)

	for f := range r.in {
		offset := 0.0
		if len(r.in) > 1 {
			offset = 0.3 * (float64(len(r.in)-1)/2 - float64(f)) / float64(len(r.in)-1)
		}
		for _, kind := range []results.Outcome{results.Dropped, results.Measured, winnerKind} {
			var pts plotter.XYs
			var errs plotter.XErrors
			for i, c := range rows {
				b := g.at[c][f]
				if !g.drawn(f, b) || kindOf(b) != kind {
					continue
				}
				s := b.Stats
				pts = append(pts, plotter.XY{X: s.Median * scale, Y: float64(n-1-i) + offset})
				blo, bhi := s.Median, s.Median // no bar without an interval
				if s.HasInterval() {
					blo, bhi = max(s.Lo, lo), min(s.Hi, hi)
				}
				errs = append(errs, struct{ Low, High float64 }{(s.Median - blo) * scale, (bhi - s.Median) * scale})
			}
			if len(pts) == 0 {
				continue
			}
			col := r.color(f, kind == winnerKind)
			if kind == results.Dropped {
				col = droppedColor
			}
			if err := addSeries(p, pts, errs, col, kind == winnerKind); err != nil {
				return panel{}, err
			}
		}
	}
	pn.plot, pn.height, pn.legend = p, chartChrome+rowPitch*vg.Length(n)+legendHeight, r.legend(g)
	return pn, nil
}

// winnerKind is the winner's series, drawn over the others.
const winnerKind results.Outcome = "winner"

func kindOf(b *results.Benchmark) results.Outcome {
	if b.Winner {
		return winnerKind
	}
	return b.Outcome
}

// addSeries draws points with their interval bars in col, filled and
// larger for winners.
func addSeries(p *plot.Plot, pts plotter.XYs, errs plotter.XErrors, col color.Color, winner bool) error {
	bars, err := plotter.NewXErrorBars(struct {
		plotter.XYs
		plotter.XErrors
	}{pts, errs})
	if err != nil {
		return err
	}
	bars.Color = col
	bars.CapWidth = 0.25 * rowPitch
	p.Add(bars)
	if winner {
		bars.Width = vg.Points(1.5)
		return addScatter(p, pts, col, dot)
	}
	return addScatter(p, pts, col, ring)
}

// legend is what a candidate chart's marks mean: drawn above the chart,
// never over its data.
func (r *report) legend(g *opGroup) []legendEntry {
	var out []legendEntry
	if g.droppedDrawn() {
		out = append(out, legendEntry{"dropped early", droppedColor, ring})
	}
	if len(r.in) == 1 {
		return append(out, legendEntry{"median, 95% interval", fileColors[0], ring}, legendEntry{"winner", winnerColor, dot})
	}
	for f, input := range r.in {
		out = append(out, legendEntry{input.Label, r.color(f, false), ring})
	}
	return append(out, legendEntry{"winner (filled)", color.Black, dot})
}

// legendEntry is a legend's glyph and its text.
type legendEntry struct {
	text string
	col  color.Color
	mark
}

// mark is a point's glyph: a ring, or a dot for a winner (smaller on a
// roofline, whose points crowd).
type mark struct {
	shape  draw.GlyphDrawer
	radius vg.Length
}

var (
	ring     = mark{draw.RingGlyph{}, vg.Points(3)}
	dot      = mark{draw.CircleGlyph{}, vg.Points(4.5)}
	roofRing = mark{draw.RingGlyph{}, vg.Points(2.5)}
	roofDot  = mark{draw.CircleGlyph{}, vg.Points(4)}
)

// legendHeight is the strip above a chart that its legend takes.
const legendHeight = 14

// drawLegend draws entries in a row, ending at the right of the strip
// whose top is top.
func drawLegend(dc draw.Canvas, entries []legendEntry, top vg.Length) {
	sty := noteStyle()
	sty.Font = sansFont(10)
	x := dc.Max.X - vg.Points(24)
	y := top - vg.Points(legendHeight) + vg.Points(3)
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		x -= sty.Width(e.text)
		dc.FillText(sty, vg.Point{X: x, Y: y}, e.text)
		x -= vg.Points(10)
		dc.DrawGlyph(draw.GlyphStyle{Color: e.col, Radius: e.radius, Shape: e.shape}, vg.Point{X: x, Y: y + vg.Points(3.5)})
		x -= vg.Points(16)
	}
}

func addScatter(p *plot.Plot, pts plotter.XYs, col color.Color, m mark) error {
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.Color, sc.Shape, sc.Radius = col, m.shape, m.radius
	p.Add(sc)
	return nil
}

// panel is one chart with its notes under it, or notes alone; a
// candidate chart has its legend above it. Its title is its section's,
// in a page.
type panel struct {
	title  string
	plot   *plot.Plot
	height vg.Length
	legend []legendEntry
	notes  []string
}

func (r *report) panels() ([]panel, error) {
	var out []panel
	var first error
	keep := func(pn panel, err error) {
		out, first = append(out, pn), cmp.Or(first, err)
	}
	for _, g := range r.groups {
		keep(r.candidatePanel(g))
	}
	for i := range r.roofs {
		keep(r.rooflinePanel(&r.roofs[i]))
	}
	for _, ab := range r.abs {
		keep(abPanel(ab))
	}
	return out, first
}

// sansFont is the charts' font: sans-serif reads better at these sizes
// than gonum's default serif.
func sansFont(size vg.Length) font.Font {
	f := plot.DefaultFont
	f.Variant = "Sans"
	return font.From(f, size)
}

// newPlot is a plot in the charts' font, with its title and its axes'
// labels.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	for _, s := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		s.Font = sansFont(s.Font.Size)
	}
	return p
}

func noteStyle() text.Style {
	return text.Style{Color: color.Black, Font: sansFont(9), Handler: plot.DefaultTextHandler}
}

// lines are the panel's notes, each broken into lines that fit the
// chart's width.
func (pn panel) lines(sty text.Style) []string {
	var lines []string
	for _, note := range pn.notes {
		first := len(lines)
		for _, w := range strings.Fields(note) {
			if n := len(lines); n > first && sty.Width(lines[n-1]+" "+w) <= chartWidth-vg.Centimeter {
				lines[n-1] += " " + w
			} else {
				lines = append(lines, w)
			}
		}
	}
	return lines
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
			ptop := top
			if len(pn.legend) > 0 {
				drawLegend(dc, pn.legend, top)
				ptop -= legendHeight
			}
			// gonum draws to the edges; leave a margin around each chart,
			// wider on the right, where text ends against the edge and a
			// browser without the charts' font draws it in a wider one.
			area := vg.Rectangle{
				Min: vg.Point{X: dc.Min.X + vg.Points(6), Y: top - pn.height + vg.Points(4)},
				Max: vg.Point{X: dc.Max.X - vg.Points(24), Y: ptop - vg.Points(6)}}
			// gonum centres the title on the chart however wide it is: one
			// longer than the chart is cut to fit, its start kept.
			p := *pn.plot
			p.Title.Text = fitText(p.Title.TextStyle, p.Title.Text, area.Size().X)
			p.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: area})
			y -= pn.height
		}
		y -= vg.Points(4)
		for _, l := range pn.lines(sty) {
			y -= lineHeight
			dc.FillText(sty, vg.Point{X: dc.Min.X + vg.Centimeter/2, Y: y}, l)
		}
		y = top - pn.totalHeight(sty)
	}
}

// fitText is s, cut with an ellipsis where it is wider than width in sty.
func fitText(sty text.Style, s string, width vg.Length) string {
	r := []rune(s)
	for n := len(r); sty.Width(s) > width && n > 1; n-- {
		s = strings.TrimRight(string(r[:n-1]), " ,:;") + "…"
	}
	return s
}
