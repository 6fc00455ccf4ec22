package search

import "time"

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

// Beats reports whether e is better than best, the best so far (zero
// before any): verified, with a lower median (the earliest of equals
// stays). The one rule of a search's best point.
func (e Evaluation) Beats(best Evaluation) bool {
	sec, ok := e.Median()
	bestSec, bestOK := best.Median()
	return ok && (!bestOK || sec < bestSec)
}

// LogSearchOf is the log's record of the search under opts (filled) that
// made evals, its Best the fastest verified (Beats): a caller that picks
// its winner by another objective names it (Best, Objective).
func LogSearchOf(opts Options, evals []Evaluation) LogSearch {
	s := LogSearch{Strategy: opts.Strategy, Seed: opts.Seed, Lookahead: opts.Lookahead, MaxEvals: opts.MaxEvals, Time: time.Now().UTC()}
	var best Evaluation
	for _, e := range evals {
		s.Order = append(s.Order, e.Record.Name)
		if e.Measured {
			s.MeasureSeconds += e.Record.MeasureSeconds
		}
		if e.Beats(best) {
			best = e
		}
	}
	s.Best = best.Record.Name
	return s
}
