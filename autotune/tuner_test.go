package autotune_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/internal/redistest"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/store/redis"
	"github.com/vkbench/vkbench/store/storetest"
)

// quick are options that keep tests short on a CPU device.
var quick = autotune.Options{
	TargetHalfWidth: 0.05,
	Budget:          2 * time.Second,
	MinSamples:      stats.MinIntervalSamples,
	MaxSamples:      30,
	MinSampleTime:   200 * time.Microsecond,
	Warmup:          20 * time.Millisecond,
	MaxBatch:        8,
	Version:         "test",
}

func TestMeasurePicksFastestAndRecordsFailures(t *testing.T) {
	dev := devtest.Device(t)
	op := defaultScaleOp()
	e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<14), quick)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]results.Result{}
	for _, r := range e.Results {
		byName[r.Name] = r
	}
	if e.FastestName != "wg64" {
		t.Errorf("fastest = %q, want wg64 (spin does 64x the work); results %+v", e.FastestName, e.Results)
	}
	if r := byName["wrong"]; r.Outcome != results.Wrong || r.Stats != nil {
		t.Errorf("wrong candidate: %+v, want failed without stats", r)
	}
	if r := byName["exotic"]; r.Outcome != results.Unsupported {
		t.Errorf("unsupported candidate: %+v", r)
	}
	if r := byName["spin"]; r.Outcome != results.Measured && r.Outcome != results.Dropped {
		t.Errorf("spin: %+v, want measured or dropped", r)
	}
	w := byName["wg64"].Stats
	if w == nil || w.N < quick.MinSamples || !w.HasInterval() || w.Median <= 0 || w.Lo > w.Median || w.Hi < w.Median {
		t.Errorf("winner stats implausible: %+v", w)
	}
}

func TestTunerCommitsAndSecondTunerReadsFile(t *testing.T) {
	dev := devtest.Device(t)
	path := filepath.Join(t.TempDir(), "c.db")
	ctx := context.Background()
	op := defaultScaleOp()
	t1 := autotune.NewTuner(dev, newCache(t, path), quick)
	i, err := t1.Fastest(ctx, op, kernels.SizeOf(3000))
	if err != nil {
		t.Fatal(err)
	}
	if op.cands[i].Name != "wg64" {
		t.Errorf("fastest = %s", op.cands[i].Name)
	}
	// Same bucket (3000 → 4096 at Balanced): a memory hit, no measuring.
	before := op.records.Load()
	if j, err := t1.Fastest(ctx, op, kernels.SizeOf(4000)); err != nil || j != i {
		t.Errorf("same bucket = %d, %v", j, err)
	}
	// A second tuner on the same file answers without running anything.
	op2 := defaultScaleOp()
	t2 := autotune.NewTuner(dev, newCache(t, path), quick)
	if j, err := t2.Fastest(ctx, op2, kernels.SizeOf(4096)); err != nil || j != i {
		t.Errorf("second tuner = %d, %v; want %d", j, err, i)
	}
	if n := op.records.Load() - before + op2.records.Load(); n != 0 {
		t.Errorf("answering from memory and file recorded %d runs, want 0", n)
	}
	if op2.prepares.Load() != 0 {
		t.Errorf("second tuner prepared a problem")
	}
	// Changing one candidate's SPIR-V changes the checksum: a re-tune.
	op3 := defaultScaleOp()
	spv := append([]byte(nil), op3.cands[1].SPIRV...)
	spv[8] ^= 0xff // the header's generator word: same code, other bytes
	op3.cands[1].SPIRV = spv
	if autotune.Checksum(op3.cands) == autotune.Checksum(op.cands) {
		t.Fatal("checksum ignores SPIR-V bytes")
	}
	t3 := autotune.NewTuner(dev, newCache(t, path), quick)
	if _, err := t3.Fastest(ctx, op3, kernels.SizeOf(4096)); err != nil {
		t.Fatal(err)
	}
	if op3.records.Load() == 0 {
		t.Error("changed SPIR-V did not re-tune")
	}
}

// TestTunerPendingDedupe: 32 callers at once, half of them Fastest and
// half FastestOrDefault (which tunes in the background and answers the
// default meanwhile), run one tune, and agree on its answer.
func TestTunerPendingDedupe(t *testing.T) {
	dev := devtest.Device(t)
	op := defaultScaleOp()
	tu := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
	var wg sync.WaitGroup
	idx := make([]int, 32)
	errs := make([]error, 32)
	for g := range 32 {
		wg.Go(func() {
			if g%2 == 1 {
				var pending bool
				if idx[g], pending, errs[g] = tu.FastestOrDefault(context.Background(), op, kernels.SizeOf(2048)); pending {
					idx[g], errs[g] = tu.Fastest(context.Background(), op, kernels.SizeOf(2048))
				}
				return
			}
			idx[g], errs[g] = tu.Fastest(context.Background(), op, kernels.SizeOf(2048))
		})
	}
	wg.Wait()
	for g := range 32 {
		if errs[g] != nil || idx[g] != idx[0] {
			t.Errorf("goroutine %d: %d, %v (first got %d)", g, idx[g], errs[g], idx[0])
		}
	}
	if n := op.prepares.Load(); n != 1 {
		t.Errorf("32 callers ran %d tunes, want 1", n)
	}
}

func TestTunerNoWaitGetsDefaultWhilePending(t *testing.T) {
	dev := devtest.Device(t)
	op := defaultScaleOp()
	tu := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
	done := make(chan error)
	go func() {
		_, err := tu.Fastest(context.Background(), op, kernels.SizeOf(1<<15))
		done <- err
	}()
	// Wait until the tune has started.
	for op.prepares.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	i, pending, err := tu.FastestOrDefault(context.Background(), op, kernels.SizeOf(1<<15))
	if err != nil || !pending || i != 0 {
		t.Errorf("FastestOrDefault during a tune = %d, %v, %v; want 0, true, nil", i, pending, err)
	}
	// A waiter honours its context.
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := tu.Fastest(ctx, op, kernels.SizeOf(1<<15)); err == nil {
		// The tune may already be over; then nil is right.
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			return
		default:
			t.Error("waiting past the deadline returned no error")
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestTunerDeviceLossCommitsNothing(t *testing.T) {
	inner := devtest.Device(t)
	plan := faulty.NewPlan()
	dev := faulty.Wrap(inner, plan)
	path := filepath.Join(t.TempDir(), "c.db")
	c := newCache(t, path)
	tu := autotune.NewTuner(dev, c, quick)
	op := defaultScaleOp()
	// Lose the device at the 10th submission: after verification, during
	// sampling.
	plan.LoseAt(faulty.Submit, 10)
	_, err := tu.Fastest(context.Background(), op, kernels.SizeOf(4096))
	if !errors.Is(err, hal.ErrDeviceLost) {
		t.Fatalf("tune on a lost device = %v, want ErrDeviceLost", err)
	}
	if tables, err := newCache(t, path).Tables(t.Context()); err != nil || len(tables) != 0 {
		t.Errorf("a tune that lost its device committed: tables %v, %v", tables, err)
	}
	// Every later question fails at once: it asks the device and waits
	// for nothing, not even the cache file, whose lock another handle
	// holds meanwhile: a call that read the file would wait out the lock
	// timeout. A quarter of that is far above what a busy machine adds to
	// microseconds; a fixed 200 ms was not, and passed a call that read
	// the file while nobody held it.
	storetest.HoldLock(t, path)
	start := time.Now()
	if _, err := tu.Fastest(context.Background(), op, kernels.SizeOf(4096)); !errors.Is(err, hal.ErrDeviceLost) {
		t.Errorf("after loss: %v", err)
	}
	if d := time.Since(start); d > lockTimeout/4 {
		t.Errorf("after loss, Fastest took %v with the cache file locked; want within a quarter of the lock timeout, %v", d, lockTimeout)
	}
}

func BenchmarkTunerHit(b *testing.B) {
	dev := devtest.Device(b)
	op := defaultScaleOp()
	tu := autotune.NewTuner(dev, newCache(b, filepath.Join(b.TempDir(), "c.db")), quick)
	ctx := context.Background()
	shape := kernels.SizeOf(4096)
	if _, err := tu.Fastest(ctx, op, shape); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := tu.Fastest(ctx, op, shape); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTunerRetunesCorruptValue: a stored answer that no longer decodes is a
// miss; the key is tuned again and the file then holds a readable answer.
func TestTunerRetunesCorruptValue(t *testing.T) {
	dev := devtest.Device(t)
	path := filepath.Join(t.TempDir(), "c.db")
	op := defaultScaleOp()
	t1 := autotune.NewTuner(dev, newCache(t, path), quick)
	if _, err := t1.Fastest(context.Background(), op, kernels.SizeOf(2048)); err != nil {
		t.Fatal(err)
	}
	k, sum := t1.Key(op, kernels.SizeOf(2048)), autotune.Checksum(op.Candidates())
	writeRaw(t, newCache(t, path), t1.Table(), map[string][]byte{k.String() + "@" + sum: []byte(`{"schema":1,"fastest":`)})
	op2 := defaultScaleOp()
	t2 := autotune.NewTuner(dev, newCache(t, path), quick)
	i, err := t2.Fastest(context.Background(), op2, kernels.SizeOf(2048))
	if err != nil {
		t.Fatalf("a corrupt stored value: %v", err)
	}
	if op2.records.Load() == 0 {
		t.Error("a corrupt stored value was not tuned again")
	}
	e, err := autotune.ReadEntry(context.Background(), newCache(t, path), t2.Table(), k, sum)
	if err != nil || e == nil || e.Fastest != i {
		t.Errorf("after the re-tune the file holds %+v, %v; want fastest %d", e, err, i)
	}
}

// TestTunerKeepsWhatTheStoreCannot: an answer the store could not take
// (here a path under a regular file) is Tune's NotStoredError, and the
// tuner keeps it: later questions about its key, at other sizes of the
// bucket too, are answered without measuring again.
func TestTunerKeepsWhatTheStoreCannot(t *testing.T) {
	dev := devtest.Device(t)
	blocker := filepath.Join(t.TempDir(), "blocker")
	if err := os.WriteFile(blocker, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	op := defaultScaleOp()
	tu := autotune.NewTuner(dev, newCache(t, filepath.Join(blocker, "c.db")), quick)
	e, err := tu.Tune(ctx, op, kernels.SizeOf(3000), false)
	if ns, ok := errors.AsType[*autotune.NotStoredError](err); !ok || e == nil {
		t.Fatalf("Tune = %v, %v; want the entry and a NotStoredError", e, err)
	} else if ns.Path != filepath.Join(blocker, "c.db") {
		t.Errorf("NotStoredError names %q", ns.Path)
	}
	before := op.records.Load()
	if i, err := tu.Fastest(ctx, op, kernels.SizeOf(4000)); err != nil || i != e.Fastest {
		t.Errorf("Fastest = %d, %v; want %d", i, err, e.Fastest)
	}
	if i, pending, err := tu.FastestOrDefault(ctx, op, kernels.SizeOf(3500)); err != nil || pending || i != e.Fastest {
		t.Errorf("FastestOrDefault = %d, %v, %v; want %d", i, pending, err, e.Fastest)
	}
	if n := op.records.Load() - before; n != 0 {
		t.Errorf("%d dispatches recorded after the answer was known", n)
	}
}

// TestStoredContextLocked: Stored ends when its context does while another
// handle holds the file's lock, cancelled or past its deadline, with the
// context's error and code, where it waited out the lock timeout (10 s
// here) before, whatever its caller. Each call's time is measured from
// the test's own wait for the same context's end, and held to a quarter
// of the lock timeout.
func TestStoredContextLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	storetest.HoldLock(t, path)
	tu := autotune.NewTuner(devtest.Device(t), newCache(t, path), quick)
	testenv.ContextEnd{Within: lockTimeout / 4}.Check(t, "Stored", func(ctx context.Context) error {
		e, err := tu.Stored(ctx, defaultScaleOp(), kernels.SizeOf(1<<14))
		if e != nil {
			t.Errorf("Stored with the file locked: %v; want none", e)
		}
		return err
	})
}

// TestPeakAndExportContextLocked: SavePeak, LoadPeak, Entries and Export
// end when their context does while another handle holds the file's
// lock, as Stored does (TestStoredContextLocked); Export writes nothing.
// Before, they took no context and waited out the lock timeout.
func TestPeakAndExportContextLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	storetest.HoldLock(t, path)
	c := newCache(t, path)
	var out bytes.Buffer
	for _, call := range []struct {
		name string
		call func(context.Context) error
	}{
		{"SavePeak", func(ctx context.Context) error {
			_, err := autotune.SavePeak(ctx, c, "hw", autotune.PeakRecord{Peak: autotune.Peak{Rates: autotune.Rates{GFLOPs: 1}}}, 0.05, true)
			return err
		}},
		{"LoadPeak", func(ctx context.Context) error { _, err := autotune.LoadPeak(ctx, c, "hw"); return err }},
		{"Entries", func(ctx context.Context) error { _, err := autotune.Entries(ctx, c, testTable); return err }},
		{"Export", func(ctx context.Context) error { return autotune.Export(ctx, &out, c, testTable) }},
	} {
		testenv.ContextEnd{Within: lockTimeout / 4}.Check(t, call.name, call.call)
	}
	if out.Len() != 0 {
		t.Errorf("Export of a locked file wrote %q; want nothing", out.String())
	}
}

// TestStopEndsLaterBackgroundTunes: FastestOrDefault after Stop (a
// FastestOrDefault racing Device.Close) starts no tune: each call
// returns Stop's cause, and nothing is measured.
func TestStopEndsLaterBackgroundTunes(t *testing.T) {
	dev := devtest.Device(t)
	// A nil cause stops them too, as context.Canceled.
	for _, cause := range []error{errors.New("stopped"), nil} {
		op := defaultScaleOp()
		tu := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
		tu.Stop(cause)
		for range 3 {
			if _, pending, err := tu.FastestOrDefault(context.Background(), op, kernels.SizeOf(2048)); pending || !errors.Is(err, cmp.Or(cause, context.Canceled)) {
				t.Errorf("FastestOrDefault after Stop(%v) = %v, %v; want Stop's cause", cause, pending, err)
			}
		}
		if n := op.prepares.Load(); n != 0 {
			t.Errorf("after Stop(%v), %d tunes prepared a problem", cause, n)
		}
	}
}

// hookedOp is a scaleOp whose Prepare asks before first, which may fail
// it.
type hookedOp struct {
	*scaleOp
	before func(ctx context.Context) error
}

func (o *hookedOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	if err := o.before(ctx); err != nil {
		o.prepares.Add(1)
		return nil, err
	}
	return o.scaleOp.Prepare(ctx, dev, size, seed)
}

// TestTunerFailureWaits: a key whose tune fails for its own sake (here
// its Prepare) is not tuned again while its wait lasts: FastestOrDefault
// returns the failure once, then the default, pending; Fastest returns
// the failure. The wait is a minute, doubled by each failure in a row up
// to an hour, on the tuner's clock, which the test moves; a tune that
// answers ends it. A tune its caller's context ended (as it measured) is
// no such failure.
func TestTunerFailureWaits(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	op := &hookedOp{scaleOp: newScaleOp(scaleCand{name: "wg64", wg: 64}), before: func(context.Context) error {
		if fail.Load() {
			return status.New(status.NotFound, "the weights are not there")
		}
		return nil
	}}
	tu := autotune.NewTuner(devtest.Device(t), newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
	var moved atomic.Int64
	start := time.Now()
	autotune.SetClock(tu, func() time.Time { return start.Add(time.Duration(moved.Load())) })
	ctx, size := context.Background(), kernels.SizeOf(1<<12)
	ended, cancel := context.WithCancel(ctx)
	before := op.before
	op.before = func(ctx context.Context) error { cancel(); return ctx.Err() } // as it measures
	if _, err := tu.Fastest(ended, op, size); !errors.Is(err, context.Canceled) {
		t.Fatalf("Fastest with its ctx ended = %v; want context.Canceled", err)
	}
	op.before = before
	op.prepares.Store(0)
	failed := func(call string, err error) {
		t.Helper()
		if status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "the weights are not there") {
			t.Fatalf("%s = %v; want the tune's failure", call, err)
		}
	}
	if i, pending, err := tu.FastestOrDefault(ctx, op, size); i != 0 || !pending || err != nil {
		t.Fatalf("FastestOrDefault = %d, %v, %v; want the default, pending", i, pending, err)
	}
	var err error
	for pending := true; pending; time.Sleep(time.Millisecond) {
		_, pending, err = tu.FastestOrDefault(ctx, op, size)
	}
	failed("FastestOrDefault once its tune failed", err)
	tunes := func(want int64) {
		t.Helper()
		if n := op.prepares.Load(); n != want {
			t.Fatalf("%v on the tuner's clock: %d tunes; want %d", time.Duration(moved.Load()), n, want)
		}
	}
	for range 3 {
		if i, pending, err := tu.FastestOrDefault(ctx, op, size); i != 0 || !pending || err != nil {
			t.Errorf("FastestOrDefault after the failure = %d, %v, %v; want the default, pending", i, pending, err)
		}
		_, err := tu.Fastest(ctx, op, size)
		failed("Fastest after the failure", err)
	}
	tunes(1)
	for n, wait := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute, time.Hour, time.Hour} {
		moved.Add(int64(wait - 1))
		_, err := tu.Fastest(ctx, op, size)
		failed("Fastest within the wait", err)
		tunes(int64(n + 1))
		moved.Add(1)
		_, err = tu.Fastest(ctx, op, size)
		failed("Fastest once the wait is over", err)
		tunes(int64(n + 2))
	}
	fail.Store(false)
	moved.Add(int64(time.Hour))
	if i, err := tu.Fastest(ctx, op, size); i != 0 || err != nil {
		t.Fatalf("Fastest once the wait is over and the weights are there = %d, %v", i, err)
	}
}

// TestStopEndsItsWaiters: a Fastest waiting for a tune FastestOrDefault
// started in the background, which Stop ends, returns Stop's cause at
// once and tunes nothing itself.
func TestStopEndsItsWaiters(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	op := &hookedOp{scaleOp: defaultScaleOp(), before: func(ctx context.Context) (err error) {
		once.Do(func() { close(started); <-ctx.Done(); err = context.Cause(ctx) })
		return err
	}}
	tu := autotune.NewTuner(devtest.Device(t), newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
	if _, pending, err := tu.FastestOrDefault(context.Background(), op, kernels.SizeOf(2048)); !pending || err != nil {
		t.Fatalf("FastestOrDefault = %v, %v; want pending", pending, err)
	}
	<-started
	waited := make(chan error, 1)
	go func() {
		i, err := tu.Fastest(context.Background(), op, kernels.SizeOf(2048))
		waited <- cmp.Or(err, fmt.Errorf("candidate %d", i))
	}()
	for !parkedIn("github.com/vkbench/vkbench/autotune.(*Tuner).tune") {
		time.Sleep(time.Millisecond)
	}
	cause := errors.New("closing")
	tu.Stop(cause)
	if err := <-waited; !errors.Is(err, cause) {
		t.Errorf("Fastest waiting for the tune Stop ended = %v; want Stop's cause", err)
	}
	if n := op.prepares.Load(); n != 1 {
		t.Errorf("%d problems prepared; want 1, the stopped tune's", n)
	}
}

// TestStoreFailureNotRemembered: a tune that fails on the store's side,
// before it measures, is no failure of its key's: its caller gets it (in
// the background, the next FastestOrDefault, once), and the key is tuned
// again at the next question. A store that fails with an error is read
// as a miss (the tune goes on without its lock, and an answer it cannot
// keep is a NotStoredError), so the failure here is a fault in the
// store's read: a panic, once, in the real backend this one wraps.
// Before, Fastest returned the panic's failure, at once, for a minute.
func TestStoreFailureNotRemembered(t *testing.T) {
	u, err := url.Parse(redistest.Start(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	real, err := redis.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	b := &faultyReads{Backend: real}
	tu := autotune.NewTuner(devtest.Device(t), store.New(b, nil), quick)
	op, ctx := newScaleOp(scaleCand{name: "wg64", wg: 64}), context.Background()
	answers := func(call string, size kernels.Size, tunes int64) {
		t.Helper()
		if i, err := tu.Fastest(ctx, op, size); i != 0 || err != nil || op.prepares.Load() != tunes {
			t.Errorf("Fastest after %s = %d, %v, %d tunes; want candidate 0, %d tunes", call, i, err, op.prepares.Load(), tunes)
		}
	}
	b.panicAt.Store(1) // the tune's first read
	func() {
		defer func() {
			if r := recover(); r != "the store's read" {
				t.Fatalf("Fastest recovered %v; want the store's panic", r)
			}
		}()
		_, _ = tu.Fastest(ctx, op, kernels.SizeOf(1<<12))
	}()
	answers("the store's panic", kernels.SizeOf(1<<12), 1)
	b.panicAt.Store(2) // after FastestOrDefault's own, the tune's first
	var pending bool
	for pending = true; pending && err == nil; time.Sleep(time.Millisecond) {
		_, pending, err = tu.FastestOrDefault(ctx, op, kernels.SizeOf(1<<14))
	}
	if status.CodeOf(err) != status.Internal || !strings.Contains(err.Error(), "the store's read") {
		t.Errorf("FastestOrDefault once its tune ended = %v, %v; want the store's panic", pending, err)
	}
	answers("the store's panic in the background", kernels.SizeOf(1<<14), 2)
}

// faultyReads is a real Backend whose read panicAt (counting down from
// the next) panics.
type faultyReads struct {
	store.Backend
	panicAt atomic.Int32
}

func (b *faultyReads) View(ctx context.Context, fn func(store.Tx) error) error {
	if b.panicAt.Add(-1) == 0 {
		panic("the store's read")
	}
	return b.Backend.View(ctx, fn)
}

// TestFailureWaitReadsTheStore: while a failed key's wait lasts (here
// for ever: the tuner's clock stands still), Fastest and FastestOrDefault
// still read the store, tuning nothing: an answer another process
// committed to the cache file meanwhile, or another machine to the
// shared store, is theirs. Before, they answered as the wait says (the
// failure; the default, pending) until it was over.
func TestFailureWaitReadsTheStore(t *testing.T) {
	srv := redistest.Start(t)
	dev := devtest.Device(t)
	var fail atomic.Bool
	fail.Store(true)
	op := &hookedOp{scaleOp: newScaleOp(scaleCand{name: "wg64", wg: 64}), before: func(context.Context) error {
		if fail.Load() {
			return status.New(status.NotFound, "the weights are not there")
		}
		return nil
	}}
	m := newMachine(t, srv.URL())
	tu := autotune.NewTuner(dev, m.cache, m.options(nil))
	start := time.Now()
	autotune.SetClock(tu, func() time.Time { return start })
	ctx, inFile, inShared := context.Background(), kernels.SizeOf(1<<12), kernels.SizeOf(1<<14)
	if _, err := tu.Fastest(ctx, op, inFile); status.CodeOf(err) != status.NotFound {
		t.Fatalf("Fastest = %v; want the tune's failure", err)
	}
	var err error
	for pending := true; pending; time.Sleep(time.Millisecond) {
		_, pending, err = tu.FastestOrDefault(ctx, op, inShared)
	}
	if status.CodeOf(err) != status.NotFound {
		t.Fatalf("FastestOrDefault once its tune ended = %v; want the tune's failure", err)
	}
	fail.Store(false) // the weights are there, the answer's check passes
	other := newScaleOp(scaleCand{name: "wg64", wg: 64})
	if _, err := autotune.NewTuner(dev, newCache(t, m.cache.Path()), quick).Fastest(ctx, other, inFile); err != nil {
		t.Fatal(err)
	}
	if _, err := autotune.NewTuner(dev, newMachine(t, srv.URL()).cache, quick).Fastest(ctx, other, inShared); err != nil {
		t.Fatal(err)
	}
	if i, err := tu.Fastest(ctx, op, inFile); i != 0 || err != nil {
		t.Errorf("Fastest within the wait, the file answered = %d, %v; want its answer", i, err)
	}
	pending, err := true, error(nil)
	for end := time.Now().Add(30 * time.Second); pending && err == nil && time.Now().Before(end); time.Sleep(time.Millisecond) {
		_, pending, err = tu.FastestOrDefault(ctx, op, inShared)
	}
	if pending || err != nil {
		t.Errorf("FastestOrDefault within the wait, the shared store answered = pending %v, %v; want its answer", pending, err)
	}
	if n := m.sampled.Load(); n != 0 {
		t.Errorf("%d samples taken within the wait; want none", n)
	}
}

// TestFailureWaitSkipsARejectedAnswer: a shared answer that fails its
// check here (by the Prepare that fails the tune too; once that passes,
// its winner computes wrong) is not checked again by the readings within
// the key's wait that follows the failed tune: no Prepare, build or run
// per question, no warning. Before, each reading checked it again. An
// answer naming another winner, which another machine commits meanwhile,
// is checked, and ends the wait.
func TestFailureWaitSkipsARejectedAnswer(t *testing.T) {
	srv := redistest.Start(t)
	plan := faulty.NewPlan()
	dev := faulty.Wrap(devtest.Device(t), plan)
	var fail atomic.Bool
	fail.Store(true)
	op := &hookedOp{scaleOp: newScaleOp(scaleCand{name: "wg64", wg: 64}, scaleCand{name: "wrong", wg: 64, wrong: true}), before: func(context.Context) error {
		if fail.Load() {
			return status.New(status.NotFound, "the weights are not there")
		}
		return nil
	}}
	hw := dev.Info().Hardware()
	plant(t, srv.URL(), hw, op, 1<<10, answerNaming(t, op, "wrong", digestOf(op.cands[1])))
	m := newMachine(t, srv.URL())
	tu := autotune.NewTuner(dev, m.cache, m.options(nil))
	start := time.Now()
	autotune.SetClock(tu, func() time.Time { return start })
	ctx, size := context.Background(), kernels.SizeOf(1<<10)
	failed := func(call string, err error) {
		t.Helper()
		if status.CodeOf(err) != status.NotFound {
			t.Fatalf("%s = %v; want the tune's failure", call, err)
		}
	}
	_, err := tu.Fastest(ctx, op, size)
	failed("Fastest", err)
	fail.Store(false) // the shared answer's winner now runs, and computes wrong
	_, _, err = tu.FastestOrDefault(ctx, op, size)
	failed("FastestOrDefault once the tune failed", err)
	prepared, built, ran, warned := op.prepares.Load(), plan.Calls(faulty.CreateExecutable), plan.Calls(faulty.Submit), m.warnings()
	for range 3 {
		if i, pending, err := tu.FastestOrDefault(ctx, op, size); i != 0 || !pending || err != nil {
			t.Errorf("FastestOrDefault within the wait = %d, %v, %v; want the default, pending", i, pending, err)
		}
		_, err := tu.Fastest(ctx, op, size) // joins the look FastestOrDefault started, or looks
		failed("Fastest within the wait", err)
	}
	if p, b, r, w := op.prepares.Load()-prepared, plan.Calls(faulty.CreateExecutable)-built, plan.Calls(faulty.Submit)-ran, m.warnings()-warned; p+int64(b+r+w) != 0 {
		t.Errorf("6 readings within the wait: %d Prepares, %d builds, %d runs, %d warnings; want none, the shared answer having failed here:\n%s", p, b, r, w, m.log)
	}
	plant(t, srv.URL(), hw, op, 1<<10, answerNaming(t, op, "wg64", digestOf(op.cands[0])))
	if i, err := tu.Fastest(ctx, op, size); i != 0 || err != nil {
		t.Errorf("Fastest within the wait, the shared store answering wg64 = %d, %v; want its answer", i, err)
	}
	if i, pending, err := tu.FastestOrDefault(ctx, op, size); i != 0 || pending || err != nil || op.prepares.Load() != prepared+1 {
		t.Errorf("FastestOrDefault after it = %d, %v, %v, %d Prepares; want that answer, checked once", i, pending, err, op.prepares.Load()-prepared)
	}
	if n := m.sampled.Load(); n != 0 {
		t.Errorf("%d samples taken; want none", n)
	}
}
