package report

import (
	"bytes"
	"html/template"
	"image/color"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/vkbench/vkbench/results"
)

// writeCanvas draws panels one under the other, the charts' width and
// their height, and writes them to w as svg or png. An SVG's font family is
// followed by the families of the same metrics (Liberation Sans is drawn
// to Arial's and Helvetica's widths): the layout was measured with the
// first, and a browser without it would otherwise substitute one of other
// widths and overflow the chart's edges with the text placed against them.
func writeCanvas(w io.Writer, format Format, panels []panel) error {
	var h vg.Length
	for _, pn := range panels {
		h += pn.totalHeight(noteStyle())
	}
	h = max(h, vg.Centimeter)
	if format == PNG {
		c := vgimg.NewWith(vgimg.UseWH(chartWidth, h), vgimg.UseDPI(144), vgimg.UseBackgroundColor(color.White))
		drawPanels(c, panels)
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	}
	c := vgsvg.New(chartWidth, h)
	drawPanels(c, panels)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := io.WriteString(w, strings.ReplaceAll(buf.String(), "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	return err
}

// svg draws the panel's chart, without its notes, as SVG to put inside an
// HTML page.
func (pn panel) svg() (template.HTML, error) {
	if pn.plot == nil {
		return "", nil
	}
	pn.notes = nil
	var buf bytes.Buffer
	if err := writeCanvas(&buf, SVG, []panel{pn}); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:] // drop the XML declaration and comment, which HTML does not want
	}
	return template.HTML(s), nil //nolint:gosec // drawn here; vgsvg escapes every text
}

// htmlSection is an operation's chart, notes and table, or a roofline's,
// or an ab report's.
type htmlSection struct {
	Title string
	SVG   template.HTML
	Notes []string
	Table htmlTable
}

// htmlTable is a table of the page: its columns' heads, which of them
// hold numbers (right-aligned, in tabular figures), and its rows.
type htmlTable struct {
	Heads []string
	Num   []bool
	Rows  []htmlRow
}

// htmlRow is a table's row, in bold where marked (a winner, a failure).
type htmlRow struct {
	Mark  bool
	Cells []string
}

// newTable is a table of heads, a head that starts with "#" naming a
// column of numbers.
func newTable(heads ...string) htmlTable {
	t := htmlTable{Num: make([]bool, len(heads))}
	for i, h := range heads {
		h, t.Num[i] = strings.CutPrefix(h, "#")
		t.Heads = append(t.Heads, h)
	}
	return t
}

// add adds a row of cells, marked or not.
func (t *htmlTable) add(mark bool, cells ...string) { t.Rows = append(t.Rows, htmlRow{mark, cells}) }

func (r *report) writeHTML(w io.Writer, panels []panel) error {
	page := struct {
		Version  string
		Several  bool
		Runs, AB bool // what the charts show: runs' candidates, ab's pairs
		Files    htmlTable
		Sections []htmlSection
	}{Version: r.version, Several: len(r.in) > 1, Runs: len(r.in) > 0, AB: len(r.abs) > 0,
		Files: newTable("file", "device", "hardware", "driver", "mode", "#seed", "measured", "vkbench", "#benchmarks")}
	file := func(label string, d results.Device, mode string, seed uint64, at time.Time, version string, n int) {
		when := ""
		if !at.IsZero() {
			when = at.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		page.Files.add(false, label, d.Name, d.Hardware, d.Driver, mode, strconv.FormatUint(seed, 10), when, version, strconv.Itoa(n))
	}
	for _, in := range r.in {
		f := in.File
		file(in.Label, f.Device, f.Mode, f.Seed, f.Time, f.Version, len(f.Benchmarks))
	}
	for _, in := range r.abs {
		a := in.AB
		file(in.Label, a.Device, a.Mode, a.Seed, a.Time, a.Version, len(a.Rows))
	}
	// The panels are the groups', then the rooflines', then ab's reports'.
	abs := len(r.groups) + len(r.roofs)
	for i, pn := range panels {
		svg, err := pn.svg()
		if err != nil {
			return err
		}
		sec := htmlSection{Title: pn.title, SVG: svg, Notes: slices.Clip(pn.notes)}
		switch {
		case i < len(r.groups) && pn.plot != nil: // nothing measured: its note says why, in a line
			r.groupTable(&sec, r.groups[i])
		case i >= abs:
			abTable(&sec, r.abs[i-abs])
		}
		page.Sections = append(page.Sections, sec)
	}
	return reportPage.Execute(w, page)
}

// groupTable adds g's table to its section: every candidate of every
// file, times in one unit, the rate that matters for the operation.
func (r *report) groupTable(sec *htmlSection, g *opGroup) {
	top, unit, rateTop := 0.0, Bandwidth, 0.0
	for _, c := range g.cands {
		for _, b := range g.at[c] {
			if measured(b) {
				top = max(top, b.Stats.Median)
				unit = UnitOf(b)
				rateTop = max(rateTop, RateOf(b, unit))
			}
		}
	}
	num, scale, tunit := timeColumn(top)
	prefix, factor := Prefix(rateTop)
	heads := []string{"", "candidate", "outcome", "#median (" + tunit + ")", "#95% CI (" + tunit + ")", "#" + prefix + string(unit), "#% peak", "note"}
	several := len(r.in) > 1
	if several {
		heads = slices.Insert(heads, 0, "file")
	}
	sec.Table = newTable(heads...)
	add := func(f int, winner bool, cells ...string) {
		if several {
			cells = slices.Insert(cells, 0, r.in[f].Label)
		}
		sec.Table.add(winner, cells...)
	}
	var peak PeakLegend
	for _, c := range g.cands {
		for f, b := range g.at[c] {
			if b == nil {
				add(f, false, "", c, "absent", "", "", "", "", "")
				continue
			}
			median, ci, note := "-", "-", noteOf(b, scale, tunit, g.winner(f))
			if measured(b) {
				median = num(b.Stats.Median)
				if b.Stats.HasInterval() {
					ci = "[" + num(b.Stats.Lo) + ", " + num(b.Stats.Hi) + "]"
				}
			}
			if len(b.Flags) > 0 {
				note = strings.TrimSpace("[" + FlagText(b.Flags...) + "] " + note)
			}
			add(f, b.Winner, map[bool]string{true: "★"}[b.Winner], c, string(b.Outcome), median, ci,
				Rate("%.3g", RateOf(b, unit)*factor), PeakText(b), note)
			peak.See(b)
		}
	}
	sec.Notes = append(sec.Notes, peak.Notes()...)
}

// timeColumn is how a table writes times up to top: in the unit
// timeUnit picks (scale, unit), with four significant digits at top; "-"
// for no time.
func timeColumn(top float64) (num func(float64) string, scale float64, unit string) {
	scale, unit = timeUnit(top)
	decimals := 4 - min(3, len(strconv.Itoa(int(top*scale)))) // digits before the point
	return func(v float64) string {
		if v <= 0 {
			return "-"
		}
		return strconv.FormatFloat(v*scale, 'f', decimals, 64)
	}, scale, unit
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
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.winner td { font-weight: bold; }
svg { max-width: 100%; height: auto; }
p.note { color: #555; }
</style>
</head>
<body>
<h1>vkbench report</h1>
<p>Drawn by vkbench {{.Version}}.{{if .Runs}} Each chart {{if .AB}}of a run {{end}}shows every candidate's median time per run with its 95% confidence interval (lower is better); the winner is filled (★ in the tables) and first, the others best first.{{if .Several}} The files overlay: one point per file, in the file's colour.{{end}}{{end}}{{if .AB}} Each chart of vkbench ab shows every pair's time NEW/OLD (the median of its rounds' ratios) with its 95% interval, in the colour of its verdict, against lines at 1 and at 1 ± the threshold (above 1: NEW slower).{{end}}</p>
{{- template "table" .Files}}
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
{{- if .Table.Rows}}{{template "table" .Table}}{{end}}
</section>
{{- end}}
</body>
</html>
{{- define "table"}}
<table>
<tr>{{range .Heads}}<th>{{.}}</th>{{end}}</tr>
{{- range .Rows}}
<tr{{if .Mark}} class="winner"{{end}}>{{range $i, $c := .Cells}}<td{{if index $.Num $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{- end}}
</table>
{{- end}}
`))
