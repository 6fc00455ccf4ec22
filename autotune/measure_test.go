package autotune_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
)

// TestMeasureRefusesTooFewSamples: options whose MinSamples cannot give a
// 95% interval, or whose TargetHalfWidth is NaN or infinite, are refused
// before anything is measured.
func TestMeasureRefusesTooFewSamples(t *testing.T) {
	dev := devtest.Device(t)
	for _, n := range []int{1, 3, stats.MinIntervalSamples - 1} {
		opts := quick
		opts.MinSamples = n
		e, err := autotune.Measure(context.Background(), dev, defaultScaleOp(), kernels.SizeOf(1<<10), opts)
		if status.CodeOf(err) != status.InvalidArgument || e != nil || !strings.Contains(err.Error(), "95% confidence interval") {
			t.Errorf("MinSamples %d: entry %v, error %v; want INVALID_ARGUMENT saying why", n, e, err)
		}
	}
	for _, w := range []float64{math.NaN(), math.Inf(1)} {
		opts := quick
		opts.TargetHalfWidth = w
		e, err := autotune.Measure(context.Background(), dev, defaultScaleOp(), kernels.SizeOf(1<<10), opts)
		if status.CodeOf(err) != status.InvalidArgument || e != nil || !strings.Contains(err.Error(), fmt.Sprintf("TargetHalfWidth %g is no bound", w)) {
			t.Errorf("TargetHalfWidth %g: entry %v, error %v; want INVALID_ARGUMENT saying why", w, e, err)
		}
	}
}

// countingDevice keeps the executables its device made.
type countingDevice struct {
	hal.Device
	mu       sync.Mutex
	made     []hal.Executable
	onCreate func(n int) // after the nth made
}

func (d *countingDevice) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	exe, err := d.Device.CreateExecutable(desc)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.made = append(d.made, exe)
	n := len(d.made)
	d.mu.Unlock()
	if d.onCreate != nil {
		d.onCreate(n)
	}
	return exe, nil
}

// alive counts the executables made and not released: a released one
// refuses to answer.
func (d *countingDevice) alive(t *testing.T) (made, alive int) {
	t.Helper()
	for _, exe := range d.made {
		_, err := exe.(hal.CompilerReporter).CompilerStats()
		if !errors.Is(err, hal.ErrReleased) {
			alive++
		}
	}
	return len(d.made), alive
}

// TestMeasureBuildsAhead: the pipelines of the candidates the device can
// run are built while the first are verified, each once; the one the
// device cannot run is never built. Cancelled while they build, the
// measurement returns the cancellation and releases every pipeline built,
// the ones it never used too, and leaves no goroutine behind.
func TestMeasureBuildsAhead(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	op := newScaleOp(scaleCand{name: "a", wg: 64}, scaleCand{name: "b", wg: 128}, scaleCand{name: "c", wg: 256},
		scaleCand{name: "d", wg: 64, spin: 8}, scaleCand{name: "exotic", wg: 64, unsupported: true})
	dev := &countingDevice{Device: devtest.Device(t)}
	e, err := autotune.Measure(context.Background(), dev, op, kernels.SizeOf(1<<12), quick)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Results[:4] {
		if r.Outcome != results.Measured && r.Outcome != results.Dropped {
			t.Errorf("%s: %s (%s); want measured", r.Name, r.Outcome, r.Error)
		}
	}
	if made, alive := dev.alive(t); made != 4 || alive != 0 || e.Results[4].Outcome != results.Unsupported {
		t.Errorf("%d pipelines built, %d alive after, exotic %s; want 4, none, exotic unsupported and never built", made, alive, e.Results[4].Outcome)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dev = &countingDevice{Device: dev.Device, onCreate: func(n int) {
		if n == 2 {
			cancel()
		}
	}}
	if _, err := autotune.Measure(ctx, dev, op, kernels.SizeOf(1<<12), quick); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while building: %v; want context.Canceled", err)
	}
	if made, alive := dev.alive(t); made < 2 || alive != 0 {
		t.Errorf("cancelled while building: %d pipelines built, %d alive after; want every one built released", made, alive)
	}
}
