package main

import (
	"strings"
	"unicode/utf8"

	"github.com/vkbench/vkbench/report"
)

// columns is the width every table of the command fits: a terminal of 100
// columns shows each line whole.
const columns = 100

// minLast is as narrow as a grid's last column gets before its elastic
// one is shortened.
const minLast = 16

// grid is a table of cells aligned in columns, two spaces apart, each
// line at most columns wide: where the rows are wider, the elastic column
// (a candidate's name) is shortened in its middle, then the last column
// (notes) is cut, each with an ellipsis.
type grid struct {
	indent  string
	elastic int
	rows    [][]string
}

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

func (g *grid) write(b *strings.Builder) {
	n := 0
	for _, r := range g.rows {
		n = max(n, len(r))
	}
	if n == 0 {
		return
	}
	widths := make([]int, n)
	for _, r := range g.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	// The last column is cut rather than the elastic one shortened, as
	// long as a few of its words still show.
	total := len(g.indent) + 2*(n-1) + min(widths[n-1], minLast)
	for _, w := range widths[:n-1] {
		total += w
	}
	if over := total - columns; over > 0 && g.elastic < n-1 {
		widths[g.elastic] = max(widths[g.elastic]-over, min(widths[g.elastic], 16))
	}
	for _, r := range g.rows {
		line := g.indent
		for i, c := range r {
			if i == len(r)-1 {
				line += c
				break
			}
			if i == g.elastic {
				c = middleCut(c, widths[i])
			}
			line += c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2)
		}
		b.WriteString(report.OneLine(strings.TrimRight(line, " "), columns))
		b.WriteByte('\n')
	}
}

// middleCut is s in at most n columns, its middle replaced by an
// ellipsis: both ends of a kernel's name tell it from its neighbours.
func middleCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// wrap writes text on lines of at most columns, broken between words,
// the first starting with indent and the others two spaces further in.
func wrap(b *strings.Builder, indent, text string) {
	line, start := indent, indent
	for _, word := range strings.Fields(text) {
		if line != start && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > columns {
			b.WriteString(line + "\n")
			start = indent + "  "
			line = start
		}
		if line != start {
			line += " "
		}
		line += word
	}
	if line != start {
		b.WriteString(report.OneLine(line, columns) + "\n")
	}
}
