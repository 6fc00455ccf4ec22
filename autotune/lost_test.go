package autotune_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
)

// TestMeasureDeviceLostKeepsTheMeasured loses the device while sampling:
// Measure, and a Tuner's Tune, return the loss with what was measured
// before it, where they once returned the loss alone (and the command
// failed every candidate with it). The candidate that was running fails
// with the loss; the other keeps its samples, measured; no candidate
// wins, each flagged; the tune commits nothing.
func TestMeasureDeviceLostKeepsTheMeasured(t *testing.T) {
	op := newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "wg32", wg: 32})
	size := kernels.SizeOf(1 << 12)
	measure := func(dev hal.Device) (*autotune.Entry, error) {
		return autotune.Measure(context.Background(), dev, op, size, oneRunPerSample())
	}
	path := filepath.Join(t.TempDir(), "c.db")
	tune := func(dev hal.Device) (*autotune.Entry, error) {
		return autotune.NewTuner(dev, newCache(t, path), oneRunPerSample()).Tune(context.Background(), op, size, false)
	}
	for name, measure := range map[string]func(hal.Device) (*autotune.Entry, error){"Measure": measure, "Tune": tune} {
		plan := faulty.NewPlan()
		plan.LoseAt(faulty.Submit, 12)
		e, err := measure(faulty.Wrap(devtest.Device(t), plan))
		if !errors.Is(err, hal.ErrDeviceLost) || e == nil {
			t.Fatalf("%s losing the device while sampling = %v, %v; want an entry and hal.ErrDeviceLost", name, e, err)
		}
		var lost, measured int
		for _, r := range e.Results {
			switch {
			case r.Outcome == results.Failed && strings.Contains(r.Error, "device lost"):
				lost++
			case r.Outcome == results.Measured && r.Stats != nil && len(r.Stats.Samples) > 0:
				measured++
			}
			if !slices.Contains(r.Flags, autotune.FlagDeviceLost) {
				t.Errorf("%s: %s's flags %v lack %q", name, r.Name, r.Flags, autotune.FlagDeviceLost)
			}
		}
		if lost != 1 || measured != 1 {
			t.Errorf("%s: results %+v; want the one running failed with the loss, the other measured", name, e.Results)
		}
		if e.Fastest != -1 {
			t.Errorf("%s: Fastest = %d after a loss, want -1: a partial set crowns no winner", name, e.Fastest)
		}
	}
	if tables, err := newCache(t, path).Tables(t.Context()); err != nil || len(tables) != 0 {
		t.Errorf("a tune that lost its device committed: tables %v, %v", tables, err)
	}
}

// TestMergeRoundsDeviceLostKeepsEarlierRounds loses the device at the
// first submission of a second round: the candidate it lost fails, the
// other, not run in that round, keeps the first round's samples (where
// the round's "not run" once failed it), and no candidate wins.
func TestMergeRoundsDeviceLostKeepsEarlierRounds(t *testing.T) {
	plan := faulty.NewPlan()
	dev := faulty.Wrap(devtest.Device(t), plan)
	op := newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "wg32", wg: 32})
	size, opts := kernels.SizeOf(1<<12), oneRunPerSample()
	opts.NoDrop = true // each measured to the end
	first, err := autotune.MeasureRound(context.Background(), dev, op, size, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	plan.LoseAt(faulty.Submit, 1)
	second, err := autotune.MeasureRound(context.Background(), dev, op, size, opts, 1)
	if !errors.Is(err, hal.ErrDeviceLost) || second == nil {
		t.Fatalf("a round losing the device = %v, %v; want an entry and hal.ErrDeviceLost", second, err)
	}
	if r := second.Results[1]; r.Outcome != results.NotRun || r.Error != "the device was lost before, measuring "+second.Results[0].Name {
		t.Errorf("the candidate not run in the lost round: %s %q; want not run, naming the one that lost the device", r.Outcome, r.Error)
	}
	e := autotune.MergeRounds(op, []*autotune.Entry{first, second}, opts)
	lost, kept := e.Results[0], e.Results[1]
	if lost.Outcome != results.Failed || !strings.Contains(lost.Error, "device lost") {
		t.Errorf("the candidate that lost the device: %s %q, want failed with the loss", lost.Outcome, lost.Error)
	}
	if kept.Outcome != results.Measured || len(kept.Rounds) != 1 || !slices.Contains(kept.Flags, autotune.FlagDeviceLost) {
		t.Errorf("the candidate not run in the lost round: %s %q, %d rounds, flags %v; want measured in the first, flagged", kept.Outcome, kept.Error, len(kept.Rounds), kept.Flags)
	}
	if e.Fastest != -1 {
		t.Errorf("Fastest = %d after a loss, want -1", e.Fastest)
	}
}

// TestSearchDeviceLostKeepsTheEvaluated loses the device as a search's
// second point is sampled, or built (in line, Measure's running candidate
// from its build on): Search returns the loss with the entry of what it
// evaluated, as Measure does, where it returned the loss alone (and the
// command failed the operation's named candidate with it). The first
// point keeps its numbers, the second fails with the loss, the points
// proposed after it were not run, naming it; no winner, nothing
// committed, and the tuning log holds the first point alone.
func TestSearchDeviceLostKeepsTheEvaluated(t *testing.T) {
	for _, c := range []struct {
		name    string
		call    faulty.Call
		threads int
	}{{"sampling", faulty.Submit, 0}, {"building", faulty.CreateExecutable, -1}} {
		t.Run(c.name, func(t *testing.T) { searchLosingTheDevice(t, c.call, c.threads) })
	}
}

// searchLosingTheDevice is TestSearchDeviceLostKeepsTheEvaluated, the
// device lost at the first call after the first point's evaluation, with
// threads compile threads.
func searchLosingTheDevice(t *testing.T, call faulty.Call, threads int) {
	plan := faulty.NewPlan()
	cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	tuner := autotune.NewTuner(faulty.Wrap(devtest.Device(t), plan), cache, quick)
	op := newSpaceScaleOp([]int{32, 64}, 0) // 12 points, exhaustive: wg32-spin0-wrong0 first
	n := 0
	res, err := tuner.Search(context.Background(), op, kernels.SizeOf(1<<14), autotune.SearchOptions{
		Options: search.Options{Strategy: search.Exhaustive}, CompileThreads: threads,
		Progress: func(autotune.SearchProgress) {
			if n++; n == 1 {
				plan.LoseAt(call, 1)
			}
		}})
	if !errors.Is(err, hal.ErrDeviceLost) || res == nil {
		t.Fatalf("a search losing the device = %v, %v; want a result and hal.ErrDeviceLost", res, err)
	}
	got := map[results.Outcome][]string{}
	for _, r := range res.Entry.Results {
		got[r.Outcome] = append(got[r.Outcome], r.Name)
		if lost := slices.Contains(r.Flags, autotune.FlagDeviceLost); lost == (r.Outcome == results.Unevaluated) {
			t.Errorf("%s (%s): flags %v; want %q on every point of the search, on no other", r.Name, r.Outcome, r.Flags, autotune.FlagDeviceLost)
		}
		switch r.Outcome {
		case results.Measured:
			if r.Stats == nil || len(r.Stats.Samples) == 0 {
				t.Errorf("%s measured without its samples", r.Name)
			}
		case results.Failed:
			if !strings.Contains(r.Error, "device lost") {
				t.Errorf("%s failed with %q, want the loss", r.Name, r.Error)
			}
		case results.NotRun:
			if r.Error != results.LostBefore("wg32-spin0-wrong1") {
				t.Errorf("%s not run: %q, want %q", r.Name, r.Error, results.LostBefore("wg32-spin0-wrong1"))
			}
		}
	}
	want := map[results.Outcome][]string{
		results.Measured: {"wg32-spin0-wrong0"}, results.Failed: {"wg32-spin0-wrong1"},
		results.NotRun:      {"wg32-spin8-wrong0", "wg32-spin8-wrong1", "wg32-spin64-wrong0"},
		results.Unevaluated: {"wg32-spin64-wrong1", "wg64-spin0-wrong0", "wg64-spin0-wrong1", "wg64-spin8-wrong0", "wg64-spin8-wrong1", "wg64-spin64-wrong0", "wg64-spin64-wrong1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes after the loss (-want +got):\n%s", diff)
	}
	if res.Entry.Fastest != -1 || len(res.Search.Order) != 1 || !res.Search.Interrupted {
		t.Errorf("Fastest %d, search record %+v; want no winner, one evaluation, interrupted", res.Entry.Fastest, res.Search)
	}
	if logged, err := search.LogEvals(context.Background(), cache, res.Log); err != nil || len(logged) != 1 {
		t.Errorf("the tuning log has %d records (%v), want the one evaluated before the loss", len(logged), err)
	}
	if _, ok := lookup(cache, tuner.Table(), autotune.Key{Op: "scale.space", DType: "f32", Size: kernels.SizeOf(1 << 14)}, autotune.Checksum(res.Op.Candidates())); ok {
		t.Error("a search that lost its device committed an answer")
	}
}

// TestWrongResultAsTheDeviceIsLost loses the device as a candidate's
// check finds its result wrong: Measure, a Tuner's Tune and a search end
// with the loss, where they ended with the wrong result (FAILED_PRECONDITION,
// a verdict on the candidate), which a caller told apart from a lost
// device only by luck (TestLoad failed on it in CI).
func TestWrongResultAsTheDeviceIsLost(t *testing.T) {
	size := kernels.SizeOf(1 << 12)
	for name, run := range map[string]func(hal.Device, *faulty.Plan) error{
		"Measure": func(dev hal.Device, plan *faulty.Plan) error {
			_, err := autotune.Measure(context.Background(), dev, losingOp{newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "wrong", wg: 64, wrong: true}), plan}, size, quick)
			return err
		},
		"Tune": func(dev hal.Device, plan *faulty.Plan) error {
			tuner := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
			_, err := tuner.Tune(context.Background(), losingOp{newScaleOp(scaleCand{name: "wrong", wg: 64, wrong: true}, scaleCand{name: "wg64", wg: 64}), plan}, size, false)
			return err
		},
		"Search": func(dev hal.Device, plan *faulty.Plan) error {
			tuner := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
			op := newSpaceScaleOp([]int{32, 64}, 0) // exhaustive: wg32-spin0-wrong0, then wg32-spin0-wrong1
			points := op.space.Operation
			op.space.Operation = func(cands []kernels.Candidate) (kernels.Operation, []int) {
				o, index := points(cands)
				return losingOp{o.(*scaleOp), plan}, index
			}
			_, err := tuner.Search(context.Background(), op, kernels.SizeOf(1<<14), autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
			return err
		},
	} {
		plan := faulty.NewPlan()
		if err := run(faulty.Wrap(devtest.Device(t), plan), plan); !errors.Is(err, hal.ErrDeviceLost) || errors.Is(err, kernels.ErrWrongResult) {
			t.Errorf("%s, the device lost as a wrong result was read: %v; want the loss alone", name, err)
		}
	}
}

// losingOp is an operation whose problems lose the device (Plan.LoseNow)
// when a check finds a result wrong.
type losingOp struct {
	*scaleOp
	plan *faulty.Plan
}

func (o losingOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	p, err := o.scaleOp.Prepare(ctx, dev, size, seed)
	return losingProblem{p, o.plan}, err
}

type losingProblem struct {
	kernels.Problem
	plan *faulty.Plan
}

func (p losingProblem) Verify(ctx context.Context, cand int) error {
	err := p.Problem.Verify(ctx, cand)
	if errors.Is(err, kernels.ErrWrongResult) {
		p.plan.LoseNow()
	}
	return err
}
