package search_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
)

// table is an Evaluator over known times: point i takes times[i] seconds
// (0: it failed), and each evaluation a second of the clock. It records
// what the driver asked of it.
type table struct {
	times   []float64
	clock   time.Duration
	started []int
	// outstanding is the most points started and not yet evaluated.
	outstanding, most int
	closed            bool
}

func (t *table) Start(i int) {
	t.started = append(t.started, i)
	t.outstanding++
	t.most = max(t.most, t.outstanding)
}

func (t *table) Evaluate(_ context.Context, i int) (search.Evaluation, error) {
	t.outstanding--
	t.clock += time.Second
	r := results.Result{Measurement: results.Measurement{Outcome: results.Failed}}
	if t.times[i] > 0 {
		r = results.Result{Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: t.times[i]}}}
	}
	return search.Evaluation{Point: i, Record: search.LogRecord{Result: r}, Measured: true}, nil
}

// points returns the points of evals, in order.
func points(evals []search.Evaluation) []int {
	var out []int
	for _, e := range evals {
		out = append(out, e.Point)
	}
	return out
}

func (t *table) Elapsed() time.Duration { return t.clock }
func (t *table) Close()                 { t.closed = true }

// descent is a caller's own strategy: it evaluates the points in reverse,
// and stops at the first that is slower than the one before it.
type descent struct {
	next, n int
	last    float64
	stop    bool
	told    []int
}

func (d *descent) Next() (int, bool) {
	if d.stop || d.next >= d.n {
		return 0, false
	}
	d.next++
	return d.n - d.next, true
}

func (d *descent) Tell(i int, seconds float64, ok bool) {
	d.told = append(d.told, i)
	if ok && d.last > 0 && seconds > d.last {
		d.stop = true
	}
	if ok {
		d.last = seconds
	}
}

// A strategy of the caller's own is driven as the built-in ones are: its
// proposals evaluated in order, a few ahead, and their results told back.
func ExampleDrive() {
	ev := &table{times: []float64{5, 4, 3, 2, 1, 2, 3, 4}}
	s := &descent{n: len(ev.times)}
	opts := search.Options{Lookahead: 1}
	if err := opts.Fill(len(ev.times)); err != nil {
		panic(err)
	}
	evals, err := search.Drive(context.Background(), s, ev, opts, nil)
	fmt.Println(points(evals), err)
	// Output: [7 6 5 4 3] <nil>
}

// TestDriveLookahead: the driver keeps Lookahead proposals outstanding,
// tells results in the order proposed, and stops at MaxEvals, at the time
// limit, when done says so, and when the context ends.
func TestDriveLookahead(t *testing.T) {
	times := []float64{8, 7, 0, 5, 4, 3, 2, 1}
	for _, tt := range []struct {
		name  string
		opts  search.Options
		done  func(search.Evaluation) bool
		ctx   func() context.Context
		want  []int
		err   error
		ahead int
	}{
		{name: "all", opts: search.Options{Strategy: search.Exhaustive, Lookahead: 3}, want: []int{0, 1, 2, 3, 4, 5, 6, 7}, ahead: 3},
		{name: "max-evals", opts: search.Options{Strategy: search.Exhaustive, MaxEvals: 5}, want: []int{0, 1, 2, 3, 4}, ahead: 4},
		{name: "time-limit", opts: search.Options{Strategy: search.Exhaustive, TimeLimit: 3 * time.Second}, want: []int{0, 1, 2}, ahead: 4},
		{name: "done", opts: search.Options{Strategy: search.Exhaustive, Lookahead: 2}, done: func(e search.Evaluation) bool { return e.Point == 1 }, want: []int{0, 1}, ahead: 2},
		{name: "cancelled", opts: search.Options{Strategy: search.Exhaustive}, ctx: func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, err: context.Canceled, ahead: 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev := &table{times: times}
			if err := tt.opts.Fill(len(times)); err != nil {
				t.Fatal(err)
			}
			s, err := search.NewStrategy(tt.opts.Strategy, &search.Grid{Coords: make([][]int, len(times))}, 1, tt.opts.MaxEvals)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			evals, err := search.Drive(ctx, s, ev, tt.opts, tt.done)
			got := points(evals)
			if !errors.Is(err, tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("evaluated (-want +got):\n%s", diff)
			}
			if ev.most != tt.ahead || !ev.closed {
				t.Errorf("%d outstanding at most, closed %v; want %d, closed", ev.most, ev.closed, tt.ahead)
			}
		})
	}
}

// TestOptionsFill: Auto is exhaustive on a small space and Bayes on a
// large one, the default budgets follow the strategy, and a negative
// bound is refused.
func TestOptionsFill(t *testing.T) {
	for _, tt := range []struct {
		opts   search.Options
		points int
		want   search.Options
	}{
		{search.Options{}, search.SmallSpace, search.Options{Strategy: search.Exhaustive, MaxEvals: search.SmallSpace, Lookahead: search.DefaultLookahead}},
		{search.Options{}, 400, search.Options{Strategy: search.Bayes, MaxEvals: 100, Lookahead: search.DefaultLookahead}},
		{search.Options{Strategy: search.Random}, 40, search.Options{Strategy: search.Random, MaxEvals: search.DefaultMinEvals, Lookahead: search.DefaultLookahead}},
		{search.Options{Strategy: search.Anneal, MaxEvals: 1000, Lookahead: 1}, 40, search.Options{Strategy: search.Anneal, MaxEvals: 40, Lookahead: 1}},
	} {
		got := tt.opts
		if err := got.Fill(tt.points); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%+v on %d points (-want +got):\n%s", tt.opts, tt.points, diff)
		}
	}
	bad := search.Options{MaxEvals: -1}
	if err := bad.Fill(10); err == nil {
		t.Error("a negative MaxEvals was filled")
	}
}
