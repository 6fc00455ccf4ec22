package search

import (
	"math"
	"time"
)

// An Evaluation is one point of a search evaluated, as the tuning log
// records it.
type Evaluation struct {
	// Point is the point's index in the search's grid.
	Point  int
	Record LogRecord
	// Measured is false when the tuning log answered.
	Measured bool
}

// Median returns the evaluation's median time and whether the point may
// win, as an Evaluator tells them.
func (e Evaluation) Median() (seconds float64, ok bool) {
	if e.Record.Stats == nil {
		return 0, false
	}
	return e.Record.Stats.Median, e.Record.Verified()
}

// LogSearchOf is the log's record of the search under opts (filled) that
// made evals: its order, its best point (the lowest verified median, the
// earliest among equals) and the time spent measuring.
func LogSearchOf(opts Options, evals []Evaluation) LogSearch {
	s := LogSearch{Strategy: opts.Strategy, Seed: opts.Seed, Lookahead: opts.Lookahead, MaxEvals: opts.MaxEvals, Time: time.Now().UTC()}
	best := math.Inf(1)
	for _, e := range evals {
		s.Order = append(s.Order, e.Record.Name)
		if e.Measured {
			s.MeasureSeconds += e.Record.MeasureSeconds
		}
		if sec, ok := e.Median(); ok && sec < best {
			best, s.Best = sec, e.Record.Name
		}
	}
	return s
}
