package autotune

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
)

// TestBuildSlotsUrgentFirst: a measurement's build waiting for a slot
// takes it before a prebuild that asks after it, even one that asks as
// the slot is freed.
func TestBuildSlotsUrgentFirst(t *testing.T) {
	for range 50 {
		s := newBuildSlots(1)
		s.acquire(false) // a prebuild holds the only slot
		var mu sync.Mutex
		var order []string
		took := func(who string) {
			mu.Lock()
			order = append(order, who)
			mu.Unlock()
			s.release()
		}
		var wg sync.WaitGroup
		wg.Go(func() { s.acquire(true); took("measurement") })
		for {
			s.mu.Lock()
			w := s.waiting
			s.mu.Unlock()
			if w == 1 {
				break
			}
			runtime.Gosched()
		}
		s.release()
		s.acquire(false) // the next prebuild, at once
		took("prebuild")
		wg.Wait()
		if want := []string{"measurement", "prebuild"}; !slices.Equal(order, want) {
			t.Fatalf("slots taken in the order %v; want %v", order, want)
		}
	}
}

// counted counts the executables a device builds and those still alive.
type counted struct {
	hal.Device
	mu    sync.Mutex
	built []string
	live  atomic.Int64
}

func (d *counted) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	exe, err := d.Device.CreateExecutable(desc)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.built = append(d.built, desc.Label)
	d.mu.Unlock()
	d.live.Add(1)
	return &countedExe{Executable: exe, d: d}, nil
}

func (d *counted) names() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.built)
}

type countedExe struct {
	hal.Executable
	d *counted
}

func (e *countedExe) Release() error {
	e.d.live.Add(-1)
	return e.Executable.Release()
}

// TestPrebuild: a prebuild builds every pipeline a measurement of its
// jobs builds (each candidate the device can run, and the problem's own),
// and keeps none; while it runs, measurements on its device share its
// build slots; stopped early, it builds nothing more after Stop returns.
// Prebuild itself does nothing on a CPU device, the test device.
func TestPrebuild(t *testing.T) {
	dev := devtest.Device(t)
	op, err := catalogue.Lookup("reduce")
	if err != nil {
		t.Fatal(err)
	}
	job := Job{Op: op, Size: kernels.SizeOf(1 << 16)}
	var want []string
	for _, d := range pipelinesOf(job, dev.Info()) {
		want = append(want, d.Label)
	}
	if len(want) <= len(op.Candidates())/2 {
		t.Fatalf("%d pipelines to prebuild for %d candidates; want most of them", len(want), len(op.Candidates()))
	}

	d := &counted{Device: dev}
	stop := prebuild(context.Background(), d, Options{}, []Job{job})
	if a, b := slotsFor(d), slotsFor(d); a != b {
		t.Error("two measurements during a prebuild got slots of their own; want the prebuild's")
	}
	for deadline := time.Now().Add(time.Minute); len(d.names()) < len(want) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if got := d.names(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("prebuilt %v; want %v", got, want)
	}
	if n := d.live.Load(); n != 0 {
		t.Errorf("%d prebuilt executables alive after Stop; want none", n)
	}
	if a, b := slotsFor(d), slotsFor(d); a == b {
		t.Error("measurements after Stop share slots; want their own")
	}

	// Stopped as soon as it has started: nothing is built after Stop.
	d = &counted{Device: dev}
	stop = prebuild(context.Background(), d, Options{}, slices.Repeat([]Job{job}, 20))
	for len(d.names()) == 0 {
		runtime.Gosched()
	}
	stop()
	n := len(d.names())
	time.Sleep(50 * time.Millisecond)
	if after := len(d.names()); after != n || n >= 20*len(want) {
		t.Errorf("built %d by Stop, %d after, of %d; want none after, and not all", n, after, 20*len(want))
	}

	d = &counted{Device: dev}
	if dev.Info().Type == hal.CPU {
		stop := Prebuild(context.Background(), d, Options{}, []Job{job})
		a, b := slotsFor(d), slotsFor(d)
		shared := a == b
		stop()
		if got := d.names(); len(got) != 0 || shared {
			t.Errorf("Prebuild on a CPU device built %v, sharing its slots %v; want nothing (its builds would slow the runs measured)", got, shared)
		}
	}
}

// TestPrebuildDeviceReleased: a device released from another goroutine
// while a prebuild builds on it ends the prebuild's builds with errors,
// not a hang: Stop returns, and the release reports no object left alive.
func TestPrebuildDeviceReleased(t *testing.T) {
	drv := devtest.Driver(t)
	infos := devtest.Devices(t, drv)
	dev, err := drv.Open(context.Background(), hal.DefaultDevice(infos), hal.DeviceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	op, err := catalogue.Lookup("reduce")
	if err != nil {
		t.Fatal(err)
	}
	d := &counted{Device: dev}
	stop := prebuild(context.Background(), d, Options{}, slices.Repeat([]Job{{Op: op, Size: kernels.SizeOf(1 << 16)}}, 50))
	for len(d.names()) == 0 {
		runtime.Gosched()
	}
	released := make(chan error, 1)
	go func() { released <- dev.Release() }()
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case err := <-released:
		if err != nil {
			t.Errorf("Release during a prebuild: %v; want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Release during a prebuild did not return in a minute")
	}
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("Stop after the device's release did not return in a minute")
	}
	if n := d.live.Load(); n != 0 {
		t.Errorf("%d prebuilt executables alive; want none", n)
	}
}
