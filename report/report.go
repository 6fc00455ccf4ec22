package report

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/status"
)

// Errors of bad input: the caller's to fix, not the report's.
var (
	// ErrFormat is returned for an output whose extension names no format.
	ErrFormat = errors.New("report: unknown format")
	// ErrNothing is returned when the inputs hold nothing to draw.
	ErrNothing = errors.New("report: nothing to draw")
)

// Format is the kind of file a report is written as.
type Format string

// The formats: a self-contained page with the charts inline and a table
// per operation, or the charts one under the other as an image.
const (
	HTML Format = "html"
	SVG  Format = "svg"
	PNG  Format = "png"
)

// FormatOf is the format named by path's extension: .html (or .htm), .svg
// or .png.
func FormatOf(path string) (Format, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".html", ".htm":
		return HTML, nil
	case ".svg", ".png":
		return Format(ext[1:]), nil
	}
	return "", fmt.Errorf("%w %q (want .html, .svg or .png)", ErrFormat, filepath.Ext(path))
}

// Input is one result file, or one report of vkbench ab, and the label
// that names it in charts.
type Input struct {
	Label string
	File  *results.File
	// AB is vkbench ab's report (--format json), where the file is one:
	// its pairs are drawn as ratios NEW/OLD, a chart of their own.
	AB *results.ABReport
}

// ReadFiles reads result files (vkbench's JSON or Go's benchmark format),
// each labelled by its base name, or by its path where two share one.
func ReadFiles(paths []string) ([]Input, error) {
	in := make([]Input, len(paths))
	bases := map[string]int{}
	for i, p := range paths {
		in[i].Label = filepath.Base(p)
		bases[filepath.Base(p)]++
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, status.Wrapf(err, status.CodeOf(err), "report: reading %s", p)
		}
		ab, isAB, err := parseAB(data)
		if in[i].AB = ab; !isAB {
			in[i].File, err = results.Parse(data)
		}
		if err != nil {
			return nil, status.Annotatef(err, "in %s", p)
		}
	}
	for i := range in {
		if bases[in[i].Label] > 1 {
			in[i].Label = paths[i] // two files of one name: tell them apart by path
		}
	}
	return in, nil
}

// IsTuneLog reports whether path is a tuning log (its first line names
// the format) rather than a result file.
func IsTuneLog(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read only
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.Contains(line, `"format":"`+search.LogFormat+`"`)
}

// Options are what a report needs beyond its inputs.
type Options struct {
	// Version is the vkbench that draws the report, named on the page.
	Version string
	// Peak returns the roofs of a hardware's roofline, nil where none is
	// known (the roofline is then a note). A nil Peak knows none.
	Peak func(hardware string) *autotune.Peak
	// PeakUnread names, by hardware, the tune cache whose stored peak
	// could not be read (a warning says why): the roofline's note says
	// so, where it would say that no peak is known.
	PeakUnread map[string]string
}

// Write draws the report of in as format to w, as the package doc says,
// and returns the number of charts drawn. Where it would draw none and a
// result file holds no benchmarks, it writes nothing and returns
// ErrNothing, naming the file.
func Write(w io.Writer, format Format, in []Input, opts Options) (charts int, err error) {
	rep := build(slices.DeleteFunc(slices.Clone(in), func(i Input) bool { return i.AB != nil }), opts)
	rep.abs = slices.DeleteFunc(slices.Clone(in), func(i Input) bool { return i.AB == nil })
	panels, err := rep.panels()
	if err != nil {
		return 0, err
	}
	for _, pn := range panels {
		if pn.plot != nil {
			charts++
		}
	}
	// A report of files without benchmarks alone draws nothing, as a
	// comparison with one compares nothing; beside a chart one is drawn.
	var empty []string
	for _, input := range rep.in {
		if len(input.File.Benchmarks) == 0 {
			empty = append(empty, input.Label)
		}
	}
	if charts == 0 && len(empty) > 0 {
		return 0, fmt.Errorf("%w: %s holds no benchmarks", ErrNothing, strings.Join(empty, ", "))
	}
	if format == HTML {
		err = rep.writeHTML(w, panels)
	} else {
		err = writeCanvas(w, format, panels)
	}
	if err != nil {
		return 0, err
	}
	return charts, nil
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

func groupBenchmarks(in []Input) []*opGroup {
	var groups []*opGroup
	index := map[string]*opGroup{}
	for f, input := range in {
		for i := range input.File.Benchmarks {
			b := &input.File.Benchmarks[i]
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

// order puts g's candidates in the order a reader looks for them: the
// winner first (the first file's that names one), then as the first file
// ranks them, and where it does not tell two apart (neither measured
// there), as the next does: those measured, best first by the file's
// objective (time, energy or edp; time where a candidate measured there
// has no energy), then those dropped early by the same value, then the
// ones not measured at all; ties by name.
func (g *opGroup) order(in []Input) {
	type rank struct {
		class int // 0 measured, 1 dropped early, 2 not measured
		value float64
	}
	ranks := map[string][]rank{}
	winner := ""
	for f, input := range in {
		objective := input.File.Objective
		for _, c := range g.cands {
			if b := g.at[c][f]; measured(b) {
				if _, _, _, ok := b.ObjectiveValue(objective); !ok {
					objective = "time"
				}
			}
		}
		for _, c := range g.cands {
			r := rank{class: 2}
			if b := g.at[c][f]; measured(b) && (b.Outcome == results.Measured || b.Outcome == results.Dropped) {
				r.class = 0
				if b.Outcome == results.Dropped {
					r.class = 1
				}
				r.value, _, _, _ = b.ObjectiveValue(objective)
			}
			ranks[c] = append(ranks[c], r)
		}
		winner = cmp.Or(winner, g.winner(f))
	}
	slices.SortFunc(g.cands, func(a, b string) int {
		switch {
		case a == winner:
			return -1
		case b == winner:
			return 1
		}
		for f := range in {
			ra, rb := ranks[a][f], ranks[b][f]
			if c := cmp.Or(cmp.Compare(ra.class, rb.class), cmp.Compare(ra.value, rb.value)); c != 0 {
				return c
			}
		}
		return strings.Compare(a, b)
	})
}

// measured reports whether b has a median to draw.
func measured(b *results.Benchmark) bool {
	return b != nil && b.Stats != nil && b.Stats.Median > 0
}

// report is everything drawn: per operation a chart and a table, then a
// roofline (or a note) per hardware.
type report struct {
	in      []Input // result files
	abs     []Input // ab's reports
	version string
	groups  []*opGroup
	roofs   []roofline
}

func build(in []Input, opts Options) *report {
	rep := &report{in: in, version: opts.Version, groups: groupBenchmarks(in)}
	for _, g := range rep.groups {
		g.order(in)
	}
	for f, input := range in {
		hw := input.File.Device.Hardware
		i := slices.IndexFunc(rep.roofs, func(rl roofline) bool { return rl.hardware == hw })
		if i < 0 {
			i = len(rep.roofs)
			var peak *autotune.Peak
			if opts.Peak != nil {
				peak = opts.Peak(hw)
			}
			rep.roofs = append(rep.roofs, roofline{hardware: hw, device: input.File.Device.Name, peak: peak, unread: opts.PeakUnread[hw]})
		}
		rep.roofs[i].files = append(rep.roofs[i].files, f)
	}
	for i := range rep.roofs {
		rep.rooflineNotes(&rep.roofs[i])
	}
	return rep
}

func fileSuffix(r *report, f int) string {
	if len(r.in) < 2 {
		return ""
	}
	return " (" + r.in[f].Label + ")"
}
