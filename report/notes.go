package report

import (
	"fmt"
	"regexp"
	"strconv"
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

// dropNote matches the tuner's note on a candidate dropped early:
// "dropped after 11 samples: median 0.008222s, leader block4-4x8
// 0.001894s", in seconds, naming the leader at that moment.
var dropNote = regexp.MustCompile(`^dropped after (\d+) samples: median (\S+)s, leader (\S+) (\S+)s$`)

// noteOf is b's error or note as a table shows it: without status codes
// and package names (Reason); a drop's times in the table's unit, and
// its leader named as the leader at the time unless it is winner, the
// operation's final winner.
func noteOf(b *results.Benchmark, scale float64, unit, winner string) string {
	m := dropNote.FindStringSubmatch(b.Error)
	if m == nil {
		return Reason(b.Error, b.Candidate)
	}
	med, err1 := strconv.ParseFloat(m[2], 64)
	lead, err2 := strconv.ParseFloat(m[4], 64)
	if err1 != nil || err2 != nil {
		return b.Error
	}
	who := m[3] + ", the leader at the time,"
	if m[3] == winner {
		who = m[3] + ", the winner,"
	}
	return fmt.Sprintf("dropped after %s samples at a median of %.4g %s: %s was at %.4g %s", m[1], med*scale, unit, who, lead*scale, unit)
}
