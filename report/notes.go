package report

import (
	"fmt"
	"strings"

	"github.com/vkbench/vkbench/results"
)

// groupNotes say, under an operation's chart, what became of the
// candidates it does not draw, file by file: those dropped early as much
// slower, with their medians, and the others counted by reason. An
// operation with nothing measured has these notes instead of a chart.
func (r *report) groupNotes(g *opGroup) []string {
	var notes []string
	nothing := len(g.rows()) == 0
	for f := range r.in {
		var dropped []string
		var other []*results.Benchmark
		for _, c := range g.cands {
			b := g.at[c][f]
			switch {
			case b == nil || g.drawn(f, b):
			case b.Outcome == results.Dropped && measured(b):
				dropped = append(dropped, fmt.Sprintf("%s (%s)", c, Seconds(b.Stats.Median)))
			default:
				other = append(other, b)
			}
		}
		suffix := fileSuffix(r, f)
		if nothing {
			notes = append(notes, fmt.Sprintf("%s: nothing measured%s: %s.", g.title, suffix, CountReasons(other)))
			continue
		}
		if len(dropped) > 0 {
			notes = append(notes, fmt.Sprintf("Dropped early as much slower%s, not drawn: %s.", suffix, strings.Join(dropped, ", ")))
		}
		if len(other) > 0 {
			notes = append(notes, fmt.Sprintf("Not drawn%s: %s.", suffix, CountReasons(other)))
		}
	}
	return notes
}

// noteOf is b's error or note as a table shows it: without status codes
// and package names (Reason); a drop's times in the table's unit, and
// its leader named as the leader at the time unless it is winner, the
// operation's final winner.
func noteOf(b *results.Benchmark, scale float64, unit, winner string) string {
	d := b.Drop
	if b.Outcome != results.Dropped || d == nil {
		return Reason(b.Error, b.Candidate)
	}
	who := d.Leader + ", the leader at the time,"
	if d.Leader == winner {
		who = d.Leader + ", the winner,"
	}
	rounds := ""
	if d.Rounds > 1 {
		rounds = fmt.Sprintf("dropped early in each of %d rounds; in the last, ", d.Rounds)
	}
	return fmt.Sprintf("%sdropped after %d samples at a median of %.4g %s: %s was at %.4g %s", rounds, d.Samples, d.Median*scale, unit, who, d.LeaderMedian*scale, unit)
}
