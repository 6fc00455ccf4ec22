package autotune

import (
	"cmp"
	"time"

	"github.com/vkbench/vkbench/search"
)

// SearchOptions bound and seed a search of a parameter space, and say
// how its points are measured.
type SearchOptions struct {
	// Options are the strategy, its seed and the search's bounds.
	search.Options
	// CompileThreads is how many pipelines compile at once, on CPU
	// threads, while the GPU measures (no more than Lookahead can: only
	// proposed points compile); negative compiles each point's pipeline
	// just before measuring it (no overlap). Zero means
	// DefaultCompileThreads.
	CompileThreads int
	// Force measures every point again instead of answering from the
	// tuning log (and replaces its records).
	Force bool
	// Progress, if set, is told of each evaluation as it completes.
	Progress func(SearchProgress)
}

// SearchProgress reports one evaluation of a search.
type SearchProgress struct {
	// Eval counts the evaluations so far, this one included; Budget is
	// the most there will be.
	Eval, Budget int
	Name         string
	// Seconds is its median, 0 for a failure; FromLog is set when the
	// tuning log answered.
	Seconds float64
	FromLog bool
	// Best is the fastest so far.
	Best        string
	BestSeconds float64
}

// DefaultCompileThreads is how many pipelines a search compiles at once
// by default.
var DefaultCompileThreads = 4

func (o *SearchOptions) fill(points int) error {
	if err := o.Options.Fill(points); err != nil {
		return err
	}
	o.CompileThreads = cmp.Or(o.CompileThreads, DefaultCompileThreads) // negative: in line
	return nil
}

// step is one evaluation of a search, as the tuning log records it.
type step struct {
	i        int
	rec      LogRecord
	measured bool
}

// median returns the step's median and whether it may win, as a
// search.Evaluator tells them.
func (s step) median() (float64, bool) {
	if s.rec.Stats == nil {
		return 0, false
	}
	return s.rec.Stats.Median, s.rec.ok()
}

// logSearch is the log's record of the search under opts that made
// steps: its order, its best point and the time spent measuring.
func logSearch(opts search.Options, steps []step) LogSearch {
	s := LogSearch{Strategy: opts.Strategy, Seed: opts.Seed, Lookahead: opts.Lookahead, MaxEvals: opts.MaxEvals, Time: time.Now().UTC()}
	for _, st := range steps {
		s.Order = append(s.Order, st.rec.Name)
		if st.measured {
			s.MeasureSeconds += st.rec.MeasureSeconds
		}
	}
	if first, _ := best(steps); first >= 0 {
		s.Best = steps[first].rec.Name
	}
	return s
}

// best returns the fastest verified evaluation of steps, and the runner-up
// (-1 if none): the lowest medians, earlier first among equals.
func best(steps []step) (first, second int) {
	first, second = -1, -1
	for k, s := range steps {
		if !s.rec.ok() {
			continue
		}
		m := s.rec.Stats.Median
		switch {
		case first < 0 || m < steps[first].rec.Stats.Median:
			first, second = k, first
		case second < 0 || m < steps[second].rec.Stats.Median:
			second = k
		}
	}
	return first, second
}
