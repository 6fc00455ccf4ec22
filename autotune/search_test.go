package autotune_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/store/storetest"
	"github.com/vkbench/vkbench/telemetry"
)

// spaceScaleOp is scaleOp with a space: the workgroup size, a slowing
// loop (SPIN) and a wrong result (WRONG) as params, and restrictions that
// reject some configurations.
type spaceScaleOp struct {
	*scaleOp
	space *kernels.Space
}

func (o *spaceScaleOp) Space() *kernels.Space { return o.space }

// newSpaceScaleOp makes the space; wgs are the workgroup sizes, and
// variant changes every kernel (a different SPIN loop per variant), as an
// edit of the shader would.
func newSpaceScaleOp(wgs []int, variant uint32) *spaceScaleOp {
	s := &kernels.Space{
		Params: []kernels.Param{{Name: "WG", Values: wgs}, {Name: "SPIN", Values: []int{0, 8, 64}}, {Name: "WRONG", Values: []int{0, 1}}},
		Restrictions: []kernels.Restriction{
			{Expr: "SPIN == 0 || WG >= 32", Holds: func(e kernels.Env) (bool, error) { return e.Param("SPIN") == 0 || e.Param("WG") >= 32, nil }},
			{Expr: "WG <= max_workgroup_invocations && WG <= N", Holds: func(e kernels.Env) (bool, error) {
				return uint32(e.Param("WG")) <= e.Limits.MaxWorkgroupInvocations && e.Param("WG") <= e.Dim("N"), nil
			}},
		},
		Candidate: func(c kernels.Config) (kernels.Candidate, error) {
			op := newScaleOp(scaleCand{name: fmt.Sprintf("wg%d-spin%d-wrong%d", c["WG"], c["SPIN"], c["WRONG"]),
				wg: uint32(c["WG"]), spin: uint32(c["SPIN"]) + variant, wrong: c["WRONG"] == 1})
			return op.cands[0], nil
		},
	}
	s.Operation = func(cands []kernels.Candidate) (kernels.Operation, []int) {
		index := make([]int, len(cands))
		for i := range index {
			index[i] = i
		}
		return &scaleOp{cands: cands}, index
	}
	return &spaceScaleOp{scaleOp: newScaleOp(scaleCand{name: "wg64", wg: 64}), space: s}
}

// buildCounter is a device that counts the pipelines built, by label.
type buildCounter struct {
	hal.Device
	mu    sync.Mutex
	built []string
}

func (d *buildCounter) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	d.mu.Lock()
	d.built = append(d.built, desc.Label)
	d.mu.Unlock()
	return d.Device.CreateExecutable(desc)
}

func (d *buildCounter) names() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(slices.Values(d.built))
}

// TestSearch searches the scale space exhaustively on the test device:
// every valid point is measured once, the rejected ones are never built,
// a wrong one never wins, every result is in the tuning log, and the
// answer is committed under the space's key.
func TestSearch(t *testing.T) {
	dev := &buildCounter{Device: devtest.Device(t)}
	cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	tuner := autotune.NewTuner(dev, cache, quick)
	op := newSpaceScaleOp([]int{16, 32, 64}, 0)
	var last autotune.SearchProgress
	res, err := tuner.Search(context.Background(), op, kernels.SizeOf(1<<14), autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive},
		Progress: func(p autotune.SearchProgress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	var valid []string
	for _, c := range res.Points.Candidates() {
		valid = append(valid, c.Name)
	}
	// 3 WG × 3 SPIN × 2 WRONG, less SPIN > 0 at WG 16: 14.
	if len(valid) != 14 || res.Points.Rejected["SPIN == 0 || WG >= 32"] != 4 {
		t.Fatalf("%d valid points %v, rejected %v; want 14, 4 by the SPIN rule", len(valid), valid, res.Points.Rejected)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(valid)), dev.names()); diff != "" {
		t.Errorf("pipelines built are not the valid points, each once (-valid +built):\n%s", diff)
	}
	e := res.Entry
	if e.Key != "scale.space/f32/16384" || e.Fastest < 0 {
		t.Fatalf("entry %s, fastest %d", e.Key, e.Fastest)
	}
	if w := e.Results[e.Fastest]; w.Outcome != results.Measured || w.Name[len(w.Name)-6:] != "wrong0" {
		t.Errorf("winner %s (%s); a wrong point must never win", w.Name, w.Outcome)
	}
	wrong := 0
	for _, r := range e.Results {
		if r.Outcome == results.Wrong {
			wrong++
		}
	}
	if wrong != 7 {
		t.Errorf("%d wrong results, want the 7 WRONG=1 points", wrong)
	}
	if res.Search.Measured != 14 || len(res.Search.Order) != 14 || res.Search.CompileSeconds <= 0 || res.Search.MeasureSeconds <= 0 {
		t.Errorf("search record %+v: want 14 measured, compile and measure times", res.Search)
	}
	// The progress's best so far ends at the log's best, by one rule.
	if last.Eval != 14 || last.Best == "" || last.Best != res.Search.Best {
		t.Errorf("the last progress: %d evaluations, best %q; want 14, the log's best %q", last.Eval, last.Best, res.Search.Best)
	}
	for _, r := range e.Results {
		if r.Name == last.Best && (r.Stats == nil || last.BestSeconds != r.Stats.Median) {
			t.Errorf("the last progress's best %s at %gs; measured %+v", r.Name, last.BestSeconds, r.Stats)
		}
	}
	logged, err := search.LogEvals(context.Background(), cache, res.Log)
	if err != nil || len(logged) != 14 {
		t.Errorf("the tuning log has %d records (%v), want 14", len(logged), err)
	}
	sum := autotune.Checksum(res.Op.Candidates())
	if i, ok := lookup(cache, tuner.Table(), autotune.Key{Op: "scale.space", DType: "f32", Size: kernels.SizeOf(16384)}, sum); !ok || i != e.Fastest {
		t.Errorf("the cache answers %d, %v; the search found %d", i, ok, e.Fastest)
	}
	// The named candidates' key is another question.
	if _, ok := lookup(cache, tuner.Table(), tuner.Key(op, kernels.SizeOf(1<<14)), autotune.Checksum(op.Candidates())); ok {
		t.Error("the search answered the named candidates' key")
	}
}

// TestSearchKeepWinner: with KeepWinner, a search hands the caller its
// winner's pipeline, the one it built and measured, and keeps no other:
// of the pipelines built, the winner's alone is alive after it, and none
// once the caller releases it. A search that its context ends, or whose
// points all compute wrongly, hands and keeps none; without KeepWinner
// there is none to hand, as before.
func TestSearchKeepWinner(t *testing.T) {
	base := devtest.Device(t)
	for _, c := range []struct {
		name   string
		keep   bool
		wrong  bool // every point computes wrongly
		cancel bool // after the second evaluation
	}{{name: "kept", keep: true}, {name: "not asked"}, {name: "cancelled", keep: true, cancel: true}, {name: "none verified", keep: true, wrong: true}} {
		t.Run(c.name, func(t *testing.T) {
			dev := &countingDevice{Device: base}
			tuner := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
			op := newSpaceScaleOp([]int{32, 64}, 0)
			if c.wrong {
				op.space.Params[2].Values = []int{1}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive, MaxEvals: 4}, KeepWinner: c.keep,
				Progress: func(p autotune.SearchProgress) {
					if c.cancel && p.Eval == 2 {
						cancel()
					}
				}}
			res, err := tuner.Search(ctx, op, kernels.SizeOf(1<<12), opts)
			switch {
			case c.cancel && !errors.Is(err, context.Canceled), c.wrong && err == nil, !c.cancel && !c.wrong && err != nil:
				t.Fatalf("Search: %v", err)
			case res != nil && (res.Pipeline != nil) != (c.keep && err == nil):
				t.Fatalf("SearchResult.Pipeline %v after %v; want one only where kept and the search succeeded", res.Pipeline, err)
			}
			made, alive := dev.alive(t)
			if made < 2 {
				t.Fatalf("%d pipelines built; want at least the two points evaluated", made)
			}
			if res == nil || res.Pipeline == nil {
				if alive != 0 {
					t.Errorf("%d of the %d pipelines built alive after the search; want none", alive, made)
				}
				return
			}
			if alive != 1 || res.Pipeline.Label() != res.Entry.FastestName {
				t.Errorf("%d of the %d pipelines built alive after the search, and handed %q; want the winner's alone, %q", alive, made, res.Pipeline.Label(), res.Entry.FastestName)
			}
			if err := res.Pipeline.Release(); err != nil {
				t.Fatal(err)
			}
			if _, alive := dev.alive(t); alive != 0 {
				t.Errorf("%d pipelines alive once the winner's is released; want none", alive)
			}
		})
	}
}

// TestSearchKeepWinnerByObjective: a search hands the caller the
// pipeline of its winner by the tuner's objective, and keeps no other,
// nor, measuring a point at a time, any that cannot win: by time one at
// most. Its progress's best at the end and its tuning log's are that
// winner, the log saying by what, and it shows both figures by the
// objective. Its two points are apart in time and far more in power: the fast
// one draws a billion times the slow one's, so the slow one wins by
// energy or energy-delay product however busy the machine makes their
// times.
func TestSearchKeepWinnerByObjective(t *testing.T) {
	base := devtest.Device(t)
	for _, c := range []struct {
		obj    autotune.Objective
		winner string
		kept   int
	}{{autotune.ObjectiveTime, "wg64-spin0-wrong0", 1}, {autotune.ObjectiveEnergy, "wg64-spin64-wrong0", 2}, {autotune.ObjectiveEDP, "wg64-spin64-wrong0", 2}} {
		t.Run(string(c.obj), func(t *testing.T) {
			dev := &countingDevice{Device: base}
			src := &pointPower{watts: map[string]float64{"wg64-spin0-wrong0": 1e3, "wg64-spin64-wrong0": 1e-6}, last: time.Now()}
			opts := quick
			opts.Telemetry, opts.EnergyWindow, opts.Objective, opts.Progress = src, 30*time.Millisecond, c.obj, src.measuring
			cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
			tuner := autotune.NewTuner(dev, cache, opts)
			op := newSpaceScaleOp([]int{64}, 0)
			op.space.Params[1].Values, op.space.Params[2].Values = []int{0, 64}, []int{0}
			most, last := 0, autotune.SearchProgress{}
			res, err := tuner.Search(context.Background(), op, kernels.SizeOf(1<<12), autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive},
				KeepWinner: true, CompileThreads: -1, Progress: func(p autotune.SearchProgress) { _, alive := dev.alive(t); most, last = max(most, alive), p }})
			if err != nil {
				t.Fatal(err)
			}
			e := res.Entry
			if e.Objective != c.obj || e.FastestName != c.winner {
				t.Fatalf("winner %s by %s (%s); want %s by %s", e.FastestName, e.Objective, e.ObjectiveNote, c.winner, c.obj)
			}
			made, alive := dev.alive(t)
			if res.Pipeline == nil || res.Pipeline.Label() != e.FastestName || alive != 1 || most > c.kept {
				t.Fatalf("handed %v, %d of the %d pipelines built alive, %d at most between points; want the winner %s's alone, %d at most", res.Pipeline, alive, made, most, e.FastestName, c.kept)
			}
			if err := res.Pipeline.Release(); err != nil {
				t.Fatal(err)
			}
			l, err := search.ReadLog(context.Background(), cache, res.Log)
			if err != nil || len(l.Searches) != 1 {
				t.Fatalf("the tuning log: %v, %d searches; want 1", err, len(l.Searches))
			}
			by := string(c.obj)
			if c.obj == autotune.ObjectiveTime {
				by = ""
			}
			if s := l.Searches[0]; last.Best != c.winner || s.Best != c.winner || s.Objective != by {
				t.Errorf("best %s as the search went, %s by %q in the log; want the winner %s by %q", last.Best, s.Best, s.Objective, c.winner, by)
			}
			// The progress shows the figures the search ranks by; it had the times alone.
			i := slices.IndexFunc(e.Results, func(r results.Result) bool { return r.Name == last.Name })
			v, _, _, _ := e.Results[i].ObjectiveValue(string(c.obj))
			bestV, _, _, _ := e.Results[e.Fastest].ObjectiveValue(string(c.obj))
			if last.Objective != c.obj || last.Value != v || last.BestValue != bestV || !(v > 0) || !(bestV > 0) {
				t.Errorf("the last progress by %q: %s %g, best %g; want by %q: %g, best %g", last.Objective, last.Name, last.Value, last.BestValue, c.obj, v, bestV)
			}
		})
	}
}

// pointPower is a telemetry source whose power is that of the point
// being measured (told by Options.Progress), watts by name, its energy
// counter the power drawn since it was made.
type pointPower struct {
	watts  map[string]float64
	mu     sync.Mutex
	now    float64
	joules float64
	last   time.Time
}

func (s *pointPower) Name() string { return "per-point" }
func (s *pointPower) Close() error { return nil }
func (s *pointPower) Sample() (telemetry.Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read(), nil
}

func (s *pointPower) read() telemetry.Sample {
	now := time.Now()
	s.joules += s.now * now.Sub(s.last).Seconds()
	s.last = now
	return telemetry.Sample{Time: now, SMClockMHz: 1980, MemClockMHz: 2619, PowerW: s.now, TempC: 50, EnergyJ: s.joules, MaxSMClockMHz: 1980, PowerLimitW: 700}
}

func (s *pointPower) measuring(p autotune.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.read()
	s.now = s.watts[p.Candidate]
}

// TestSearchCountsSpaceCompile: what the space's Load does (a manifest's
// decode of its space's configurations, when a search first enumerates
// its points) is in the search's compile time and wall time, not left
// out.
func TestSearchCountsSpaceCompile(t *testing.T) {
	dev := devtest.Device(t)
	tuner := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
	op := newSpaceScaleOp([]int{32}, 0)
	const took = 500 * time.Millisecond
	var once sync.Once
	op.space.Load = func() error {
		once.Do(func() { time.Sleep(took) })
		return nil
	}
	res, err := tuner.Search(context.Background(), op, kernels.SizeOf(1<<14), autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Search; r.CompileSeconds < took.Seconds() || r.WallSeconds < took.Seconds() {
		t.Errorf("compile %.3fs, wall %.3fs; want both at least the %v the space took to load", r.CompileSeconds, r.WallSeconds, took)
	}
}

// TestSearchObjective searches for a tuner that picks by energy: the
// answer goes into that tuner's own table, and it is the evaluated point
// with the least energy per run, with the objective recorded, not the
// fastest passed off as the most frugal.
func TestSearchObjective(t *testing.T) {
	cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	opts := quick
	opts.Telemetry = newSteady(200)
	opts.EnergyWindow = 30 * time.Millisecond
	opts.Objective = autotune.ObjectiveEnergy
	tuner := autotune.NewTuner(devtest.Device(t), cache, opts)
	if tb := tuner.Table(); !strings.HasSuffix(tb.Tuner, "+energy") {
		t.Errorf("table %+v: an energy tuner's answers belong in a table of their own", tb)
	}
	op := newSpaceScaleOp([]int{32, 64}, 0)
	res, err := tuner.Search(context.Background(), op, kernels.SizeOf(1<<12), autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
	if err != nil {
		t.Fatal(err)
	}
	e := res.Entry
	if e.Objective != autotune.ObjectiveEnergy {
		t.Fatalf("objective %q (%s), want energy", e.Objective, e.ObjectiveNote)
	}
	least := -1
	for i, r := range e.Results {
		if r.Outcome == results.Measured && r.EnergyJ > 0 && (least < 0 || r.EnergyJ < e.Results[least].EnergyJ) {
			least = i
		}
	}
	if least < 0 || e.Fastest != least {
		t.Errorf("winner %d (%s, %g J); the least energy per run is %d", e.Fastest, e.FastestName, e.Results[e.Fastest].EnergyJ, least)
	}
}

// TestSearchResumes interrupts a search (its context cancelled after a
// few measurements) and runs it again: the second run measures exactly
// what the first did not, and a third with a larger budget only the
// points past the second's. A changed space measures only its new points;
// a changed kernel, every point.
func TestSearchResumes(t *testing.T) {
	dev := &buildCounter{Device: devtest.Device(t)}
	path := filepath.Join(t.TempDir(), "c.db")
	tuner := autotune.NewTuner(dev, newCache(t, path), quick)
	op := newSpaceScaleOp([]int{32, 64}, 0) // 12 points
	size := kernels.SizeOf(1 << 14)
	ctx, cancel := context.WithCancel(context.Background())
	var first []string
	opts := autotune.SearchOptions{Options: search.Options{Strategy: search.Random, Seed: 5}, Progress: func(p autotune.SearchProgress) {
		if !p.FromLog {
			first = append(first, p.Name)
		}
		if len(first) == 5 {
			cancel()
		}
	}}
	_, err := tuner.Search(ctx, op, size, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted search: %v, want context.Canceled", err)
	}
	// Another process, as after a SIGINT.
	tuner = autotune.NewTuner(dev, newCache(t, path), quick)
	var second []string
	opts.Progress = func(p autotune.SearchProgress) {
		if !p.FromLog {
			second = append(second, p.Name)
		}
	}
	res, err := tuner.Search(context.Background(), op, size, opts)
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.Points.Configs)
	if len(first) != 5 || len(first)+len(second) != n || res.Search.Measured != len(second) {
		t.Errorf("first run measured %d, second %d (record: %d), of %d points", len(first), len(second), res.Search.Measured, n)
	}
	// The interrupted search is in the log too, though its context ended.
	if l, err := search.ReadLog(context.Background(), tuner.Store(), res.Log); err != nil || len(l.Searches) != 2 || !l.Searches[0].Interrupted || len(l.Searches[0].Order) != 5 {
		t.Errorf("the log's searches: %+v, %v; want the interrupted one of 5 evaluations, then the second", l, err)
	}
	for _, name := range second {
		if slices.Contains(first, name) {
			t.Errorf("%s measured by both runs", name)
		}
	}
	// A larger space: only its new points are measured.
	wider := newSpaceScaleOp([]int{32, 64, 128}, 0)
	res, err = tuner.Search(context.Background(), wider, size, autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Search.Measured, len(res.Points.Configs)-n; got != want {
		t.Errorf("a space with 6 new points: %d measured, want %d", got, want)
	}
	// A changed kernel: every point again.
	changed := newSpaceScaleOp([]int{32, 64}, 1)
	res, err = tuner.Search(context.Background(), changed, size, autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}, CompileThreads: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Search.Measured != n {
		t.Errorf("every kernel changed: %d of %d measured", res.Search.Measured, n)
	}
}

// TestSearchLarger runs a random search with a budget, then again with a
// larger one: the second measures only the points past the first's, and
// compiling in line or on threads proposes the same points.
func TestSearchLarger(t *testing.T) {
	dev := devtest.Device(t)
	tuner := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
	op := newSpaceScaleOp([]int{32, 64}, 0)
	size := kernels.SizeOf(1 << 14)
	small, err := tuner.Search(context.Background(), op, size, autotune.SearchOptions{Options: search.Options{Strategy: search.Anneal, Seed: 2, MaxEvals: 4}, CompileThreads: -1})
	if err != nil {
		t.Fatal(err)
	}
	large, err := tuner.Search(context.Background(), op, size, autotune.SearchOptions{Options: search.Options{Strategy: search.Anneal, Seed: 2, MaxEvals: 8}, CompileThreads: 3})
	if err != nil {
		t.Fatal(err)
	}
	if small.Search.Measured != 4 || large.Search.Measured != 4 {
		t.Errorf("budgets 4 then 8: measured %d then %d, want 4 and 4", small.Search.Measured, large.Search.Measured)
	}
	if diff := cmp.Diff(small.Search.Order, large.Search.Order[:4]); diff != "" {
		t.Errorf("the larger search did not begin as the smaller (-small +large):\n%s", diff)
	}
}

// TestSearchAnswerIsTheLogsBest: a search commits the fastest
// configuration the tuning log knows, of its own evaluations or an
// earlier search's: a one-point search run after an exhaustive one keeps
// the exhaustive answer, where it replaced it with its one slow point.
func TestSearchAnswerIsTheLogsBest(t *testing.T) {
	cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	tuner := autotune.NewTuner(devtest.Device(t), cache, quick)
	op := newSpaceScaleOp([]int{32, 64}, 0)
	size := kernels.SizeOf(1 << 14)
	all, err := tuner.Search(context.Background(), op, size, autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
	if err != nil {
		t.Fatal(err)
	}
	// A seed whose random search proposes a slow point (SPIN 64) first.
	slow := autotune.SearchOptions{Options: search.Options{Strategy: search.Random, MaxEvals: 1}}
	for ; slow.Seed < 1000; slow.Seed++ {
		s, err := search.NewStrategy(search.Random, search.GridOf(all.Points), slow.Seed, 1)
		if err != nil {
			t.Fatal(err)
		}
		if i, _ := s.Next(); all.Points.Configs[i]["SPIN"] == 64 && all.Points.Configs[i]["WRONG"] == 0 {
			break
		}
	}
	one, err := tuner.Search(context.Background(), op, size, slow)
	if err != nil || len(one.Search.Order) != 1 || !strings.Contains(one.Search.Order[0], "spin64-wrong0") {
		t.Fatalf("the one-point search (seed %d): %v, %v; want one slow point", slow.Seed, err, one)
	}
	i, ok := lookup(cache, tuner.Table(), autotune.Key{Op: "scale.space", DType: "f32", Size: size}, autotune.Checksum(one.Op.Candidates()))
	if !ok || i != all.Entry.Fastest || one.Entry.FastestName != all.Entry.FastestName {
		t.Errorf("after a search of %s alone, the answer is %s and the cache's %d (%v); the exhaustive search's was %s (%d)",
			one.Search.Order[0], one.Entry.FastestName, i, ok, all.Entry.FastestName, all.Entry.Fastest)
	}
}

// TestSearchContextLogLocked: a search whose cache file another process
// holds locked ends when its context does, with the context's error,
// where its read of the tuning log waited the store's lock timeout (10 s
// here) first, whatever the context.
func TestSearchContextLogLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	storetest.HoldLock(t, path)
	tuner := autotune.NewTuner(devtest.Device(t), newCache(t, path), quick)
	testenv.ContextEnd{Within: lockTimeout / 4}.Check(t, "a search with the cache file locked", func(ctx context.Context) error {
		res, err := tuner.Search(ctx, newSpaceScaleOp([]int{32}, 0), kernels.SizeOf(1<<14), autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
		if res != nil {
			t.Errorf("a search with the cache file locked: %v; want none", res)
		}
		return err
	})
}

// TestSearchBuildsWhatItEvaluates: a search of gemm's space, hundreds of
// configurations, with a budget of 2 builds the pipelines of the 2 it
// evaluates and no other, compiled ahead on threads or each just before
// its measurement (counted by a wrapper over the real device).
func TestSearchBuildsWhatItEvaluates(t *testing.T) {
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{-1, 4} {
		dev := &buildCounter{Device: devtest.Device(t)}
		tuner := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
		res, err := tuner.Search(context.Background(), gemm, kernels.SizeOf(64, 64, 64), autotune.SearchOptions{
			Options: search.Options{Strategy: search.Random, MaxEvals: 2, Seed: 1}, CompileThreads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(res.Points.Configs); n < 100 {
			t.Fatalf("gemm's space at 64³ has %d configurations; the test wants hundreds", n)
		}
		if diff := cmp.Diff(slices.Sorted(slices.Values(res.Search.Order)), dev.names()); diff != "" || len(res.Search.Order) != 2 {
			t.Errorf("--compile-threads %d: pipelines built are not the 2 configurations evaluated (-evaluated +built):\n%s", threads, diff)
		}
	}
}
