package search

import (
	"cmp"
	"context"
	"time"

	"github.com/vkbench/vkbench/status"
)

// Options bound and seed a search of a space.
type Options struct {
	// Strategy is one of Strategies; "" is Auto.
	Strategy string
	// MaxEvals bounds the evaluations, those answered from a tuning log
	// included. Zero means every point for Exhaustive, a quarter of the
	// points (at least DefaultMinEvals) for the others.
	MaxEvals int
	// TimeLimit bounds the search's wall-clock time (simulated in a
	// replay); no new point is evaluated past it. Zero means none.
	TimeLimit time.Duration
	Seed      uint64
	// Lookahead is how many proposals are outstanding at once (being
	// compiled or measured). It changes which points a strategy proposes,
	// so a replay uses the search's. Zero means DefaultLookahead.
	Lookahead int
}

// Defaults of Options.
const (
	DefaultLookahead = 4
	DefaultMinEvals  = 20
)

// Fill resolves o for a space of points points: Auto becomes the strategy
// it stands for, and zero bounds their defaults. A negative bound is
// InvalidArgument.
func (o *Options) Fill(points int) error {
	if o.Strategy == "" || o.Strategy == Auto {
		o.Strategy = autoStrategy(points)
	}
	if o.MaxEvals < 0 || o.TimeLimit < 0 || o.Lookahead < 0 {
		return status.New(status.InvalidArgument, "search: negative search bound")
	}
	if o.MaxEvals == 0 {
		o.MaxEvals = points
		if o.Strategy != Exhaustive {
			o.MaxEvals = min(points, max(DefaultMinEvals, (points+3)/4))
		}
	}
	o.MaxEvals = min(o.MaxEvals, points)
	o.Lookahead = cmp.Or(o.Lookahead, DefaultLookahead)
	return nil
}

// An Evaluator evaluates the points a search proposes: on a device (the
// tuner's), or from a tuning log (Replay).
type Evaluator interface {
	// Start begins what can begin of point i's evaluation before its turn
	// (its compile), if anything.
	Start(i int)
	// Evaluate waits for point i's evaluation, started earlier, and
	// returns it; its Median is what the strategy is told. An error ends
	// the search.
	Evaluate(ctx context.Context, i int) (Evaluation, error)
	// Elapsed is the search's time so far.
	Elapsed() time.Duration
	// Close ends the evaluations started and not waited for.
	Close()
}

// Drive runs strategy s against ev under opts (filled), as the package
// doc says. done, if not nil, is called after each evaluation; true ends
// the search. Drive returns the evaluations, in order, and the error that
// ended it early.
func Drive(ctx context.Context, s Strategy, ev Evaluator, opts Options, done func(Evaluation) bool) ([]Evaluation, error) {
	defer ev.Close()
	var evals []Evaluation
	var queue []int
	asked, stopped := 0, false
	timeUp := func() bool { return opts.TimeLimit > 0 && ev.Elapsed() >= opts.TimeLimit }
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
			ev.Start(i)
			queue = append(queue, i)
		}
	}
	ask()
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return evals, err
		}
		if timeUp() {
			break
		}
		i := queue[0]
		queue = queue[1:]
		e, err := ev.Evaluate(ctx, i)
		if err != nil {
			return evals, err
		}
		evals = append(evals, e)
		sec, ok := e.Median()
		s.Tell(i, sec, ok)
		if done != nil && done(e) {
			break
		}
		ask()
	}
	return evals, nil
}
