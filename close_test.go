package vkbench_test

import (
	"context"
	_ "embed"
	"errors"
	"github.com/vkbench/vkbench/internal/devtest"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
)

// spinSPIRV is the conformance suite's spin kernel: push.iters rounds of
// work per invocation (64 a workgroup), its result in binding 0. Below
// 65535 iterations (lavapipe's limit on a shader's loops).
//
//go:embed hal/haltest/testdata/spin.spv
var spinSPIRV []byte

var spinKernel = vkbench.Kernel{Name: "spin", SPIRV: spinSPIRV, PushConstantSize: 4}

// TestRunDeadlineMidKernel: a Run whose deadline passes while the kernel
// runs returns exactly the context's error, nothing joined to it, and
// its buffers can be released at once (the validation layer, which fails
// the test on any message, would see a buffer destroyed in use).
func TestRunDeadlineMidKernel(t *testing.T) {
	dev := open(t)
	p, err := dev.Build(context.Background(), spinKernel)
	if err != nil {
		t.Fatal(err)
	}
	// A Run of at least 40 ms: the deadlines, 1 to 20 ms, pass mid-kernel
	// on any device, a fast GPU's too (64 workgroups took under 6 ms on
	// an H100).
	groups := spinFor(t, dev, p, 64, 40*time.Millisecond)
	rng := rand.New(rand.NewPCG(41, 42))
	hits := 0
	for i := range 10 {
		out, err := vkbench.NewBuffer[uint32](context.Background(), dev, 64*64)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Duration(1+rng.IntN(20)) * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		err = dev.Run(ctx, p, groups, vkbench.Push(uint32(20000)), out)
		took := time.Since(start)
		cancel()
		if err := out.Release(); err != nil {
			t.Errorf("round %d: Release after the Run: %v", i, err)
		}
		if err == nil {
			t.Logf("round %d: the kernel finished within %v", i, deadline)
			continue
		}
		hits++
		// The context's own error in the chain, not one the backend made
		// that merely has the same code (errors.Is would take either).
		if !holds(err, context.DeadlineExceeded) || status.CodeOf(err) != status.DeadlineExceeded {
			t.Errorf("round %d: Run past its deadline: %v (code %v), want DEADLINE_EXCEEDED caused by the context's own error", i, err, status.CodeOf(err))
		}
		if errors.Is(err, hal.ErrInFlight) || errors.Is(err, hal.ErrReleased) {
			t.Errorf("round %d: Run past its deadline carries more than the deadline: %v", i, err)
		}
		if took > deadline+time.Second {
			t.Errorf("round %d: Run with a %v deadline returned after %v", i, deadline, took)
		}
	}
	if hits < 5 {
		t.Errorf("only %d of 10 Runs were still running at their deadline; the property was barely tested", hits)
	}
}

// TestCloseRacing: Close while 8 goroutines upload, write, read, run and
// build, 50 times: each call succeeds or fails with ErrReleased, nothing
// crashes or races, and Err then reports the release.
func TestCloseRacing(t *testing.T) {
	devtest.NeedVulkan(t)
	rng := rand.New(rand.NewPCG(43, 44))
	var succeeded atomic.Int64
	for round := range 50 {
		dev, err := vkbench.Open(context.Background(), vkbench.Options{
			Validation: true,
			OnMessage:  func(m vkbench.Message) { t.Errorf("validation %s [%s]: %s", m.Severity, m.ID, m.Text) },
		})
		if err != nil {
			t.Fatal(err)
		}
		p, err := dev.Build(context.Background(), scaleKernel)
		if err != nil {
			t.Fatal(err)
		}
		bufs := make([]*vkbench.Buffer[float32], 8)
		for g := range bufs {
			if bufs[g], err = vkbench.NewBuffer[float32](context.Background(), dev, 1024); err != nil {
				t.Fatal(err)
			}
		}
		ctx := context.Background()
		data := make([]float32, 1024)
		calls := []func(g int) error{
			func(int) error {
				b, err := vkbench.Upload(ctx, dev, data)
				if err != nil {
					return err
				}
				return b.Release()
			},
			func(g int) error { return bufs[g].Write(ctx, data) },
			func(g int) error { return bufs[g].Read(ctx, make([]float32, 1024)) },
			func(g int) error {
				return dev.Run(ctx, p, vkbench.Groups(1024, 64), vkbench.Push(uint32(1024), float32(2)), bufs[g], bufs[g])
			},
			func(int) error {
				q, err := dev.Build(ctx, scaleKernel)
				if err != nil {
					return err
				}
				return q.Release()
			},
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				<-start
				call := calls[g%len(calls)]
				for {
					err := call(g)
					if err == nil {
						succeeded.Add(1)
						continue
					}
					if !errors.Is(err, vkbench.ErrReleased) {
						t.Errorf("round %d, goroutine %d: a call racing Close failed with %v; want ErrReleased", round, g, err)
					}
					return
				}
			})
		}
		close(start)
		time.Sleep(time.Duration(rng.Int64N(int64(5 * time.Millisecond))))
		if err := dev.Close(); err != nil {
			t.Errorf("round %d: Close racing other calls: %v", round, err)
		}
		wg.Wait()
		if err := dev.Err(); !errors.Is(err, vkbench.ErrReleased) {
			t.Errorf("round %d: Err after Close = %v, want ErrReleased", round, err)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d calls succeeded before Close, in 50 rounds", succeeded.Load())
}

// TestClosedDevice: after Close, Err reports the release and no tuner can
// be made for the device.
func TestClosedDevice(t *testing.T) {
	devtest.NeedVulkan(t)
	dev, err := vkbench.Open(context.Background(), vkbench.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.Err(); err != nil {
		t.Fatalf("Err of an open device: %v", err)
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dev.Err(); !errors.Is(err, vkbench.ErrReleased) {
		t.Errorf("Err after Close = %v, want ErrReleased", err)
	}
	if tu, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{}); !errors.Is(err, vkbench.ErrReleased) {
		t.Errorf("NewTuner after Close = %v, %v; want ErrReleased", tu, err)
	}
}

// TestBuildContext: Build returns exactly its context's error when the
// context has ended before it starts or while the driver compiles, and no
// pipeline; the device then builds and runs as before, and closing it
// with an abandoned compile still under way is clean (the validation
// layer fails the test on any message).
func TestBuildContext(t *testing.T) {
	dev := open(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := dev.Build(cancelled, scaleKernel); p != nil || err != context.Canceled {
		t.Errorf("Build with a cancelled context: %v, %v; want nil, exactly context.Canceled", p, err)
	}
	// Deadlines from 50 µs to 1 ms: some pass before Build starts, some
	// while the driver compiles (lavapipe takes about a millisecond).
	abandoned := 0
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(50+50*i)*time.Microsecond)
		p, err := dev.Build(ctx, spinKernel)
		cancel()
		if err != nil {
			abandoned++
		}
		if err == nil {
			// The compile won the race: a pipeline like any other.
			if err := p.Release(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if p != nil || err != context.DeadlineExceeded {
			t.Fatalf("Build past its deadline: %v, %v; want nil, exactly context.DeadlineExceeded", p, err)
		}
	}
	t.Logf("%d of 20 builds abandoned at their deadline", abandoned)
	p, err := dev.Build(context.Background(), scaleKernel)
	if err != nil {
		t.Fatalf("Build after abandoned ones: %v", err)
	}
	if got := scale(t, dev, p, []float32{1, 2, 3}, 2); got[0] != 2 || got[1] != 4 || got[2] != 6 {
		t.Errorf("y = 2x after abandoned builds: %v", got)
	}
}

// TestReleaseWait: Close of a device whose GPU still runs a Run that was
// given up waits Options.ReleaseWait, not the default 10 s, and says in
// one warning that it left the work to the driver; a negative ReleaseWait
// is refused by Open.
func TestReleaseWait(t *testing.T) {
	devtest.NeedVulkan(t)
	if _, err := vkbench.Open(context.Background(), vkbench.Options{ReleaseWait: -time.Second}); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "ReleaseWait") {
		t.Errorf("Open with a negative ReleaseWait: %v, want INVALID_ARGUMENT naming ReleaseWait", err)
	}
	var logs testenv.SyncBuffer
	const wait = 50 * time.Millisecond
	dev, err := vkbench.Open(context.Background(), vkbench.Options{
		Validation:  true,
		OnMessage:   func(m vkbench.Message) { t.Errorf("validation %s [%s]: %s", m.Severity, m.ID, m.Text) },
		Logger:      slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		ReleaseWait: wait,
	})
	if err != nil {
		testenv.Unavailable(t, "no Vulkan device with validation: %v", err)
	}
	p, err := dev.Build(context.Background(), spinKernel)
	if err != nil {
		t.Fatal(err)
	}
	out, err := vkbench.NewBuffer[uint32](context.Background(), dev, 64*4096)
	if err != nil {
		t.Fatal(err)
	}
	groups := spinFor(t, dev, p, 4096, 500*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	err = dev.Run(ctx, p, groups, vkbench.Push(uint32(20000)), out)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run with a 5 ms deadline, %d workgroups: %v, want it still running at its deadline", groups, err)
	}
	// A plain timer of the same wait beside Close: as late as a busy host
	// runs it, Close may be late too.
	start := time.Now()
	control := make(chan time.Duration, 1)
	go func() {
		<-time.After(wait)
		control <- time.Since(start)
	}()
	err = dev.Close()
	took := time.Since(start)
	if status.CodeOf(err) != status.DeadlineExceeded || !strings.Contains(err.Error(), "left to the driver") {
		t.Errorf("Close with a Run still on the GPU: %v; want DEADLINE_EXCEEDED saying it gave up waiting and left the device to the driver", err)
	}
	if timer := <-control; took > timer+400*time.Millisecond {
		t.Errorf("Close with a Run still on the GPU took %v; want about ReleaseWait, %v (a timer of it beside Close fired after %v)", took, wait, timer)
	}
	got := logs.String()
	if strings.Count(got, "level=WARN") != 1 || !strings.Contains(got, "did not finish its work in time") || strings.Contains(got, "device lost") {
		t.Errorf("the log of Close, want one warning that the work was left to the driver:\n%s", got)
	}
}

// spinFor returns the workgroups of a Run of spinKernel (20000 iterations)
// that lasts at least d on dev, or the most it tries: doubled along x up
// to maxX (its output, made here, holds 64 words a workgroup along x),
// then along y, whose layers write the same words.
func spinFor(t *testing.T, dev *vkbench.Device, p *vkbench.Pipeline, maxX uint32, d time.Duration) [3]uint32 {
	t.Helper()
	out, err := vkbench.NewBuffer[uint32](context.Background(), dev, 64*int(maxX))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := out.Release(); err != nil {
			t.Error(err)
		}
	}()
	// One Run first: lavapipe compiles a pipeline on its first use, which
	// would pass for a long Run and end the calibration at once.
	groups := [3]uint32{1, 1, 1}
	if err := dev.Run(context.Background(), p, groups, vkbench.Push(uint32(20000)), out); err != nil {
		t.Fatal(err)
	}
	run := func() time.Duration {
		start := time.Now()
		if err := dev.Run(context.Background(), p, groups, vkbench.Push(uint32(20000)), out); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	for {
		// The quicker of two Runs: one that a busy machine slowed would
		// end the calibration too soon, and the Runs that follow, on a
		// machine less busy, finished before their deadlines.
		if groups[1] >= 1<<15 || min(run(), run()) >= d {
			return groups
		}
		if groups[0] < maxX {
			groups[0] *= 2
		} else {
			groups[1] *= 2
		}
	}
}

// holds reports whether target itself is in err's chain: compared by
// identity, not by errors.Is, which matches any error of the same code.
func holds(err, target error) bool {
	if err == target {
		return true
	}
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		return x.Unwrap() != nil && holds(x.Unwrap(), target)
	case interface{ Unwrap() []error }:
		for _, e := range x.Unwrap() {
			if holds(e, target) {
				return true
			}
		}
	}
	return false
}

// TestClosedErrorsNameTheCall: after Close, each call's error matches
// ErrReleased and names the call the program made, outermost, as the
// README says errors read. Before, they named only the backend's call
// that found the device closed: Run's "vk: CreateCommandBuffer: device
// was released", Fastest's and NewTuner's "vk: Device.Err: ...", Build's
// "vk: CreateExecutable: ...".
func TestClosedErrorsNameTheCall(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	p, err := dev.Build(ctx, scaleKernel)
	if err != nil {
		t.Fatal(err)
	}
	x, err := vkbench.Upload(ctx, dev, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	tuner := quickTuner(t, dev)
	op := scaleOpOf(scaleKernel)
	if _, err := tuner.Fastest(ctx, op, 64); err != nil {
		t.Fatal(err)
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	_, errBuild := dev.Build(ctx, scaleKernel)
	_, errNew := vkbench.NewBuffer[float32](ctx, dev, 2)
	_, errUpload := vkbench.Upload(ctx, dev, []float32{1})
	_, errTuner := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "test"})
	_, errKnown := tuner.Fastest(ctx, op, 64) // answered from memory before
	_, errFastest := tuner.Fastest(ctx, op, 4096)
	_, _, errDefault := tuner.FastestOrDefault(ctx, op, 4096)
	for _, c := range []struct {
		call string
		err  error
	}{
		{`vkbench: Build "scale": `, errBuild},
		{"vkbench: NewBuffer: ", errNew},
		{"vkbench: Upload: ", errUpload},
		{`vkbench: Run "scale": `, dev.Run(ctx, p, vkbench.Groups(2, 64), vkbench.Push(uint32(2), float32(1)), x, x)},
		{"vkbench: NewTuner: ", errTuner},
		{"vkbench: Fastest: ", errKnown},
		{"vkbench: Fastest: ", errFastest},
		{"vkbench: FastestOrDefault: ", errDefault},
	} {
		if !errors.Is(c.err, vkbench.ErrReleased) || !strings.HasPrefix(c.err.Error(), "FAILED_PRECONDITION: "+c.call) {
			t.Errorf("after Close: %v; want ErrReleased, reading FAILED_PRECONDITION: %s...", c.err, c.call)
		}
	}
}

// TestCloseDuringBackgroundTune: Close of a device whose tuner tunes a
// key in the background, for FastestOrDefault, while the Op's Prepare
// waits on its ctx (as a fetch of weights would), ends that ctx, with a
// cause matching ErrReleased, and returns while Prepare still holds on
// after it: Close waits for no Prepare (one that did would return only
// once the test let Prepare go, ReleaseWait after Close began). A caller
// waiting for the tune gets ErrReleased, Close returns nil (it did not
// give up waiting for any work) and no goroutine is left behind.
func TestCloseDuringBackgroundTune(t *testing.T) {
	dev := open(t)
	tuner := quickTuner(t, dev)
	op := scaleOp()
	prepare, started, hold := op.Prepare, make(chan context.Context, 1), make(chan struct{})
	var once sync.Once
	op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
		once.Do(func() {
			started <- ctx
			select {
			case <-ctx.Done():
			case <-hold:
			}
			<-hold // slow to return, its ctx ended
		})
		return prepare(ctx, d, size, seed)
	}
	before := runtime.NumGoroutine()
	if _, pending, err := tuner.FastestOrDefault(context.Background(), op, 1<<16); !pending || err != nil {
		t.Fatalf("FastestOrDefault = %v, %v; want pending", pending, err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := tuner.Fastest(context.Background(), op, 1<<16)
		waited <- err
	}()
	ctx := <-started
	for !parkedIn("github.com/vkbench/vkbench/autotune.(*Tuner).tune") {
		time.Sleep(time.Millisecond)
	}
	closed := make(chan error, 1)
	go func() { closed <- dev.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close during a tune in the background: %v", err)
		}
	case <-time.After(10 * time.Second): // Options.ReleaseWait, which open leaves at its default
		t.Errorf("Close waited a ReleaseWait for a Prepare in the background")
	}
	if cause := context.Cause(ctx); !errors.Is(cause, vkbench.ErrReleased) {
		t.Errorf("Prepare's ctx after Close: %v, cause %v; want a cause matching ErrReleased", ctx.Err(), cause)
	}
	close(hold)
	if err := <-waited; !errors.Is(err, vkbench.ErrReleased) {
		t.Errorf("the tune in the background ended with %v; want ErrReleased", err)
	}
	for end := time.Now().Add(time.Minute); runtime.NumGoroutine() > before; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines a minute after Close, %d before the tune:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
	}
	if p, pending, err := tuner.FastestOrDefault(context.Background(), op, 1<<16); p != nil || pending || !errors.Is(err, vkbench.ErrReleased) {
		t.Errorf("FastestOrDefault after Close = %v, %v, %v; want ErrReleased", p, pending, err)
	}
}
