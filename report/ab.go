package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/vkbench/vkbench/results"
)

// parseAB decodes data as ab's report where it names ab's format
// ("schema": "vkbench.ab/..."), and reports whether it does.
func parseAB(data []byte) (*results.ABReport, bool, error) {
	var head struct {
		Schema string `json:"schema"`
	}
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) || json.Unmarshal(data, &head) != nil || !strings.HasPrefix(head.Schema, "vkbench.ab/") {
		return nil, false, nil
	}
	rep, err := results.ParseAB(data)
	return rep, true, err
}

// Colours of ab's verdicts: what fails a gate in red, a pair shown
// faster in green, one within the threshold in blue, the rest grey.
var (
	slowerColor  = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	fasterColor  = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	unclearColor = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
)

func verdictColor(v results.Verdict) color.Color {
	switch {
	case v.Fails():
		return slowerColor
	case v == results.Faster:
		return fasterColor
	case v == results.Unclear:
		return unclearColor
	}
	return fileColors[0]
}

// abPanel draws an ab report: a row per pair, its ratio NEW/OLD with the
// ratio's 95% interval, in its verdict's colour, against lines at 1 (no
// change) and at 1 ± the threshold; pairs without a ratio are notes, by
// verdict, with why.
func abPanel(in Input) (panel, error) {
	rep := in.AB
	pn := panel{title: fmt.Sprintf("ab: %s against %s — %s", rep.New, rep.Old, in.Label)}
	// The axis holds the ratios and the threshold's lines, and the
	// intervals as far as half that span again: one interval of a pair
	// measured in few rounds would otherwise take the axis from the rest.
	lo, hi := 1-rep.Threshold, 1+rep.Threshold
	var rows []results.ABRow
	var labels []string
	var bounds [][2]float64
	for _, row := range rep.Rows {
		if row.Ratio > 0 {
			rows, labels = append(rows, row), append(labels, row.Name)
			lo, hi = min(lo, row.Ratio), max(hi, row.Ratio)
			if row.HasBounds() {
				bounds = append(bounds, [2]float64{row.Lo, row.Hi})
			}
			continue
		}
		note := fmt.Sprintf("%s: %s", row.Name, row.Verdict)
		if row.Note != "" {
			note += ": " + Reason(row.Note, row.Candidate)
		}
		pn.notes = append(pn.notes, note+".")
	}
	if len(rows) == 0 {
		return pn, nil
	}
	lo, hi = axisExtent(lo, hi, 0.5*(hi-lo), 0, bounds)
	p := rowChart(pn.title, "time NEW/OLD, with its 95% interval (above 1: NEW slower)", labels, lo, hi, oneTicked{})
	n := len(rows)
	for _, x := range []float64{1 - rep.Threshold, 1, 1 + rep.Threshold} {
		line, err := plotter.NewLine(plotter.XYs{{X: x, Y: -0.5}, {X: x, Y: float64(n) - 0.5}})
		if err != nil {
			return panel{}, err
		}
		line.Color = roofColor
		if x != 1 {
			line.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		}
		p.Add(line)
	}
	for i, row := range rows {
		pt := plotter.XYs{{X: row.Ratio, Y: float64(n - 1 - i)}}
		errs := plotter.XErrors{{Low: 0, High: 0}}
		if row.HasBounds() {
			errs[0].Low, errs[0].High = row.Ratio-max(row.Lo, lo), min(row.Hi, hi)-row.Ratio
		}
		if err := addSeries(p, pt, errs, verdictColor(row.Verdict), row.Verdict.Fails()); err != nil {
			return panel{}, err
		}
	}
	pn.plot, pn.height = p, chartChrome+rowPitch*vg.Length(n)+legendHeight
	pn.legend = []legendEntry{
		{"slower, wrong or failed", slowerColor, dot},
		{"faster", fasterColor, ring},
		{"within " + strconv.FormatFloat(rep.Threshold*100, 'f', -1, 64) + "%", fileColors[0], ring},
		{"unclear", unclearColor, ring},
	}
	return pn, nil
}

// abRow is a pair in an ab section's table.
type abRow struct {
	Pair, Verdict, Old, New, Ratio, Interval, Note string
	Fails                                          bool
}

// abTable adds an ab report's table to its section: a row per pair, its
// medians in one unit, its ratio and interval, its verdict.
func abTable(sec *htmlSection, in Input) {
	top := 0.0
	for _, row := range in.AB.Rows {
		top = max(top, row.OldMedian, row.NewMedian)
	}
	var num func(float64) string
	num, _, sec.TimeUnit = timeColumn(top)
	for _, row := range in.AB.Rows {
		r := abRow{Pair: row.Name, Verdict: string(row.Verdict), Old: num(row.OldMedian), New: num(row.NewMedian),
			Ratio: "-", Interval: "-", Note: Reason(row.Note, row.Candidate), Fails: row.Verdict.Fails()}
		if row.Ratio > 0 {
			r.Ratio = fmt.Sprintf("%.3f", row.Ratio)
		}
		if row.HasBounds() {
			r.Interval = fmt.Sprintf("[%.3f, %.3f]", row.Lo, row.Hi)
		}
		sec.ABRows = append(sec.ABRows, r)
	}
}

// oneTicked is distinctTicks with 1, where no slower and no faster meet,
// always labelled: the default ticks may leave it a minor, unlabelled one.
type oneTicked struct{}

func (oneTicked) Ticks(lo, hi float64) []plot.Tick {
	ticks := distinctTicks{}.Ticks(lo, hi)
	if lo > 1 || hi < 1 {
		return ticks
	}
	label := "1"
	for _, t := range ticks {
		if _, frac, ok := strings.Cut(t.Label, "."); ok {
			label = "1." + strings.Repeat("0", len(frac))
			break
		}
	}
	for i := range ticks {
		if math.Abs(ticks[i].Value-1) < 1e-9 {
			ticks[i].Label = label
			return ticks
		}
	}
	return append(ticks, plot.Tick{Value: 1, Label: label})
}
