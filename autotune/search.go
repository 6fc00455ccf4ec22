package autotune

import (
	"cmp"
	"context"
	"time"

	"github.com/vkbench/vkbench/status"
)

// SearchOptions bound and seed a search of a parameter space.
type SearchOptions struct {
	// Strategy is one of Strategies; "" is Auto.
	Strategy string
	// MaxEvals bounds the evaluations, those answered from the tuning log
	// included. Zero means every point for Exhaustive (and Auto on a small
	// space), a quarter of the points (at least DefaultMinEvals) for the
	// others.
	MaxEvals int
	// TimeLimit bounds the search's wall-clock time (simulated, from the
	// recorded times, in a replay); no new point is measured past it.
	// Zero means none.
	TimeLimit time.Duration
	// Seed seeds the strategy: the same seed, space and results give the
	// same search.
	Seed uint64
	// Lookahead is how many proposals are outstanding at once (being
	// compiled or measured): the strategy proposes the next point before
	// knowing the results of the Lookahead-1 before it, so that they
	// compile while the GPU measures. It changes which points a strategy
	// proposes, so a replay uses the search's. Zero means
	// DefaultLookahead.
	Lookahead int
	// CompileThreads is how many pipelines compile at once, on CPU
	// threads, while the GPU measures (no more than Lookahead can: only
	// proposed points compile); negative compiles each point's pipeline
	// just before measuring it (no overlap). Zero means
	// DefaultCompileThreads.
	CompileThreads int
	// Force measures every point again instead of answering from the
	// tuning log (and replaces its records).
	Force bool
	// StopWithin, in a replay, ends the search once a configuration within
	// this fraction of the log's best (0.03 for 3%) has been evaluated;
	// zero never.
	StopWithin float64
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

// Defaults of SearchOptions.
const (
	DefaultLookahead = 4
	DefaultMinEvals  = 20
)

// DefaultCompileThreads is how many pipelines a search compiles at once
// by default.
var DefaultCompileThreads = 4

func (o *SearchOptions) fill(points int) error {
	if o.Strategy == "" || o.Strategy == Auto {
		o.Strategy = Bayes
		if points <= SmallSpace {
			o.Strategy = Exhaustive
		}
	}
	if o.MaxEvals < 0 || o.TimeLimit < 0 || o.Lookahead < 0 || o.StopWithin < 0 {
		return status.New(status.InvalidArgument, "autotune: negative search bound")
	}
	if o.MaxEvals == 0 {
		o.MaxEvals = points
		if o.Strategy != Exhaustive {
			o.MaxEvals = min(points, max(DefaultMinEvals, (points+3)/4))
		}
	}
	o.MaxEvals = min(o.MaxEvals, points)
	o.Lookahead = cmp.Or(o.Lookahead, DefaultLookahead)
	o.CompileThreads = cmp.Or(o.CompileThreads, DefaultCompileThreads) // negative: in line
	return nil
}

// pointSource evaluates a search's proposals: from a log or on a device.
type pointSource interface {
	// start begins what can begin of point i's evaluation (its compile).
	start(i int)
	// result waits for point i's evaluation, started earlier; measured is
	// false when the log answered. An error ends the search.
	result(ctx context.Context, i int) (rec LogRecord, measured bool, err error)
	// elapsed is the search's time so far.
	elapsed() time.Duration
	// close ends the evaluations started and not waited for.
	close()
}

// step is one evaluation of a search.
type step struct {
	i        int
	rec      LogRecord
	measured bool
}

// drive runs strategy s against src under opts, keeping Lookahead
// proposals outstanding and telling results in the order proposed. It
// returns the evaluations done, and the error that ended it early.
func drive(ctx context.Context, s Strategy, src pointSource, opts SearchOptions, done func(step) bool) ([]step, error) {
	defer src.close()
	var steps []step
	var queue []int
	asked, stopped := 0, false
	timeUp := func() bool { return opts.TimeLimit > 0 && src.elapsed() >= opts.TimeLimit }
	ask := func() {
		for !stopped && len(queue) < opts.Lookahead && asked < opts.MaxEvals {
			if timeUp() {
				stopped = true
				return
			}
			i, ok := s.Next()
			if !ok {
				stopped = true
				return
			}
			asked++
			src.start(i)
			queue = append(queue, i)
		}
	}
	ask()
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return steps, err
		}
		if timeUp() {
			break
		}
		i := queue[0]
		queue = queue[1:]
		rec, measured, err := src.result(ctx, i)
		if err != nil {
			return steps, err
		}
		st := step{i: i, rec: rec, measured: measured}
		steps = append(steps, st)
		median := 0.0
		if rec.Stats != nil {
			median = rec.Stats.Median
		}
		s.Tell(i, median, rec.ok())
		if done != nil && done(st) {
			break
		}
		ask()
	}
	return steps, nil
}

// logSearch is the log's record of the search under opts that made
// steps: its order, its best point and the time spent measuring.
func logSearch(opts SearchOptions, steps []step) LogSearch {
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
