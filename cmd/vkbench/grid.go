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

// minLast is as narrow as a grid's last column gets beside its row;
// where less is left, it goes on lines of its own below.
const minLast = 16

// minName is as short as a grid's elastic column (a name) is cut to
// before its row is stacked (grid.stacked); minStacked, once stacked.
const minName, minStacked = 16, 12

// gap is the spaces between a table's columns: two, so that titles of
// several words (vs probe, % peak) do not run together.
const gap = 2

// grid is a table of cells aligned in columns, gap apart, each line at
// most width wide (columns where 0): where the rows are wider, the
// elastic column (a candidate's name; -1 for none) is shortened, its
// start replaced by an ellipsis (the end of a kernel's name tells it from
// its neighbours, which share their start), as far as minName (minName
// where 0), for the other cells and for a last column of at most minLast;
// longer notes are not worth a name's end. The last column (notes) goes
// beside the rows where all of it fits or minLast columns are left for
// its words, else under each row, hanging; unless whole: then the last
// column (a gate's verdict) is never folded beside a row, only put under
// it where it does not fit. A row of one cell is a heading: it sets no
// column's width, and where the elastic column is cut it is too, at its
// start, to the width of the lines (of the rows, where they are wider).
type grid struct {
	indent  string
	elastic int
	whole   bool
	width   int
	minName int // minName where 0
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
	lastWidth := widths[n-1]
	if !g.whole {
		lastWidth = min(lastWidth, minLast)
	}
	total = len(g.indent) + gap*(n-1) + lastWidth
	for _, w := range widths[:n-1] {
		total += w
	}
	lineWidth = cmp.Or(g.width, columns)
	if g.elastic < 0 && g.width == 0 {
		// No column gives way in a file: the notes keep a few words a
		// line. On a terminal they go under the rows.
		lineWidth = max(lineWidth, total)
	}
	over := total - lineWidth
	if !g.whole && widths[n-1] > minLast { // long notes go below rather than the name be cut for them
		over -= lastWidth + gap
	}
	if over > 0 && g.elastic >= 0 && g.elastic < n-1 {
		cut := min(over, widths[g.elastic]-min(widths[g.elastic], cmp.Or(g.minName, minName)))
		widths[g.elastic] -= cut
		total -= cut
	}
	return widths, total, lineWidth
}

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
	n := len(widths)
	spaces := strings.Repeat(" ", gap)
	// The last column goes beside the rows where all of it fits there,
	// or, unless whole, where minLast columns are left for its words;
	// else under each row, hanging. Its title goes where it does, but
	// over an empty column only where it fits.
	room, under := columns-len(g.indent)-gap*(n-1), 0
	for k, r := range g.rows {
		if k > 0 && len(r) == n {
			under = max(under, utf8.RuneCountInString(r[n-1]))
		}
	}
	for _, w := range widths[:max(n-1, 0)] {
		room -= w
	}
	beside := under <= room || !g.whole && room >= minLast
	below := strings.Repeat(" ", len(g.indent)+8)
	out := make([][]string, len(g.rows))
	for k, r := range g.rows {
		if len(r) == 1 && n > 1 {
			// A heading is cut as the names under it are: past the
			// terminal's edge, or the rows' where they cannot fit.
			out[k] = []string{g.indent + r[0]}
			if g.elastic >= 0 {
				out[k][0] = g.indent + endCut(r[0], max(columns, total)-len(g.indent))
			}
			continue
		}
		line := g.indent
		for i, c := range r[:len(r)-1] {
			if i == g.elastic {
				c = endCut(c, widths[i])
			}
			line += c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)) + spaces
		}
		last, room := r[len(r)-1], room
		if k == 0 && under == 0 && utf8.RuneCountInString(last) > room {
			last = ""
		}
		if !beside {
			out[k] = []string{strings.TrimRight(line, " ")}
			line, room = below, columns-len(below)
		}
		// Its words stay whole: a word too long for the room beside goes
		// under the row, hanging.
		hang := utf8.RuneCountInString(line)
		if slices.ContainsFunc(strings.Fields(last), func(w string) bool { return utf8.RuneCountInString(w) > room }) {
			hang = len(below)
		}
		for i, part := range fold(last, room, columns-hang, true) {
			if i > 0 {
				line = strings.Repeat(" ", hang)
			}
			if part = strings.TrimRight(line+part, " "); i > 0 || part != "" || len(out[k]) == 0 {
				out[k] = append(out[k], report.OneLine(part, columns))
			}
		}
	}
	return out
}

// stacked is the lines of each row where the grid is on a terminal too
// narrow for its rows even with the elastic column cut to minName (and
// the last below, unless whole): each row is then the cells up to the
// elastic one and the last (a name and its notes or verdict, as the grid
// writes them, the name cut to minStacked where it must), then the
// figures between (bands), whole, as far in as the width leaves room for,
// then what of the last went below; no line of figures where a row's are
// all dashes. Where the cells before the elastic one (and short notes
// after it) leave it fewer than minStacked columns, they are a line of
// their own above it (bands). False
// where the rows fit, or nothing stands between the elastic column and
// the last.
func (g *grid) stacked() ([][]string, bool) {
	widths, total, _ := g.layout()
	n := len(widths)
	if g.width == 0 || g.elastic < 0 || g.elastic >= n-2 {
		return nil, false
	}
	if !g.whole && widths[n-1] > minLast { // long notes go below
		total -= minLast + gap
	}
	if total <= g.width {
		return nil, false
	}
	before := len(g.indent)
	for _, w := range widths[:g.elastic] {
		before += w + gap
	}
	if !g.whole && widths[n-1] <= minLast { // short notes stay beside the name
		before += widths[n-1] + gap
	}
	split := g.width-before < minStacked && before-len(g.indent) > minStacked // not for a mark
	names := grid{indent: g.indent, elastic: g.elastic, whole: g.whole, width: g.width, minName: minStacked}
	if g.whole { // a verdict goes below rather than the name be cut further
		names.minName = minName
	}
	from := 0 // the first cell of the name's line
	if split {
		names.indent, names.elastic, from = g.indent+"  ", 0, g.elastic
	}
	var pre, figures [][]string
	for _, r := range g.rows {
		if len(r) < n { // a heading
			names.add(r...)
			continue
		}
		names.add(slices.Concat(r[from:g.elastic+1], r[n-1:])...)
		pre = append(pre, r[:g.elastic])
		figures = append(figures, r[g.elastic+1:n-1])
	}
	// The figures go on one line, as far in as leaves room for them,
	// else on as many as they need.
	below := bands(figures, g.indent+"    ", g.width)
	if one := bands(figures, g.indent+"  ", g.width); len(below[0]) > 1 && len(one[0]) == 1 {
		below = one
	}
	above := bands(pre, g.indent, g.width)
	out := names.lines()
	j := 0
	for i, r := range g.rows {
		if len(r) < n {
			continue
		}
		if strings.Trim(strings.Join(r[g.elastic+1:n-1], ""), "-") != "" {
			out[i] = slices.Insert(out[i], 1, below[j]...)
		}
		if split {
			out[i] = slices.Insert(out[i], 0, above[j]...)
		}
		j++
	}
	return out, true
}

// cellWidths is how wide each column of rows is.
func cellWidths(rows [][]string) []int {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	return widths
}

// bands lays rows out in columns two spaces apart at indent, as many
// columns a line as fit width and the others on the lines below, in
// order, every row's lines alike, so that the columns stay under their
// titles. A cell wider than a line goes further out, and loses its start,
// as a name does, only where wider than width.
func bands(rows [][]string, indent string, width int) [][]string {
	widths := cellWidths(rows)
	if over := len(indent) + slices.Max(append(widths, 0)) - width; over > 0 { // less indent before a cut
		indent = indent[:max(len(indent)-over, 0)]
	}
	var starts []int // the first column of each line
	at := width
	for i, w := range widths {
		w = min(w, width-len(indent))
		if widths[i] = w; at+gap+w > width {
			starts, at = append(starts, i), len(indent)+w
			continue
		}
		at += gap + w
	}
	out := make([][]string, len(rows))
	for k, r := range rows {
		for s, start := range starts {
			end := len(r)
			if s+1 < len(starts) {
				end = starts[s+1]
			}
			line := indent
			for i := start; i < end; i++ {
				c := endCut(r[i], widths[i])
				line += c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+gap)
			}
			if line = strings.TrimRight(line, " "); line != "" {
				out[k] = append(out[k], line)
			}
		}
	}
	return out
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
// others two spaces further in. A word too long for a line has one of
// its own, whole, past the edge, as a terminal's tools leave it: a name
// or a path cut in two reads as two, and cannot be copied.
func wrapAt(b *strings.Builder, columns int, indent string, texts ...string) {
	n := utf8.RuneCountInString(indent)
	for _, text := range texts {
		if strings.TrimSpace(text) == "" {
			continue
		}
		in := indent
		for i, line := range fold(text, columns-n, columns-n-2, false) {
			if i == 1 {
				in += "  "
			}
			b.WriteString(in + line + "\n")
		}
	}
}

// fold breaks text into lines between words, the first at most first
// columns wide and the others rest. Where the first word does not fit the
// first line but would a later one, the first line is empty; a word too
// long for any line is broken (breakAt) where cut, else it is a line of
// its own, whole, past the width.
func fold(text string, first, rest int, cut bool) []string {
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
				at := len(r)
				if cut {
					at = breakAt(r, n)
				}
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
