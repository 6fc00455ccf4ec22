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
// w: the best time found against the evaluations, one line a search, one
// colour a strategy, and a dashed line at the fastest any log recorded.
// It returns the number of searches drawn.
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
// the fastest verified median so far, in ms; a dashed line marks the
// fastest any log recorded.
func convergencePlot(ls []*search.TuneLog) (*plot.Plot, int, error) {
	title := "Search convergence: " + ls[0].Header.Key + " on " + deviceName(ls[0].Header)
	p := newPlot(title, "evaluations", "fastest time so far (ms), lower is better")
	best := math.Inf(1)
	lines := 0
	legend := map[string]bool{}
	for _, l := range ls {
		by := map[string]search.LogRecord{}
		for _, e := range l.Evals {
			by[e.Name] = e
			if e.Verified() {
				best = min(best, e.Stats.Median)
			}
		}
		for _, s := range l.Searches {
			var evals []search.LogRecord
			for _, name := range s.Order {
				evals = append(evals, by[name])
			}
			xy := plotter.XYs{}
			for k, b := range search.BestSoFar(evals) {
				if !math.IsInf(b, 1) {
					xy = append(xy, plotter.XY{X: float64(k + 1), Y: b * 1e3})
				}
			}
			if len(xy) == 0 {
				continue
			}
			line, err := plotter.NewLine(xy)
			if err != nil {
				return nil, 0, err
			}
			line.Color = cmp.Or(strategyColors[s.Strategy], color.Color(color.Black))
			line.Width = vg.Points(1.2)
			line.StepStyle = plotter.PostStep
			p.Add(line)
			lines++
			if !legend[s.Strategy] {
				legend[s.Strategy] = true
				p.Legend.Add(s.Strategy, line)
			}
		}
	}
	if lines == 0 {
		return nil, 0, fmt.Errorf("%w: the tuning logs hold no search with a verified configuration", ErrNothing)
	}
	ref, err := plotter.NewLine(plotter.XYs{{X: 1, Y: best * 1e3}, {X: p.X.Max, Y: best * 1e3}})
	if err != nil {
		return nil, 0, err
	}
	ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	ref.Color = color.Gray{Y: 0x99}
	p.Add(ref)
	p.Legend.Add(fmt.Sprintf("fastest recorded, %.3f ms", best*1e3), ref)
	p.Legend.Top = true
	p.Y.Min = best * 1e3 * 0.98
	p.Y.Max = min(p.Y.Max, best*1e3*2)
	return p, lines, nil
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
