package autotune_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/store"
)

// twinJobs are six keys of the scale operation.
func twinJobs(op kernels.Operation) []autotune.Job {
	var jobs []autotune.Job
	for _, n := range []int{1 << 10, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16} {
		jobs = append(jobs, autotune.Job{Op: op, Size: kernels.SizeOf(n)})
	}
	return jobs
}

// twins opens the default device twice (two logical devices of the same
// hardware), the second wrapped with plan.
func twins(t *testing.T, plan *faulty.Plan) (hal.Device, hal.Device) {
	drv := devtest.Driver(t)
	a := devtest.OpenIndex(t, drv, -1)
	b := devtest.OpenIndex(t, drv, -1)
	return a, faulty.Wrap(b, plan)
}

func TestTuneAllTwinsSplitTheWork(t *testing.T) {
	a, b := twins(t, faulty.NewPlan())
	cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	op := defaultScaleOp()
	tuners := []*autotune.Tuner{autotune.NewTuner(a, cache, quick), autotune.NewTuner(b, cache, quick)}
	jobs := twinJobs(op)
	out, err := autotune.TuneAll(context.Background(), tuners, func(store.Table, hal.DeviceInfo) []autotune.Job { return jobs }, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(jobs) {
		t.Fatalf("%d results for %d jobs of one group", len(out), len(jobs))
	}
	per := map[int]int{}
	for i, r := range out {
		if r.Err != nil || r.Entry == nil {
			t.Errorf("job %d: %v", i, r.Err)
			continue
		}
		per[r.Tuner]++
	}
	if got := op.prepares.Load(); got != int64(len(jobs)) {
		t.Errorf("%d tunes for %d keys: some key was tuned twice", got, len(jobs))
	}
	if per[0] == 0 || per[1] == 0 {
		t.Errorf("jobs per device = %v: both twins should have tuned", per)
	}
	entries, err := autotune.Entries(t.Context(), cache, tuners[0].Table())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(jobs) {
		t.Errorf("%d entries committed for %d keys", len(entries), len(jobs))
	}
}

func TestTuneAllLossOnOneTwin(t *testing.T) {
	plan := faulty.NewPlan()
	a, b := twins(t, plan)
	cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	op := defaultScaleOp()
	tuners := []*autotune.Tuner{autotune.NewTuner(a, cache, quick), autotune.NewTuner(b, cache, quick)}
	// The twin is lost in the middle of its first tune's sampling.
	plan.LoseAt(faulty.Submit, 8)
	jobs := twinJobs(op)
	out, err := autotune.TuneAll(context.Background(), tuners, func(store.Table, hal.DeviceInfo) []autotune.Job { return jobs }, false)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(tuners[1].Err(), hal.ErrDeviceLost) {
		t.Fatalf("the twin was not lost: %v", tuners[1].Err())
	}
	retried := 0
	for i, r := range out {
		if r.Err != nil || r.Entry == nil {
			t.Errorf("job %d not answered: %v", i, r.Err)
			continue
		}
		if r.Tuner != 0 && r.Retried > 0 {
			t.Errorf("job %d was retried but answered by tuner %d", i, r.Tuner)
		}
		retried += r.Retried
	}
	if retried != 1 {
		t.Errorf("%d jobs were given back by the lost twin, want 1", retried)
	}
	entries, err := autotune.Entries(t.Context(), cache, tuners[0].Table())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(jobs) {
		t.Errorf("%d entries committed for %d keys", len(entries), len(jobs))
	}
	keys := map[string]int{}
	for _, e := range entries {
		keys[e.Key]++
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("%s committed %d times", k, n)
		}
	}
}

// TestTuneAllTables: twins in two tables go through one table, then the
// other, each table's jobs shared by the twins and answered in its own
// table, the outcomes in table order.
func TestTuneAllTables(t *testing.T) {
	a, b := twins(t, faulty.NewPlan())
	cache := newCache(t, filepath.Join(t.TempDir(), "c.db"))
	op := defaultScaleOp()
	other := quick
	other.Tuner = "other"
	tuners := []*autotune.Tuner{
		autotune.NewTuner(a, cache, quick), autotune.NewTuner(a, cache, other),
		autotune.NewTuner(b, cache, quick), autotune.NewTuner(b, cache, other),
	}
	jobs := twinJobs(op)
	perTable := map[string][]autotune.Job{tuners[0].Table().Tuner: jobs[:4], "other": jobs[4:]}
	out, err := autotune.TuneAll(context.Background(), tuners, func(table store.Table, _ hal.DeviceInfo) []autotune.Job {
		return perTable[table.Tuner]
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(jobs) {
		t.Fatalf("%d results for %d jobs in two tables", len(out), len(jobs))
	}
	for i, r := range out {
		want := tuners[0].Table()
		if i >= 4 {
			want = tuners[1].Table()
		}
		if r.Err != nil || r.Entry == nil || r.Table != want {
			t.Errorf("job %d: table %v, %v; want answered in %v", i, r.Table, r.Err, want)
		}
	}
	if got := op.prepares.Load(); got != int64(len(jobs)) {
		t.Errorf("%d tunes for %d keys: some key was tuned twice", got, len(jobs))
	}
}
