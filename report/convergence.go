package report

import (
	"cmp"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/vkbench/vkbench/search"
)

// Convergence draws the convergence of the searches in tuning logs
// (vkbench cache export-log, vkbench replay --format log) as format to
// w: the best figure found against the evaluations, one line a search,
// one colour a strategy, and a dashed line at the best any log recorded.
// The figure is the one the logs' searches ranked by (TuneLog.Objective):
// the median time, or by energy the joules per run, by edp energy × time;
// time where the logs name different ones or a verified record lacks its
// energy, as a replay falls back. It returns the number of searches
// drawn.
func Convergence(w io.Writer, format Format, logs []*search.TuneLog, opts Options) (searches int, err error) {
	if len(logs) == 0 {
		return 0, fmt.Errorf("%w: no tuning log", ErrNothing)
	}
	p, lines, err := convergencePlot(logs)
	if err != nil {
		return 0, err
	}
	if err := writeChart(w, p, format, opts.Version); err != nil {
		return 0, err
	}
	return lines, nil
}

// strategyColors colour each strategy's searches.
var strategyColors = map[string]color.Color{
	search.Exhaustive: color.RGBA{0x55, 0x55, 0x55, 0xff},
	search.Random:     color.RGBA{0xe6, 0x9f, 0x00, 0xff},
	search.Anneal:     color.RGBA{0x00, 0x9e, 0x73, 0xff},
	search.Bayes:      color.RGBA{0x00, 0x72, 0xb2, 0xff},
}

// convergencePlot draws every search of the logs: after each evaluation,
// the best verified figure so far by the logs' objective, in the unit
// that suits the best recorded; a dashed line marks that best.
func convergencePlot(ls []*search.TuneLog) (*plot.Plot, int, error) {
	obj := convergenceObjective(ls)
	lines, best := convergenceLines(ls, obj)
	if len(lines) == 0 {
		return nil, 0, fmt.Errorf("%w: the tuning logs hold no search with a verified configuration", ErrNothing)
	}
	scale, unit := objectiveUnit(obj, best)
	what := map[string]string{"": "fastest time", "energy": "least energy per run", "edp": "least energy × time"}[obj]
	title := "Search convergence: " + ls[0].Header.Key + " on " + deviceName(ls[0].Header)
	p := newPlot(title, "evaluations", fmt.Sprintf("%s so far (%s), lower is better", what, unit))
	legend := map[string]bool{}
	for _, sl := range lines {
		for i := range sl.xy {
			sl.xy[i].Y *= scale
		}
		line, err := plotter.NewLine(sl.xy)
		if err != nil {
			return nil, 0, err
		}
		line.Color = cmp.Or(strategyColors[sl.strategy], color.Color(color.Black))
		line.Width = vg.Points(1.2)
		line.StepStyle = plotter.PostStep
		p.Add(line)
		if !legend[sl.strategy] {
			legend[sl.strategy] = true
			p.Legend.Add(sl.strategy, line)
		}
	}
	ref, err := plotter.NewLine(plotter.XYs{{X: 1, Y: best * scale}, {X: p.X.Max, Y: best * scale}})
	if err != nil {
		return nil, 0, err
	}
	ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	ref.Color = color.Gray{Y: 0x99}
	p.Add(ref)
	recorded := map[string]string{"": "fastest recorded", "energy": "least energy recorded", "edp": "least energy × time recorded"}[obj]
	p.Legend.Add(fmt.Sprintf("%s, %.3f %s", recorded, best*scale, unit), ref)
	p.Legend.Top = true
	p.Y.Min = best * scale * 0.98
	p.Y.Max = min(p.Y.Max, best*scale*2)
	return p, len(lines), nil
}

// searchLine is a search's convergence: its strategy, and after each
// evaluation from its first verified one, the best figure so far.
type searchLine struct {
	strategy string
	xy       plotter.XYs
}

// convergenceLines returns the convergence of every search of the logs
// with a verified configuration, by objective obj, and the best figure
// any log recorded.
func convergenceLines(ls []*search.TuneLog, obj string) ([]searchLine, float64) {
	var lines []searchLine
	best := math.Inf(1)
	for _, l := range ls {
		by := map[string]search.LogRecord{}
		for _, e := range l.Evals {
			by[e.Name] = e
		}
		for _, v := range search.BestSoFar(l.Evals, obj) {
			best = min(best, v)
		}
		for _, s := range l.Searches {
			var evals []search.LogRecord
			for _, name := range s.Order {
				evals = append(evals, by[name])
			}
			sl := searchLine{strategy: s.Strategy}
			for k, b := range search.BestSoFar(evals, obj) {
				if !math.IsInf(b, 1) {
					sl.xy = append(sl.xy, plotter.XY{X: float64(k + 1), Y: b})
				}
			}
			if len(sl.xy) > 0 {
				lines = append(lines, sl)
			}
		}
	}
	return lines, best
}

// convergenceObjective is what the logs' searches are drawn by: the
// objective their last searches picked by, "energy" or "edp", where the
// logs agree on it and every verified record has its energy; else time
// (""), as a replay of such a log ranks by time.
func convergenceObjective(ls []*search.TuneLog) string {
	obj := ls[0].Objective()
	for _, l := range ls {
		if l.Objective() != obj {
			return ""
		}
		for _, e := range l.Evals {
			if _, _, _, ok := e.ObjectiveValue(obj); e.Verified() && !ok {
				return ""
			}
		}
	}
	return obj
}

// objectiveUnit is the unit a chart gives figures by objective obj in, up
// to about top, and the factor that turns a figure into it: ms for times,
// J, mJ, µJ or nJ for energies, and those times s for energy × time.
func objectiveUnit(obj string, top float64) (float64, string) {
	if obj != "energy" && obj != "edp" {
		return 1e3, "ms"
	}
	scale, unit := 1e9, "nJ"
	switch {
	case top >= 1:
		scale, unit = 1, "J"
	case top >= 1e-3:
		scale, unit = 1e3, "mJ"
	case top >= 1e-6:
		scale, unit = 1e6, "µJ"
	}
	if obj == "edp" {
		unit += "·s"
	}
	return scale, unit
}

// deviceName is the name of the device a log's searches ran on, as the
// driver gives it ("llvmpipe (LLVM 15.0.6, 256 bits)"), from the header's
// "index:name:uuid"; the hardware's key where the header names no
// device.
func deviceName(h search.LogHeader) string {
	_, rest, ok := strings.Cut(h.Device, ":")
	if i := strings.LastIndex(rest, ":"); ok && i > 0 {
		return rest[:i]
	}
	return h.Table.Hardware
}

// convergenceHeight is the chart's height.
const convergenceHeight = 11 * vg.Centimeter

// writeChart writes one chart as svg, png or an HTML page around the svg.
func writeChart(w io.Writer, p *plot.Plot, format Format, version string) error {
	// Drawn as a panel, with its margins: on the whole canvas the axis's
	// label and the legend touched its edges.
	pn := panel{plot: p, height: convergenceHeight}
	if format != HTML {
		return writeCanvas(w, format, []panel{pn})
	}
	svg, err := pn.svg()
	if err != nil {
		return err
	}
	page := template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body><h1>{{.Title}}</h1>{{.SVG}}<p>vkbench {{.Version}}</p></body></html>
`))
	return page.Execute(w, struct {
		Title, Version string
		SVG            template.HTML
	}{p.Title.Text, version, svg})
}
