package report

import (
	"bytes"
	"fmt"
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

type htmlRow struct {
	File, Candidate, Outcome, Median, CI, Rate, Peak, Note string
	Winner                                                 bool
}

// htmlSection is an operation's chart, notes and table (whose times are
// all in TimeUnit, and rates in RateUnit), or a roofline's.
type htmlSection struct {
	Title              string
	SVG                template.HTML
	Rows               []htmlRow
	ABRows             []abRow
	Notes              []string
	TimeUnit, RateUnit string
}

type htmlFile struct {
	Label         string
	Device        results.Device
	Mode, Version string
	Seed          uint64
	Time          time.Time
	Benchmarks    int
}

func (r *report) writeHTML(w io.Writer, panels []panel) error {
	page := struct {
		Version  string
		Several  bool
		Runs, AB bool // what the charts show: runs' candidates, ab's pairs
		Files    []htmlFile
		Sections []htmlSection
	}{Version: r.version, Several: len(r.in) > 1, Runs: len(r.in) > 0, AB: len(r.abs) > 0}
	for _, in := range r.in {
		f := in.File
		page.Files = append(page.Files, htmlFile{in.Label, f.Device, f.Mode, f.Version, f.Seed, f.Time, len(f.Benchmarks)})
	}
	for _, in := range r.abs {
		a := in.AB
		page.Files = append(page.Files, htmlFile{in.Label, a.Device, a.Mode, a.Version, a.Seed, a.Time, len(a.Rows)})
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
	sec.TimeUnit, sec.RateUnit = tunit, prefix+string(unit)
	var peak PeakLegend
	roofs := false // a percentage from the roofline's peak
	for _, c := range g.cands {
		for f, b := range g.at[c] {
			if b == nil {
				sec.Rows = append(sec.Rows, htmlRow{File: r.in[f].Label, Candidate: c, Outcome: "absent"})
				continue
			}
			row := htmlRow{File: r.in[f].Label, Candidate: c, Outcome: string(b.Outcome), Winner: b.Winner,
				Median: "-", CI: "-", Rate: Rate("%.3g", RateOf(b, unit)*factor), Peak: PeakText(b),
				Note: noteOf(b, scale, tunit, g.winner(f))}
			if measured(b) {
				row.Median = num(b.Stats.Median)
				if b.Stats.HasInterval() {
					row.CI = "[" + num(b.Stats.Lo) + ", " + num(b.Stats.Hi) + "]"
				}
			}
			if len(b.Flags) > 0 {
				row.Note = strings.TrimSpace("[" + FlagText(b.Flags...) + "] " + row.Note)
			}
			if pct := r.roofPercent(b, f); pct > 0 {
				row.Peak, roofs = fmt.Sprintf("%.0f%%", pct)+roofMark, true
				if pct > 100 {
					row.Peak = ">100%" + roofMark
				}
			}
			peak.See(b)
			sec.Rows = append(sec.Rows, row)
		}
	}
	sec.Notes = append(sec.Notes, peak.Notes()...)
	if roofs {
		sec.Notes = append(sec.Notes, roofMark+" worked out here from the roofline's peak below (--peak-gbps and --peak-gflops, or the peak vkbench peak stored): the results file records no percentage of peak, as the run knew none.")
	}
}

// roofMark marks a percentage of peak that the report worked out from
// the roofline's peak rather than read from the results file.
const roofMark = "†"

// roofPercent is b's percentage of the roofline's peak, for a results
// file f that records none, by PercentOfPeak's rule: of the bandwidth roof
// for an operation that does no arithmetic, else under it and the compute
// roof of b's arithmetic that run's percentage is of (roofOf: fp32, fp16,
// int32 or the matrix units' at b's precision). 0 where the file records
// one.
func (r *report) roofPercent(b *results.Benchmark, f int) float64 {
	i := slices.IndexFunc(r.roofs, func(rl roofline) bool { return slices.Contains(rl.files, f) })
	if i < 0 || r.roofs[i].peak == nil || b.PercentPeak > 0 || !measured(b) {
		return 0
	}
	pk, c := r.roofs[i].peak, 0.0
	if b.Flops > 0 {
		c = roofOf(pk, b).gflops
	}
	gbps, gflops := b.Rates()
	return percentOfRoofs(gbps, gflops, c, pk.BandwidthGBps)
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
<table>
<tr><th>file</th><th>device</th><th>hardware</th><th>driver</th><th>mode</th><th>seed</th><th>measured</th><th>vkbench</th><th>benchmarks</th></tr>
{{- range .Files}}
<tr><td>{{.Label}}</td><td>{{.Device.Name}}</td><td>{{.Device.Hardware}}</td><td>{{.Device.Driver}}</td><td>{{.Mode}}</td><td class="num">{{.Seed}}</td><td>{{if not .Time.IsZero}}{{.Time.UTC.Format "2006-01-02 15:04:05 UTC"}}{{end}}</td><td>{{.Version}}</td><td class="num">{{.Benchmarks}}</td></tr>
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
<tr>{{if $.Several}}<th>file</th>{{end}}<th></th><th>candidate</th><th>outcome</th><th>median ({{.TimeUnit}})</th><th>95% CI ({{.TimeUnit}})</th><th>{{.RateUnit}}</th><th>% peak</th><th>note</th></tr>
{{- range .Rows}}
<tr{{if .Winner}} class="winner"{{end}}>{{if $.Several}}<td>{{.File}}</td>{{end}}<td>{{if .Winner}}★{{end}}</td><td>{{.Candidate}}</td><td>{{.Outcome}}</td><td class="num">{{.Median}}</td><td class="num">{{.CI}}</td><td class="num">{{.Rate}}</td><td class="num">{{.Peak}}</td><td>{{.Note}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- if .ABRows}}
<table>
<tr><th></th><th>pair</th><th>verdict</th><th>OLD median ({{.TimeUnit}})</th><th>NEW median ({{.TimeUnit}})</th><th>NEW/OLD</th><th>95% CI of NEW/OLD</th><th>note</th></tr>
{{- range .ABRows}}
<tr{{if .Fails}} class="winner"{{end}}><td>{{if .Fails}}✗{{end}}</td><td>{{.Pair}}</td><td>{{.Verdict}}</td><td class="num">{{.Old}}</td><td class="num">{{.New}}</td><td class="num">{{.Ratio}}</td><td class="num">{{.Interval}}</td><td>{{.Note}}</td></tr>
{{- end}}
</table>
{{- end}}
</section>
{{- end}}
</body>
</html>
`))
