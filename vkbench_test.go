package vkbench_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/vkbench/vkbench/internal/devtest"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/store/storetest"
)

// open opens the default device with the validation layer on, every
// message of which fails t; it is closed at cleanup.
func open(t testing.TB) *vkbench.Device {
	t.Helper()
	devtest.NeedVulkan(t)
	dev, err := vkbench.Open(context.Background(), vkbench.Options{
		Validation: true,
		OnMessage: func(m vkbench.Message) {
			t.Errorf("validation %s [%s]: %s", m.Severity, m.ID, m.Text)
		},
	})
	if err != nil {
		testenv.Unavailable(t, "no Vulkan device with validation: %v", err)
	}
	t.Cleanup(func() {
		if err := dev.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return dev
}

// quickTuner is a tuner with a short budget and a cache file of its own.
func quickTuner(t testing.TB, dev *vkbench.Device) *vkbench.Tuner {
	t.Helper()
	tuner, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{
		Table:     "test",
		CachePath: filepath.Join(t.TempDir(), "autotune.db"),
		Budget:    50 * time.Millisecond,
		Warmup:    -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tuner
}

func scale(t testing.TB, dev *vkbench.Device, p *vkbench.Pipeline, in []float32, a float32) []float32 {
	t.Helper()
	ctx := context.Background()
	x, err := vkbench.Upload(ctx, dev, in)
	if err != nil {
		t.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, len(in))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := errors.Join(x.Release(), y.Release()); err != nil {
			t.Error(err)
		}
	}()
	groups := vkbench.Groups(len(in), int(p.Kernel().WorkgroupSize[0]))
	if err := dev.Run(ctx, p, groups, vkbench.Push(uint32(len(in)), a), x, y); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(in))
	if err := y.Read(ctx, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRun(t *testing.T) {
	dev := open(t)
	p, err := dev.Build(context.Background(), scaleKernel)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]float32, 1000)
	want := make([]float32, len(in))
	for i := range in {
		in[i] = float32(i)
		want[i] = 3 * float32(i)
	}
	if diff := cmp.Diff(want, scale(t, dev, p, in, 3)); diff != "" {
		t.Errorf("y = 3x (-want +got):\n%s", diff)
	}
}

func TestBuffers(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	zeros, err := vkbench.NewBuffer[int32](ctx, dev, 5)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 5)
	if err := zeros.Read(ctx, got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int32{0, 0, 0, 0, 0}, got); diff != "" {
		t.Errorf("a new buffer is not zeros (-want +got):\n%s", diff)
	}
	type id uint32 // element types may be defined ones
	ids, err := vkbench.Upload(ctx, dev, []id{7, 1 << 31, 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := ids.Write(ctx, []id{9}); err != nil {
		t.Fatal(err)
	}
	back := make([]id, 3)
	if err := ids.Read(ctx, back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]id{9, 1 << 31, 3}, back); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := ids.Write(ctx, make([]id, 4)); !errors.Is(err, vkbench.ErrInvalidArgument) {
		t.Errorf("writing 4 elements into 3: %v, want ErrInvalidArgument", err)
	}
	if err := ids.Read(ctx, make([]id, 4)); !errors.Is(err, vkbench.ErrInvalidArgument) {
		t.Errorf("reading 4 elements from 3: %v, want ErrInvalidArgument", err)
	}
	if _, err := vkbench.NewBuffer[float32](ctx, dev, 0); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("a buffer of 0 elements: %v, want INVALID_ARGUMENT", err)
	}
	if err := ids.Release(); err != nil {
		t.Fatal(err)
	}
	if err := ids.Read(ctx, back); !errors.Is(err, vkbench.ErrReleased) {
		t.Errorf("reading a released buffer: %v, want ErrReleased", err)
	}
}

func TestWrongArguments(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	if _, err := dev.Build(ctx, vkbench.Kernel{Name: "junk", SPIRV: []byte("not SPIR-V at all")}); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("Build of junk: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := dev.Build(ctx, vkbench.Kernel{Name: "entry", SPIRV: scaleSPIRV, EntryPoint: "nope", PushConstantSize: 8}); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("Build with a missing entry point: %v, want INVALID_ARGUMENT", err)
	}
	huge := scaleKernel
	huge.WorkgroupSize = [3]uint32{1 << 20, 1, 1}
	huge.Constants = map[uint32]uint32{0: 1 << 20}
	if _, err := dev.Build(ctx, huge); status.CodeOf(err) != status.Unimplemented {
		t.Errorf("Build with a workgroup of 2^20: %v, want UNIMPLEMENTED", err)
	}
	p, err := dev.Build(ctx, scaleKernel)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Kernel().Bindings; got != 2 {
		t.Errorf("Bindings read from the module = %d, want 2", got)
	}
	x, err := vkbench.Upload(ctx, dev, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	push := vkbench.Push(uint32(2), float32(1))
	for name, run := range map[string]func() error{
		"one buffer":        func() error { return dev.Run(ctx, p, vkbench.Groups(2, 64), push, x) },
		"short push":        func() error { return dev.Run(ctx, p, vkbench.Groups(2, 64), push[:4], x, x) },
		"no groups":         func() error { return dev.Run(ctx, p, vkbench.Groups(0, 64), push, x, x) },
		"nil buffer":        func() error { return dev.Run(ctx, p, vkbench.Groups(2, 64), push, x, nil) },
		"device of another": func() error { return other(t).Run(ctx, p, vkbench.Groups(2, 64), push, x, x) },
	} {
		if err := run(); status.CodeOf(err) != status.InvalidArgument || !errors.Is(err, vkbench.ErrInvalidArgument) {
			t.Errorf("Run with %s: %v, want INVALID_ARGUMENT, matching ErrInvalidArgument", name, err)
		}
	}
	// The text reads as Go's wrapped errors do: the call, then what inside
	// it went wrong.
	if err := dev.Run(ctx, p, vkbench.Groups(2, 64), push, x); !strings.HasPrefix(fmt.Sprint(err), `INVALID_ARGUMENT: vkbench: Run "`+p.Kernel().Name+`": vk: `) {
		t.Errorf("Run with one buffer of two: %q; want the code, then vkbench's call, then vk's", err)
	}
	// The device is still fine.
	if got := scale(t, dev, p, []float32{1, 2}, 4); !cmp.Equal(got, []float32{4, 8}) {
		t.Errorf("after the errors, 4x = %v", got)
	}
}

// other opens a second device.
func other(t testing.TB) *vkbench.Device {
	devtest.NeedVulkan(t)
	dev, err := vkbench.Open(context.Background(), vkbench.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

func TestOpenChoosesDevice(t *testing.T) {
	devtest.NeedVulkan(t)
	infos, err := vkbench.Devices()
	if err != nil {
		testenv.Unavailable(t, "no Vulkan devices: %v", err)
	}
	if len(infos) == 0 {
		testenv.Unavailable(t, "Vulkan lists no devices")
	}
	ctx := context.Background()
	for _, spec := range []string{"0", strings.ToUpper(infos[0].Name[:3])} {
		dev, err := vkbench.Open(ctx, vkbench.Options{Device: spec})
		if err != nil {
			if spec != "0" && strings.Contains(err.Error(), "names") {
				continue // several devices share the prefix
			}
			t.Fatalf("Open(%q): %v", spec, err)
		}
		if spec == "0" && dev.Info().Name != infos[0].Name {
			t.Errorf("Open(%q) opened %q, want %q", spec, dev.Info().Name, infos[0].Name)
		}
		if err := dev.Close(); err != nil {
			t.Error(err)
		}
		if err := dev.Close(); err != nil {
			t.Errorf("closing twice: %v", err)
		}
	}
	for _, spec := range []string{"99", "no such device, surely"} {
		if _, err := vkbench.Open(ctx, vkbench.Options{Device: spec}); status.CodeOf(err) != status.NotFound {
			t.Errorf("Open(%q): %v, want NOT_FOUND", spec, err)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	dev := open(t)
	p, err := dev.Build(context.Background(), scaleKernel)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x, err := vkbench.Upload(ctx, dev, []float32{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, 3)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err = dev.Run(cancelled, p, vkbench.Groups(3, 64), vkbench.Push(uint32(3), float32(2)), x, y)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a cancelled context: %v, want nil or context.Canceled", err)
	}
	// Whether or not the first run finished, the next one works.
	if got := scale(t, dev, p, []float32{1, 2, 3}, 2); !cmp.Equal(got, []float32{2, 4, 6}) {
		t.Errorf("after a cancelled Run, 2x = %v", got)
	}
}

func TestRunConcurrently(t *testing.T) {
	dev := open(t)
	p, err := dev.Build(context.Background(), scaleKernel)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for r := range 5 {
				a := float32(g*10 + r)
				if got := scale(t, dev, p, []float32{1, 2}, a); !cmp.Equal(got, []float32{a, 2 * a}) {
					t.Errorf("goroutine %d: %vx = %v", g, a, got)
				}
			}
		})
	}
	wg.Wait()
}

// TestPush packs every kind of number a caller writes, untyped constants
// included (Push(4) used to panic: 4 is an int), and panics only on what
// is not a number or does not fit 32 bits.
func TestPush(t *testing.T) {
	want := []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0x80, 0x3f}
	if got := vkbench.Push(uint32(1), int32(-1), float32(1)); !cmp.Equal(got, want) {
		t.Errorf("Push(uint32, int32, float32) = % x", got)
	}
	if got := vkbench.Push(1, -1, 1.0); !cmp.Equal(got, want) {
		t.Errorf("Push(1, -1, 1.0) = % x, want % x", got, want)
	}
	if got := vkbench.Push(uint64(0xffffffff), int8(-1), uint8(7)); !cmp.Equal(got, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0}) {
		t.Errorf("Push(uint64, int8, uint8) = % x", got)
	}
	for _, bad := range []any{"4", int64(1) << 40, -int64(1) << 40, struct{}{}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "value 1") {
					t.Errorf("Push(1, %#v) recovered %v, want a panic naming value 1", bad, r)
				}
			}()
			vkbench.Push(1, bad)
		}()
	}
}

// TestMisuse: a nil pipeline, a nil or typed-nil buffer and a nil Op are
// InvalidArgument errors, not panics.
func TestMisuse(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	p, err := dev.Build(ctx, scaleKernel)
	if err != nil {
		t.Fatal(err)
	}
	x, err := vkbench.Upload(ctx, dev, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var nilBuf *vkbench.Buffer[float32]
	for what, err := range map[string]error{
		"Run of a nil pipeline":       dev.Run(ctx, nil, vkbench.Groups(2, 64), vkbench.Push(2, 2.0), x, x),
		"Run with a nil Binding":      dev.Run(ctx, p, vkbench.Groups(2, 64), vkbench.Push(2, 2.0), x, nil),
		"Run with a typed-nil Buffer": dev.Run(ctx, p, vkbench.Groups(2, 64), vkbench.Push(2, 2.0), x, nilBuf),
		"Write to a nil Buffer":       nilBuf.Write(ctx, []float32{1}),
		"Read of a nil Buffer":        nilBuf.Read(ctx, make([]float32, 1)),
	} {
		if status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("%s: %v, want InvalidArgument", what, err)
		}
	}
	if err := nilBuf.Release(); err != nil || nilBuf.Len() != 0 {
		t.Errorf("a nil Buffer: Release %v, Len %d", err, nilBuf.Len())
	}
	tu := quickTuner(t, dev)
	if _, err := tu.Fastest(ctx, nil, 1024); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("Fastest of a nil Op: %v, want InvalidArgument", err)
	}
}

func TestGroups(t *testing.T) {
	for _, c := range []struct {
		n, per int
		want   [3]uint32
	}{{1, 64, [3]uint32{1, 1, 1}}, {64, 64, [3]uint32{1, 1, 1}}, {65, 64, [3]uint32{2, 1, 1}}, {0, 64, [3]uint32{0, 1, 1}}} {
		if got := vkbench.Groups(c.n, c.per); got != c.want {
			t.Errorf("Groups(%d, %d) = %v, want %v", c.n, c.per, got, c.want)
		}
	}
}

func TestFastest(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	tuner := quickTuner(t, dev)
	op := scaleOp()
	p, err := tuner.Fastest(ctx, op, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if name := p.Kernel().Name; name == "off-by-one" {
		t.Fatalf("the wrong candidate won")
	}
	e, err := tuner.Result(t.Context(), op, 700)
	if err != nil || e == nil {
		t.Fatalf("Result: %v, %v", e, err)
	}
	if e.Key != "scale/f32/1024" {
		t.Errorf("key %q, want scale/f32/1024", e.Key)
	}
	// The wrong candidate fails on the element it leaves alone, which was
	// poisoned (NaN) before its checked run: without that it would find
	// the right value another candidate left there.
	for _, r := range e.Candidates {
		if r.Name == "off-by-one" && (r.Outcome != vkbench.Wrong || !strings.Contains(r.Error, "y[1023] = NaN")) {
			t.Errorf("off-by-one: %s: %s; want failed at y[1023] = NaN", r.Outcome, r.Error)
		}
	}
	// A size in the same bucket is the same answer, from memory.
	if q, err := tuner.Fastest(ctx, op, 1024); q != p || err != nil {
		t.Errorf("Fastest(1024) = %v, %v; want the pipeline of Fastest(1000)", q, err)
	}
	in := []float32{1, -2, 0.5}
	if got := scale(t, dev, p, in, 2.5); !cmp.Equal(got, []float32{2.5, -5, 1.25}) {
		t.Errorf("the winner computes %v", got)
	}
	if allocs := testing.AllocsPerRun(100, func() { _, _ = tuner.Fastest(ctx, op, 1000) }); allocs != 0 {
		t.Errorf("a Fastest that hits allocates %v times, want 0", allocs)
	}
	// An answer from memory is no answer once the device is gone.
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	if q, err := tuner.Fastest(ctx, op, 1000); q != nil || !errors.Is(err, vkbench.ErrReleased) {
		t.Errorf("Fastest from memory after Close = %v, %v; want ErrReleased", q, err)
	}
}

func TestFastestErrors(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	tuner := quickTuner(t, dev)
	good := scaleOp()
	for name, op := range map[string]*vkbench.Op{
		"no name":       {Dims: []string{"N"}, Candidates: good.Candidates, Prepare: good.Prepare},
		"upper case":    {Name: "Scale", Dims: []string{"N"}, Candidates: good.Candidates, Prepare: good.Prepare},
		"no dims":       {Name: "s", Candidates: good.Candidates, Prepare: good.Prepare},
		"no candidates": {Name: "s", Dims: []string{"N"}, Prepare: good.Prepare},
		"no prepare":    {Name: "s", Dims: []string{"N"}, Candidates: good.Candidates},
		"twin names":    {Name: "s", Dims: []string{"N"}, Candidates: append(good.Candidates[:1:1], good.Candidates[0]), Prepare: good.Prepare},
		"bad spirv":     {Name: "s", Dims: []string{"N"}, Candidates: []vkbench.Kernel{{Name: "x", SPIRV: []byte{1, 2, 3, 4}}}, Prepare: good.Prepare},
		"nil problem": {Name: "nil-problem", Dims: []string{"N"}, Candidates: good.Candidates,
			Prepare: func(context.Context, *vkbench.Device, []int, uint64) (*vkbench.Problem, error) { return nil, nil }},
	} {
		if _, err := tuner.Fastest(ctx, op, 10); status.CodeOf(err) != status.InvalidArgument || op.Name == "nil-problem" && !strings.Contains(err.Error(), `Op "nil-problem": Prepare`) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
		}
	}
	for _, size := range [][]int{{}, {0}, {-1}, {1, 2}} {
		if _, err := tuner.Fastest(ctx, good, size...); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("size %v: %v, want INVALID_ARGUMENT", size, err)
		}
	}
	// One dimension is said in the singular ("takes 1 dimensions" once).
	if _, err := tuner.Fastest(ctx, good, 1, 2); err == nil || !strings.Contains(err.Error(), `operation "scale" takes 1 dimension [N], not 2`) {
		t.Errorf("size [1 2] of a one-dimensional Op: %v", err)
	}
	// A Kernel may index with 64 bits: an extent of 2³¹ is no error.
	if _, err := tuner.Result(ctx, good, 1<<31); err != nil {
		t.Errorf("size [2³¹]: %v", err)
	}
	wrong := scaleOp()
	wrong.Name = "only-wrong"
	wrong.Candidates = wrong.Candidates[2:]
	_, err := tuner.Fastest(ctx, wrong, 100)
	if status.CodeOf(err) != status.FailedPrecondition || !errors.Is(err, vkbench.ErrFailedPrecondition) || !strings.Contains(err.Error(), "no candidate") {
		t.Errorf("no correct candidate: %v, want FAILED_PRECONDITION", err)
	}
}

// TestFastestOrDefault: while a key is being tuned, FastestOrDefault
// returns the Op's first candidate at once, pending, and does not keep it
// as the answer: once the tune is done it returns the winner, as Fastest
// does. The first candidate computes a wrong result, so it can never be
// the winner, and the tune is held inside Prepare until the default has
// been asked for.
func TestFastestOrDefault(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev := open(t)
	tuner := quickTuner(t, dev)
	cands := scaleOp().Candidates
	op := scaleOpOf(cands[2], cands[1]) // off-by-one, then wg256
	prepare := op.Prepare
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
		once.Do(func() { close(started); <-release })
		return prepare(ctx, d, size, seed)
	}
	type answer struct {
		p   *vkbench.Pipeline
		err error
	}
	tuned := make(chan answer, 1)
	go func() {
		p, err := tuner.Fastest(ctx, op, 1000)
		tuned <- answer{p, err}
	}()
	<-started
	for range 2 { // the second is not answered from memory either
		p, pending, err := tuner.FastestOrDefault(ctx, op, 1000)
		if err != nil || !pending || p == nil || p.Kernel().Name != "off-by-one" {
			close(release)
			t.Fatalf("FastestOrDefault during the tune = %v, %v, %v; want off-by-one, pending", p, pending, err)
		}
	}
	close(release)
	won := <-tuned
	if won.err != nil || won.p.Kernel().Name != "wg256" {
		t.Fatalf("Fastest = %v, %v; want wg256", won.p, won.err)
	}
	if p, pending, err := tuner.FastestOrDefault(ctx, op, 1000); p != won.p || pending || err != nil {
		t.Errorf("FastestOrDefault after the tune = %v, %v, %v; want Fastest's pipeline, not pending", p, pending, err)
	}
	if _, _, err := tuner.FastestOrDefault(ctx, op, 0); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("FastestOrDefault of size 0: %v, want INVALID_ARGUMENT", err)
	}
	// Once the device is closed, neither an answer from memory nor a new
	// question gets a pipeline.
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1000, 5000} {
		if p, pending, err := tuner.FastestOrDefault(ctx, op, n); p != nil || pending || !errors.Is(err, vkbench.ErrReleased) {
			t.Errorf("FastestOrDefault(%d) after Close = %v, %v, %v; want ErrReleased", n, p, pending, err)
		}
	}
}

// TestFastestAfterPanic: a panic in an Op's Prepare, or in its Problem's
// Check, reaches the caller whose call ran the tune, and leaves no tune
// pending: a caller that waited for that tune gets an error of code
// Internal saying so, and so does the next call, at once, as for any
// failed tune while its wait lasts (where every later call used to wait
// for a tune that never ended).
func TestFastestAfterPanic(t *testing.T) {
	dev := open(t)
	tuner := quickTuner(t, dev)
	for _, in := range []string{"prepare", "check"} {
		op := scaleOp()
		op.Name = in
		prepare := op.Prepare
		started, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (p *vkbench.Problem, err error) {
			first := false
			once.Do(func() { first = true; close(started); <-release })
			if p, err = prepare(ctx, d, size, seed); first && in == "prepare" {
				panic(in)
			} else if first && err == nil {
				p.Check = func(context.Context) error { panic(in) }
			}
			return p, err
		}
		panicked := make(chan any, 1)
		go func() {
			defer func() { panicked <- recover() }()
			_, _ = tuner.Fastest(context.Background(), op, 1000)
		}()
		<-started
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		waited := make(chan error, 1)
		go func() {
			_, err := tuner.Fastest(ctx, op, 1000)
			waited <- err
		}()
		for !parkedIn("github.com/vkbench/vkbench/autotune.(*Tuner).tune") {
			time.Sleep(time.Millisecond)
		}
		close(release)
		if v := <-panicked; v != in {
			t.Errorf("%s: the tuning call recovered %v; want the panic %q", in, v, in)
		}
		if err := <-waited; status.CodeOf(err) != status.Internal || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("%s: the waiting call = %v; want INTERNAL, saying the tune panicked", in, err)
		}
		if p, err := tuner.Fastest(ctx, op, 1000); p != nil || status.CodeOf(err) != status.Internal || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("%s: Fastest after the panic = a pipeline %t, %v; want the tune's failure, INTERNAL", in, p != nil, err)
		}
		cancel()
	}
}

// parkedIn reports whether a goroutine is blocked in a select whose
// innermost function is fn.
func parkedIn(fn string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		header, frame, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[select") && strings.HasPrefix(frame, fn+"(") {
			return true
		}
	}
	return false
}

// BenchmarkFastestHit asks an answered question of an Op of 3
// candidates and of one of 48: the cost of an answer from memory, and
// how it grows with the candidates (every call compares them with what
// they were at the Op's first use, to tell a change).
func BenchmarkFastestHit(b *testing.B) {
	ctx := context.Background()
	dev := open(b)
	tuner := quickTuner(b, dev)
	many := scaleOp()
	for i := len(many.Candidates); i < 48; i++ {
		k := many.Candidates[0]
		k.Name = fmt.Sprintf("wg32-%d", i)
		many.Candidates = append(many.Candidates, k)
	}
	many.Name = "scale-48"
	for _, op := range []*vkbench.Op{scaleOp(), many} {
		if _, err := tuner.Fastest(ctx, op, 1000); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("candidates=%d", len(op.Candidates)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tuner.Fastest(ctx, op, 1000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFastestHitParallel asks the same answered question from
// GOMAXPROCS goroutines at once: its ns/op beside BenchmarkFastestHit's
// shows how answers from memory scale with cores (run with -cpu 1,16).
func BenchmarkFastestHitParallel(b *testing.B) {
	ctx := context.Background()
	dev := open(b)
	tuner := quickTuner(b, dev)
	op := scaleOp()
	if _, err := tuner.Fastest(ctx, op, 1000); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := tuner.Fastest(ctx, op, 1000); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestPipelineCacheKept: with Options.PipelineCache, Close saves the
// driver's pipeline cache in the tune cache file, under the device's
// pipeline-cache UUID, and the next Open loads it.
func TestPipelineCacheKept(t *testing.T) {
	devtest.NeedVulkan(t)
	path := filepath.Join(t.TempDir(), "c.db")
	t.Setenv("VKBENCH_CACHE", path)
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{PipelineCache: true})
	if err != nil {
		t.Fatal(err)
	}
	uuid := pipelineCacheUUID(t, dev.Info().UUID)
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := store.Open(store.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	data, err := c.LoadPipelineCache(t.Context(), uuid)
	if err != nil || len(data) < 16 {
		t.Fatalf("saved pipeline cache: %d bytes, %v; want at least its header", len(data), err)
	}
	again, err := vkbench.Open(ctx, vkbench.Options{PipelineCache: true})
	if err != nil {
		t.Fatalf("opening with the saved pipeline cache: %v", err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenContextFileLocked: with Options.PipelineCache and the tune cache
// file locked by another handle (as by another process's commit), Open
// ends when its context does, cancelled or past its deadline, with the
// context's error, where it waited out the lock timeout (5 s) loading the
// pipeline cache, whatever its caller. Each call's time is measured from
// the test's own wait for the same context's end, and held to half the
// lock timeout.
func TestOpenContextFileLocked(t *testing.T) {
	devtest.NeedVulkan(t)
	path := filepath.Join(t.TempDir(), "c.db")
	t.Setenv("VKBENCH_CACHE", path)
	storetest.HoldLock(t, path)
	testenv.ContextEnd{Within: lockTimeout / 2}.Check(t, "Open with the cache file locked", func(ctx context.Context) error {
		dev, err := vkbench.Open(ctx, vkbench.Options{PipelineCache: true})
		if dev != nil {
			t.Errorf("Open with the cache file locked opened a device")
			_ = dev.Close()
		}
		return err
	})
}

// TestCloseFileLocked: with Options.PipelineCache and the tune cache file
// locked by another handle (as by another process's commit), Close waits
// a second for the file, then gives up saving the pipeline cache, which
// only spares compile time: one warning through Options.Logger says so,
// naming the file, and Close's error is nil. Before, Close waited out the
// store's lock timeout (5 s) and returned UNAVAILABLE: a program closing
// its device on an interrupt waited with it.
func TestCloseFileLocked(t *testing.T) {
	devtest.NeedVulkan(t)
	// closeIn opens a device whose tune cache is path and times its Close,
	// with the file's lock held by another handle meanwhile where lock.
	closeIn := func(path string, lock bool, logger *slog.Logger) (time.Duration, error) {
		t.Setenv("VKBENCH_CACHE", path)
		dev, err := vkbench.Open(context.Background(), vkbench.Options{PipelineCache: true, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		if lock {
			defer storetest.HoldLock(t, path)()
		}
		start := time.Now()
		err = dev.Close()
		return time.Since(start), err
	}
	// The same Close of a file nobody holds, saving its pipeline cache,
	// is what this machine takes to close now, however busy.
	control, cerr := closeIn(filepath.Join(t.TempDir(), "free.db"), false, nil)
	if cerr != nil {
		t.Fatalf("Close with the cache file free: %v", cerr)
	}
	path := filepath.Join(t.TempDir(), "c.db")
	var logs testenv.SyncBuffer
	took, cerr := closeIn(path, true, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if cerr != nil {
		t.Errorf("Close with the cache file locked: %v; want nil: an unsaved pipeline cache costs compile time only", cerr)
	}
	// A second for the file, then what the free Close took: a Close that
	// waits out the lock timeout takes 4 s more than that, and the bound
	// is halfway, so that a busy machine has 2 s either way.
	if bound := control + (lockTimeout+time.Second)/2; took > bound {
		t.Errorf("Close with the cache file locked took %v, where the same Close of a free file took %v; want within %v: about a second more, well under the lock timeout, %v", took, control, bound, lockTimeout)
	}
	got := logs.String()
	t.Logf("Close took %v (of a free file %v); its log:\n%s", took, control, got)
	if strings.Count(got, "level=WARN") != 1 || !strings.Contains(got, "pipeline cache not saved") || !strings.Contains(got, path) {
		t.Errorf("the log of Close, want one warning that the pipeline cache was not saved, naming %s:\n%s", path, got)
	}
}

// pipelineCacheUUID returns the pipeline-cache UUID of the device of the
// given UUID, which package hal knows.
func pipelineCacheUUID(t *testing.T, device [16]byte) [16]byte {
	t.Helper()
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = drv.Release() }()
	infos, err := drv.Enumerate()
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.DeviceUUID == device {
			return info.PipelineCacheUUID
		}
	}
	t.Fatalf("no device of UUID %x", device)
	return [16]byte{}
}

// TestOpenValidationWithoutLayer: Options.Validation where the layer is
// not installed (VK_LAYER_PATH names an empty folder) is Open's
// FailedPrecondition, naming the layer; without Validation the same
// loader opens the device. It runs in a process of its own, whose loader
// has listed no layers before.
func TestOpenValidationWithoutLayer(t *testing.T) {
	devtest.NeedVulkan(t)
	if os.Getenv("VKBENCH_TEST_NO_LAYER") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpenValidationWithoutLayer$", "-test.count=1")
		cmd.Env = append(os.Environ(), "VKBENCH_TEST_NO_LAYER=1", "VK_LAYER_PATH="+t.TempDir(), "VK_ADD_LAYER_PATH=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{Validation: true})
	if err == nil {
		t.Fatalf("Open with Validation and no layer installed opened %s", dev.Info().Name)
	}
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "VK_LAYER_KHRONOS_validation is not installed") {
		t.Errorf("Open with Validation and no layer installed: %v; want FAILED_PRECONDITION naming the layer", err)
	}
	dev, err = vkbench.Open(ctx, vkbench.Options{})
	if err != nil {
		testenv.Unavailable(t, "%v", err)
	}
	if err := dev.Close(); err != nil {
		t.Error(err)
	}
}

// request is the key of a request's value in its context.
type request struct{}

// settled asks FastestOrDefault of op at n until it is no longer
// pending: the answer, or the failure, of the tune in the background.
func settled(t *testing.T, tuner *vkbench.Tuner, op *vkbench.Op, n int) (*vkbench.Pipeline, error) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if p, pending, err := tuner.FastestOrDefault(context.Background(), op, n); !pending {
			return p, err
		}
	}
	t.Fatal("FastestOrDefault still pending after a minute")
	return nil, nil
}

// TestFastestOrDefaultTunesBehind: requests whose deadline is far shorter
// than the tune get the default candidate, pending, at once: the tune
// they start is held in Prepare until their deadline has passed, so they
// return before it could end. It runs on in the background with the
// requests' values but not their deadline, and a later call gets its
// answer. Before, a request that found nobody tuning its key tuned it
// itself, and its deadline ended the tune with the deadline's error.
func TestFastestOrDefaultTunesBehind(t *testing.T) {
	dev := open(t)
	tuner := quickTuner(t, dev)
	cands := scaleOp().Candidates
	op := scaleOpOf(cands[2], cands[1]) // off-by-one, never the winner, then wg256
	prepare, release := op.Prepare, make(chan struct{})
	var once sync.Once
	op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (p *vkbench.Problem, err error) {
		once.Do(func() {
			if v := ctx.Value(request{}); v != "r" {
				t.Errorf("the tune's context has the value %v; want the request's, r", v)
			}
			select {
			case <-release:
			case <-ctx.Done():
				err = ctx.Err()
			}
		})
		if err != nil {
			return nil, err
		}
		return prepare(ctx, d, size, seed)
	}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), request{}, "r"), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if p, pending, err := tuner.FastestOrDefault(ctx, op, 1<<20); err != nil || !pending || p == nil || p.Kernel().Name != "off-by-one" {
				t.Errorf("FastestOrDefault of a key nobody tunes = %v, %v, %v; want off-by-one, pending, at once", p, pending, err)
			}
		})
	}
	wg.Wait()
	asked := time.Since(start)
	<-ctx.Done()
	close(release)
	p, err := settled(t, tuner, op, 1<<20)
	tuned := time.Since(start)
	if err != nil || p.Kernel().Name != "wg256" {
		t.Fatalf("FastestOrDefault once the tune ended = %v, %v; want wg256, tuned past the requests' deadline", p, err)
	}
	if asked >= tuned {
		t.Errorf("the requests took %v, the tune ended %v after they began; want them answered before it ended", asked, tuned)
	}
	if q, err := tuner.Fastest(ctx, op, 1<<20); q != p || err != nil {
		t.Errorf("Fastest after the tune = %v, %v; want its answer from memory", q, err)
	}
}

// TestFastestOrDefaultFailure: a tune in the background that fails, with
// no candidate correct or with a panic in Prepare, is the error of the
// next FastestOrDefault of its key, once, and the program goes on; while
// the failure's wait lasts (a minute), FastestOrDefault answers the
// default, pending, Fastest the failure, and neither tunes again, where
// each call after a failure started another tune.
func TestFastestOrDefaultFailure(t *testing.T) {
	dev := open(t)
	tuner := quickTuner(t, dev)
	cands := scaleOp().Candidates
	wrong := scaleOpOf(cands[2])
	wrong.Name = "only-wrong"
	panics := scaleOpOf(cands[2], cands[1])
	for _, c := range []struct {
		op   *vkbench.Op
		code status.Code
		says string
	}{
		{wrong, status.FailedPrecondition, "no candidate"},
		{panics, status.Internal, "panicked: in Prepare"},
	} {
		var prepares atomic.Int64
		prepare := c.op.Prepare
		c.op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
			if prepares.Add(1); c.op == panics {
				panic("in Prepare")
			}
			return prepare(ctx, d, size, seed)
		}
		if p, pending, err := tuner.FastestOrDefault(context.Background(), c.op, 1000); !pending || err != nil || p.Kernel().Name != "off-by-one" {
			t.Fatalf("%s: FastestOrDefault = %v, %v, %v; want off-by-one, pending", c.op.Name, p, pending, err)
		}
		failed := func(call string, p *vkbench.Pipeline, err error) {
			if p != nil || status.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.says) {
				t.Errorf("%s: %s: %v, %v; want %v saying %q", c.op.Name, call, p, err, c.code, c.says)
			}
		}
		p, err := settled(t, tuner, c.op, 1000)
		failed("once the tune ended", p, err)
		for range 3 {
			if p, pending, err := tuner.FastestOrDefault(context.Background(), c.op, 1000); !pending || err != nil || p.Kernel().Name != "off-by-one" {
				t.Errorf("%s: FastestOrDefault after the failure = %v, %v, %v; want off-by-one, pending", c.op.Name, p, pending, err)
			}
			p, err := tuner.Fastest(context.Background(), c.op, 1000)
			failed("Fastest after the failure", p, err)
		}
		if n := prepares.Load(); n != 1 {
			t.Errorf("%s: %d tunes; want 1 within a minute of its failure", c.op.Name, n)
		}
	}
}

// TestFastestOrDefaultEndedContext: a ctx already ended is FastestOrDefault's
// error, and starts no tune, unless memory has the answer.
func TestFastestOrDefaultEndedContext(t *testing.T) {
	dev := open(t)
	tuner := quickTuner(t, dev)
	op := scaleOp()
	prepare := op.Prepare
	op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
		if v := ctx.Value(request{}); v != "live" {
			t.Errorf("a tune ran with the context of the %v request; want only the live one's", v)
		}
		return prepare(ctx, d, size, seed)
	}
	ended, cancel := context.WithCancel(context.WithValue(context.Background(), request{}, "ended"))
	cancel()
	if p, pending, err := tuner.FastestOrDefault(ended, op, 1000); p != nil || pending || !errors.Is(err, context.Canceled) {
		t.Errorf("FastestOrDefault with a ctx ended = %v, %v, %v; want ctx's error", p, pending, err)
	}
	// A tune the ended request started would be in flight still, and this
	// call would wait for it.
	want, err := tuner.Fastest(context.WithValue(context.Background(), request{}, "live"), op, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if p, pending, err := tuner.FastestOrDefault(ended, op, 1000); p != want || pending || err != nil {
		t.Errorf("FastestOrDefault with a ctx ended, answered in memory = %v, %v, %v; want %v", p, pending, err, want)
	}
}

// TestPushConstantSizeAtLeastTheBlock holds Kernel.PushConstantSize's
// doc: it may exceed the module's block (8 bytes for scale), which Run
// then wants exactly, and may not fall short of it.
func TestPushConstantSizeAtLeastTheBlock(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	k := scaleKernel
	k.PushConstantSize = 4
	if p, err := dev.Build(ctx, k); p != nil || !errors.Is(err, vkbench.ErrInvalidArgument) || !strings.Contains(err.Error(), "push-constant block is 8 bytes") {
		t.Errorf("Build with PushConstantSize 4 for a block of 8: %v; want InvalidArgument saying the block's size", err)
	}
	k.PushConstantSize = 12
	p, err := dev.Build(ctx, k)
	if err != nil {
		t.Fatalf("Build with PushConstantSize 12 for a block of 8: %v", err)
	}
	x, err := vkbench.Upload(ctx, dev, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.Run(ctx, p, vkbench.Groups(2, 64), vkbench.Push(uint32(2), float32(3)), x, x); !errors.Is(err, vkbench.ErrInvalidArgument) {
		t.Errorf("Run with 8 bytes for a PushConstantSize of 12: %v; want InvalidArgument", err)
	}
	if err := dev.Run(ctx, p, vkbench.Groups(2, 64), vkbench.Push(uint32(2), float32(3), uint32(0)), x, x); err != nil {
		t.Errorf("Run with 12 bytes for a PushConstantSize of 12: %v", err)
	}
}
