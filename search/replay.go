package search

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// ReplayOptions are a replay's search, and when it ends.
type ReplayOptions struct {
	Options
	// StopWithin ends the search once a configuration within this
	// fraction of the log's best (0.03 for 3%) has been evaluated: how
	// soon a strategy gets there is what a replay compares. Zero never.
	StopWithin float64
	// Pick names the winner of a replay's evaluations by an objective
	// other than time, and what it won by (LogSearch's Best and
	// Objective), as a tuner picks its answer: autotune.BestOf. A log
	// whose searches ranked by energy or edp needs it.
	Pick func(evals []Evaluation, objective string) (best Evaluation, by string)
}

// ReplayResult is a search run against a recorded tuning log: the search
// as a log records it (Simulated), the log's records of the
// configurations it evaluated, in order, the number of configurations in
// the log's space (those with a record), and the least figure by
// Objective among them (Best): by time ("") the fastest verified median,
// the exhaustive search's answer; by "energy" the least joules per run,
// by "edp" the least energy × time.
type ReplayResult struct {
	Search    LogSearch
	Evals     []LogRecord
	Points    int
	Best      float64
	Objective string
}

// EvalsWithin returns how many evaluations the search made until it had
// evaluated a verified configuration within frac of the log's best
// (0.03: a figure at most 3% above it), or 0 if it never did.
func (r *ReplayResult) EvalsWithin(frac float64) int {
	return slices.IndexFunc(r.Evals, func(rec LogRecord) bool { return r.within(rec, frac) }) + 1
}

func (r *ReplayResult) within(rec LogRecord, frac float64) bool {
	v, ok := r.Value(rec)
	return ok && v <= r.Best*(1+frac)
}

// Value returns rec's figure by the replay's Objective, and whether rec
// is verified and has it.
func (r *ReplayResult) Value(rec LogRecord) (float64, bool) {
	v, _, _, ok := rec.ObjectiveValue(r.Objective)
	return v, ok && rec.Verified()
}

// BestSoFar returns, after each of evals, the least figure by objective
// ("" or "time", "energy", "edp") of the verified ones up to it (+Inf
// before the first): a search's convergence.
func BestSoFar(evals []LogRecord, objective string) []float64 {
	out := make([]float64, len(evals))
	b := math.Inf(1)
	for k, rec := range evals {
		if v, _, _, ok := rec.ObjectiveValue(objective); ok && rec.Verified() {
			b = min(b, v)
		}
		out[k] = b
	}
	return out
}

// Replay runs a search against a recorded tuning log instead of a device,
// as the package doc's Replay says.
func Replay(l *TuneLog, opts ReplayOptions) (*ReplayResult, error) {
	sopts := opts.Options
	g, recs, err := l.grid()
	if err != nil {
		return nil, err
	}
	if opts.StopWithin < 0 {
		return nil, status.New(status.InvalidArgument, "search: negative search bound")
	}
	if err := sopts.Fill(g.Len()); err != nil {
		return nil, err
	}
	strat, err := NewStrategy(sopts.Strategy, g, sopts.Seed, sopts.MaxEvals)
	if err != nil {
		return nil, err
	}
	// By the log's objective, unless a record lacks its figure: then by
	// time, as a tuner's pick falls back.
	res := &ReplayResult{Points: g.Len(), Best: math.Inf(1), Objective: l.Objective()}
	if slices.ContainsFunc(recs, func(r LogRecord) bool { _, ok := res.Value(r); return !ok && r.Verified() }) {
		res.Objective = ""
	}
	if res.Objective != "" && opts.Pick == nil {
		return nil, status.Newf(status.InvalidArgument, "search: the tuning log of %s was searched by %s, and the replay has no Pick to pick its winners by it", l.Header.Key, res.Objective)
	}
	for _, r := range recs {
		if v, ok := res.Value(r); ok {
			res.Best = min(res.Best, v)
		}
	}
	src := &logSource{recs: recs}
	evals, err := Drive(context.Background(), strat, src, sopts, func(e Evaluation) bool {
		return opts.StopWithin > 0 && res.within(e.Record, opts.StopWithin)
	})
	if err != nil {
		return nil, err
	}
	res.Search = LogSearchOf(sopts, evals)
	if res.Objective != "" {
		best, by := opts.Pick(evals, res.Objective)
		res.Search.Best, res.Search.Objective = best.Record.Name, by
	}
	res.Search.Simulated, res.Search.WallSeconds = true, src.clock.Seconds()
	for _, e := range evals {
		res.Evals = append(res.Evals, e.Record)
		res.Search.CompileSeconds += e.Record.CompileSeconds
	}
	return res, nil
}

// grid returns the grid of the log's configurations, in the order of
// kernels.Space.Points (so that a replay proposes what the search on the
// device proposed), and their records. Records of configurations outside
// the header's space are left out.
func (l *TuneLog) grid() (*Grid, []LogRecord, error) {
	params := l.Header.Space.Params
	space := &kernels.Space{Params: params}
	type point struct {
		coords []int
		rec    LogRecord
	}
	var pts []point
	seen := map[string]bool{}
	for _, r := range l.Evals {
		c := space.Index(r.Config)
		if slices.Contains(c, -1) || len(r.Config) != len(params) || seen[r.Name] {
			continue
		}
		seen[r.Name] = true
		pts = append(pts, point{c, r})
	}
	if len(pts) == 0 {
		return nil, nil, status.Newf(status.InvalidArgument, "search: the tuning log of %s has no evaluation of its space", l.Header.Key)
	}
	slices.SortFunc(pts, func(a, b point) int { return slices.Compare(a.coords, b.coords) })
	g := &Grid{Params: params}
	recs := make([]LogRecord, len(pts))
	for k, p := range pts {
		g.Coords = append(g.Coords, p.coords)
		recs[k] = p.rec
	}
	return g, recs, nil
}

// logSource answers from a log's records, on a simulated clock.
type logSource struct {
	recs  []LogRecord
	clock time.Duration
}

var _ Evaluator = (*logSource)(nil)

func (s *logSource) Start(int) {}

func (s *logSource) Evaluate(_ context.Context, i int) (Evaluation, error) {
	r := s.recs[i]
	s.clock += time.Duration((r.CompileSeconds + r.MeasureSeconds) * float64(time.Second))
	return Evaluation{Point: i, Record: r, Measured: true}, nil
}

func (s *logSource) Elapsed() time.Duration { return s.clock }
func (s *logSource) Close()                 {}
