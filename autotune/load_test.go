package autotune_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// loadDuration is how long TestLoad runs: VKBENCH_LOAD_DURATION, else 5 s
// (60 s is the long run: VKBENCH_LOAD_DURATION=60s go test -race -run
// TestLoad ./autotune).
func loadDuration(t *testing.T) time.Duration {
	if s := os.Getenv("VKBENCH_LOAD_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("VKBENCH_LOAD_DURATION: %v", err)
		}
		return d
	}
	return 5 * time.Second
}

// TestLoad has 64 goroutines run kernels and ask the tuner on one device
// at once, with asynchronous failures injected into submissions at a
// seeded rate and the device lost at a random moment. Nothing may
// deadlock or leak; every injected failure reaches exactly one caller (the
// one whose submission failed), and every submission that reports success
// computed the right result.
func TestLoad(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	d := loadDuration(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, %v", seed, d)
	rng := rand.New(rand.NewPCG(seed, 3))
	plan := faulty.NewPlan()
	plan.Add(faulty.Rule{Calls: []faulty.Call{faulty.Submit}, Rate: 0.05, Seed: seed, Effect: faulty.FailAsync, Code: status.Aborted})
	lossAt := time.Duration(float64(d) * (0.3 + 0.5*rng.Float64()))
	dev := faulty.Wrap(devtest.Device(t), plan)
	tuner := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
	op := defaultScaleOp()
	exe, err := dev.CreateExecutable(op.cands[1].Executable())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := exe.Release(); err != nil {
			t.Error(err)
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	lost := make(chan struct{})
	go func() {
		defer close(lost)
		select {
		case <-time.After(lossAt):
			plan.LoseNow()
		case <-ctx.Done():
		}
	}()
	var runs, asyncSeen, tunes, lostSeen, okRuns, okTunes atomic.Int64
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(g)))
			for ctx.Err() == nil {
				var err error
				if g%4 == 0 {
					_, err = tuner.Fastest(ctx, op, kernels.SizeOf(1<<(8+r.IntN(6))))
					tunes.Add(1)
				} else {
					err = runOnce(ctx, dev, exe, 256+r.IntN(4096), r.Uint64())
					runs.Add(1)
				}
				switch {
				case err == nil && g%4 == 0:
					okTunes.Add(1)
				case err == nil:
					okRuns.Add(1)
				case errors.Is(err, hal.ErrDeviceLost):
					lostSeen.Add(1)
				case errors.Is(err, faulty.ErrInjected) && g%4 != 0:
					asyncSeen.Add(1)
				case errors.Is(err, faulty.ErrInjected), ctx.Err() != nil:
					// A tune whose candidates met injected failures, or
					// the test's end.
				default:
					t.Errorf("goroutine %d: unexpected error: %v", g, err)
				}
			}
		}()
	}
	wg.Wait()
	<-lost
	if took := time.Since(start); took > d+10*time.Second {
		t.Errorf("the load ran %v past its %v: something waited too long", took-d, d)
	}
	if lostSeen.Load() == 0 {
		t.Error("no caller saw the device loss")
	}
	// Every asynchronous failure injected into a run reached its caller
	// once: the fences that reported one are as many as were injected
	// into runs (tunes' submissions are counted apart, since a tune turns
	// them into failed candidates).
	var injectedRuns int64
	for _, in := range plan.Injected() {
		if in.Effect == faulty.FailAsync {
			injectedRuns++
		}
	}
	t.Logf("device lost after %v; %d verified runs and %d answered tune questions before it; %d async failures reported to runners, %d injected in all; %d calls failed fast with the loss",
		lossAt, okRuns.Load(), okTunes.Load(), asyncSeen.Load(), injectedRuns, lostSeen.Load())
	if asyncSeen.Load() > injectedRuns {
		t.Errorf("runners saw %d async failures, only %d were injected: a failure reached a caller it was not for", asyncSeen.Load(), injectedRuns)
	}
	if okRuns.Load() < 64 {
		t.Errorf("only %d verified runs in %v", okRuns.Load(), d)
	}
}

// runOnce runs y = 3x on n random values in buffers of its own and checks
// the result when the submission reports success.
func runOnce(ctx context.Context, dev hal.Device, exe hal.Executable, n int, seed uint64) (err error) {
	x, err := dev.CreateBuffer(hal.BufferDesc{Size: int64(4 * n), Memory: hal.HostVisible})
	if err != nil {
		return err
	}
	defer func() { err = status.Join(err, x.Release()) }()
	y, err := dev.CreateBuffer(hal.BufferDesc{Size: int64(4 * n), Memory: hal.HostVisible})
	if err != nil {
		return err
	}
	defer func() { err = status.Join(err, y.Release()) }()
	r := rand.New(rand.NewPCG(seed, 9))
	in := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(r.IntN(1000))))
	}
	if err := x.Write(ctx, 0, in); err != nil {
		return err
	}
	cb, err := dev.CreateCommandBuffer()
	if err != nil {
		return err
	}
	defer func() { err = status.Join(err, cb.Release()) }()
	push := make([]byte, 8)
	binary.LittleEndian.PutUint32(push, uint32(n))
	binary.LittleEndian.PutUint32(push[4:], math.Float32bits(3))
	for _, step := range []func() error{
		cb.Begin,
		func() error {
			return cb.Dispatch(hal.Dispatch{Executable: exe, Bindings: []hal.Binding{{Buffer: x}, {Buffer: y}},
				PushConstants: push, Groups: [3]uint32{uint32((n + 63) / 64), 1, 1}})
		},
		cb.End,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	f, err := dev.Submit(cb)
	if err != nil {
		return err
	}
	// Wait without the test's deadline: a submission must always end.
	werr := f.Wait(context.Background())
	if err := status.Join(werr, f.Release()); err != nil {
		return err
	}
	out := make([]byte, 4*n)
	if err := y.Read(ctx, 0, out); err != nil {
		return err
	}
	for i := range n {
		want := 3 * math.Float32frombits(binary.LittleEndian.Uint32(in[4*i:]))
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != want {
			return status.Newf(status.Internal, "a submission that reported success computed y[%d] = %v, want %v", i, got, want)
		}
	}
	return nil
}
