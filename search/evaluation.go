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

// LogSearchOf is the log's record of the search under opts (filled) that
// made evals: its order, its best point and the time spent measuring.
func LogSearchOf(opts Options, evals []Evaluation) LogSearch {
	s := LogSearch{Strategy: opts.Strategy, Seed: opts.Seed, Lookahead: opts.Lookahead, MaxEvals: opts.MaxEvals, Time: time.Now().UTC()}
	for _, e := range evals {
		s.Order = append(s.Order, e.Record.Name)
		if e.Measured {
			s.MeasureSeconds += e.Record.MeasureSeconds
		}
	}
	if first, _ := Best(evals); first >= 0 {
		s.Best = evals[first].Record.Name
	}
	return s
}

// Best returns the fastest verified evaluation of evals, and the
// runner-up (-1 if none): the lowest medians, earlier first among equals.
func Best(evals []Evaluation) (first, second int) {
	first, second = -1, -1
	for k, e := range evals {
		if !e.Record.Verified() {
			continue
		}
		m := e.Record.Stats.Median
		switch {
		case first < 0 || m < evals[first].Record.Stats.Median:
			first, second = k, first
		case second < 0 || m < evals[second].Record.Stats.Median:
			second = k
		}
	}
	return first, second
}
