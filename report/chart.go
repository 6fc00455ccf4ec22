package report

import (
	"fmt"
	"image/color"
	"math"
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
				what += ": " + Reason(b.Error, cand)
			}
		default:
			continue
		}
		if len(r.in) > 1 {
			what += " in " + r.in[f].Label
		}
		notes = append(notes, what)
	}
	label := cand
	if len(notes) > 0 {
		label += " (" + strings.Join(notes, "; ") + ")"
	}
	return OneLine(label, 72)
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
		p.Title.Text += " — " + r.in[0].Label
	}
	p.X.Label.Text = fmt.Sprintf("time per run (%s), lower is better", unit)
	// Ending at the axis's right end, the label stays inside the chart
	// when long candidate names leave the axis narrower than it.
	p.X.Label.Position = draw.PosRight
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
			var sc *plotter.Scatter
			if winner {
				bars.Width = vg.Points(1.5)
				sc, err = newScatter(pts, col, draw.CircleGlyph{}, vg.Points(4.5))
			} else {
				sc, err = newScatter(pts, col, draw.RingGlyph{}, vg.Points(3))
			}
			if err != nil {
				return nil, 0, err
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

// newScatter draws pts as glyphs of shape, radius and col.
func newScatter(pts plotter.XYs, col color.Color, shape draw.GlyphDrawer, radius vg.Length) (*plotter.Scatter, error) {
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.Color, sc.Shape, sc.Radius = col, shape, radius
	return sc, nil
}

// glyph is a legend's sample of a scatter's glyph.
func glyph(col color.Color, shape draw.GlyphDrawer, radius vg.Length) *plotter.Scatter {
	sc, _ := newScatter(plotter.XYs{{}}, col, shape, radius) // one point cannot fail
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
		p.Legend.Add(input.Label, glyph(r.color(f, false), draw.RingGlyph{}, vg.Points(3)))
	}
	p.Legend.Add("winner (filled)", glyph(color.Black, draw.CircleGlyph{}, vg.Points(4.5)))
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
			// gonum draws to the edges; leave a margin around each chart,
			// wider on the right, where text ends against the edge and a
			// browser without the charts' font draws it in a wider one.
			pn.plot.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: dc.Min.X + vg.Points(6), Y: top - pn.height + vg.Points(4)},
				Max: vg.Point{X: dc.Max.X - vg.Points(24), Y: top - vg.Points(6)}}})
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
