package main

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vkbench/vkbench/report"
)

// columns is the width every table of the command fits: a terminal of 100
// columns shows each line whole.
const columns = 100

// tableWidth is how wide a table may be, whatever command writes it:
// where it goes to a terminal, that terminal's width (terminalWidth),
// which its lines fit, a name cut at its start where it must be; 0 where
// it goes to a file or a pipe, where no name is cut and what is said in
// words is wrapped at columns.
type tableWidth int

// lineWidth is how wide the lines are, but for names.
func (w tableWidth) lineWidth() int { return cmp.Or(int(w), columns) }

// grid is a table of this width whose elastic column (a name) is cut
// where a terminal's width asks it, and never in a file or a pipe.
func (w tableWidth) grid(indent string, elastic int) grid {
	if w == 0 {
		elastic = -1
	}
	return grid{indent: indent, elastic: elastic, width: int(w)}
}

// minLast is as narrow as a grid's last column gets before its elastic
// one is shortened.
const minLast = 16

// grid is a table of cells aligned in columns, two spaces apart (gap
// where it is not 0), each line at most width wide (columns where 0):
// where the rows are wider, the elastic column (a candidate's name; -1
// for none) is shortened, its start replaced by an ellipsis (the end of a
// kernel's name tells it from its neighbours, which share their start),
// then the last column (notes) is folded onto lines of its own below,
// its words whole; unless whole: then the last column (a gate's verdict)
// is never folded, and the elastic one gives way for all of it. A row of
// one cell is a heading: it sets no column's width, and where the
// elastic column is cut it is too, at its start, to the width of the
// lines (of the rows, where they are wider).
type grid struct {
	indent  string
	elastic int
	whole   bool
	width   int
	gap     int
	rows    [][]string
}

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

// layout is how wide each column is, the elastic one shortened where the
// lines ask it; how wide the rows are then (their last column at most
// minLast where it folds); and how wide the lines may be: the width, or
// the rows' where no column gives way.
func (g *grid) layout() (widths []int, total, lineWidth int) {
	n := 0
	for _, r := range g.rows {
		n = max(n, len(r))
	}
	widths = make([]int, n)
	if n == 0 {
		return widths, 0, 0
	}
	for _, r := range g.rows {
		if len(r) == 1 { // a heading
			continue
		}
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	// The last column is folded rather than the elastic one shortened,
	// as long as a few of its words fit a line.
	lastWidth := widths[n-1]
	if !g.whole {
		lastWidth = min(lastWidth, minLast)
	}
	total = len(g.indent) + g.gapWidth()*(n-1) + lastWidth
	for _, w := range widths[:n-1] {
		total += w
	}
	lineWidth = cmp.Or(g.width, columns)
	if g.elastic < 0 {
		// No column gives way: the notes keep a few words a line.
		lineWidth = max(lineWidth, total)
	}
	if over := total - lineWidth; over > 0 && g.elastic >= 0 && g.elastic < n-1 {
		cut := min(over, widths[g.elastic]-min(widths[g.elastic], 16))
		widths[g.elastic] -= cut
		total -= cut
	}
	return widths, total, lineWidth
}

func (g *grid) gapWidth() int { return cmp.Or(g.gap, 2) }

func (g *grid) write(b *strings.Builder) {
	for _, lines := range g.lines() {
		for _, line := range lines {
			b.WriteString(line + "\n")
		}
	}
}

// lines are the lines of each row.
func (g *grid) lines() [][]string {
	if lines, ok := g.stacked(); ok {
		return lines
	}
	widths, total, columns := g.layout()
	gap := strings.Repeat(" ", g.gapWidth())
	out := make([][]string, len(g.rows))
	for k, r := range g.rows {
		if len(r) == 1 && len(widths) > 1 && g.elastic >= 0 {
			// A heading is cut as the names under it are: past the
			// terminal's edge, or the rows' where they cannot fit.
			out[k] = []string{g.indent + endCut(r[0], max(columns, total)-len(g.indent))}
			continue
		}
		line := g.indent
		for i, c := range r[:len(r)-1] {
			if i == g.elastic {
				c = endCut(c, widths[i])
			}
			line += c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)) + gap
		}
		// The last cell's words stay whole: its lines go under it where
		// every word fits there, else under the row, hanging.
		at, last := utf8.RuneCountInString(line), r[len(r)-1]
		if g.whole {
			out[k] = []string{strings.TrimRight(line+last, " ")}
			continue
		}
		hang := at
		if slices.ContainsFunc(strings.Fields(last), func(w string) bool { return utf8.RuneCountInString(w) > columns-at }) {
			hang = len(g.indent) + 8
		}
		for i, part := range fold(last, columns-at, columns-hang) {
			if i > 0 {
				line = strings.Repeat(" ", hang)
			}
			out[k] = append(out[k], report.OneLine(strings.TrimRight(line+part, " "), columns))
		}
	}
	return out
}

// stacked is the lines of each row where the grid is on a terminal too
// narrow for its rows even with the elastic column cut as far as it goes
// (and the last folded below, unless whole): each row is then two lines,
// the cells up to the elastic one and the last (a name and its notes or
// verdict, as the grid writes them), then the figures between, whole, as
// far in as the width leaves room for, their columns two spaces apart
// or, where that is too wide, one; no line of figures where a row's are
// all dashes. Figures too wide for the terminal even so run past its
// edge. False where the rows fit, or nothing stands between the elastic
// column and the last.
func (g *grid) stacked() ([][]string, bool) {
	widths, total, _ := g.layout()
	n := len(widths)
	if g.width == 0 || g.elastic < 0 || g.elastic >= n-2 {
		return nil, false
	}
	if !g.whole { // the last column folds below
		total -= min(widths[n-1], minLast) + g.gapWidth()
	}
	if total <= g.width {
		return nil, false
	}
	names := grid{indent: g.indent, elastic: g.elastic, whole: g.whole, width: g.width}
	figures := grid{elastic: -1, whole: true, width: g.width}
	for _, r := range g.rows {
		if len(r) < n { // a heading
			names.add(r...)
			continue
		}
		names.add(slices.Concat(r[:g.elastic+1], r[n-1:])...)
		figures.add(r[g.elastic+1 : n-1]...)
	}
	for _, layout := range []struct {
		indent string
		gap    int
	}{{g.indent + "    ", 2}, {g.indent + "  ", 2}, {g.indent + "  ", 1}, {g.indent, 1}, {"", 1}} {
		figures.indent, figures.gap = layout.indent, layout.gap
		if _, total, _ := figures.layout(); total <= g.width {
			break
		}
	}
	below := figures.lines()
	out := names.lines()
	for i, r := range g.rows {
		if len(r) < n {
			continue
		}
		if line := below[0][0]; strings.Trim(line, " -") != "" {
			out[i] = slices.Insert(out[i], 1, line)
		}
		below = below[1:]
	}
	return out, true
}

// groupBy groups xs by their key, the keys in the order first seen.
func groupBy[T any](xs []T, key func(T) string) ([]string, map[string][]T) {
	var keys []string
	groups := map[string][]T{}
	for _, x := range xs {
		k := key(x)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], x)
	}
	return keys, groups
}

// endCut is s in at most n columns, its start replaced by an ellipsis:
// the names of a table's kernels share their start
// (regblock-128x128x16-8x8-p2, regblock-128x128x16-8x8-p2-swz), and
// their ends tell them apart. Its leading spaces (a name's indent under
// its heading) stay.
func endCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	indent := len(s) - len(strings.TrimLeft(s, " "))
	return s[:indent] + "…" + string(r[len(r)-(n-1-indent):])
}

// wrapAt writes each of texts that is not blank on lines of at most
// columns, broken between words, the first starting with indent and the
// others two spaces further in.
func wrapAt(b *strings.Builder, columns int, indent string, texts ...string) {
	n := utf8.RuneCountInString(indent)
	for _, text := range texts {
		if strings.TrimSpace(text) == "" {
			continue
		}
		in := indent
		for i, line := range fold(text, columns-n, columns-n-2) {
			if i == 1 {
				in += "  "
			}
			b.WriteString(report.OneLine(in+line, columns) + "\n")
		}
	}
}

// fold breaks text into lines between words, the first at most first
// columns wide and the others rest. Where the first word does not fit the
// first line but would a later one, the first line is empty; a word too
// long for any line is broken (breakAt).
func fold(text string, first, rest int) []string {
	var lines []string
	line, n, rest := "", max(first, 1), max(rest, 1)
	for _, word := range strings.Fields(text) {
		for word != "" {
			w := utf8.RuneCountInString(word)
			if line == "" && w <= n || line != "" && utf8.RuneCountInString(line)+1+w <= n {
				line, word = strings.TrimPrefix(line+" "+word, " "), ""
				continue
			}
			if line == "" && (len(lines) > 0 || n >= rest) {
				r := []rune(word)
				at := breakAt(r, n)
				line, word = string(r[:at]), string(r[at:])
			}
			lines, line, n = append(lines, line), "", rest
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// breakAt is where a word too long for a line of n columns is broken:
// after the last _ or / within them, between the parts of a hardware key
// (vendor_device_name_driver_version) or the folders of a path, where the
// word has one; else at n.
func breakAt(word []rune, n int) int {
	for i := n; i > 1; i-- {
		if word[i-1] == '_' || word[i-1] == '/' {
			return i
		}
	}
	return n
}
