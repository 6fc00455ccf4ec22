package vk_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/vkbench/vkbench/internal/devtest"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
	_ "github.com/vkbench/vkbench/vk"
)

//go:generate glslc -O --target-env=vulkan1.2 -o testdata/scale.spv testdata/scale.comp
//go:generate glslc -O --target-env=vulkan1.2 -o testdata/empty.spv testdata/empty.comp
//go:generate glslc -O --target-env=vulkan1.2 -o testdata/spin.spv testdata/spin.comp
//go:generate glslc -O --target-env=vulkan1.2 -o testdata/bigshared.spv testdata/bigshared.comp
//go:generate glslc -O0 --target-env=vulkan1.2 -o testdata/slowbuild.spv testdata/slowbuild.comp

func TestMain(m *testing.M) {
	devtest.SkipExamplesWithoutVulkan()
	goleak.VerifyTestMain(m)
}

// messages collects validation messages, which may arrive on any thread,
// and reports each as a test failure when flushed.
type messages struct {
	mu   sync.Mutex
	msgs []hal.Message
}

func (c *messages) add(m hal.Message) {
	c.mu.Lock()
	c.msgs = append(c.msgs, m)
	c.mu.Unlock()
}

// flush fails t once for every message collected since the last flush.
func (c *messages) flush(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	msgs := c.msgs
	c.msgs = nil
	c.mu.Unlock()
	for _, m := range msgs {
		t.Errorf("validation %s [%s]: %s", m.Severity, m.ID, m.Text)
	}
}

// openDriver opens the "vulkan" driver with validation and fails t for
// every validation message. Without Vulkan it skips t (fails it when
// strict); without the validation layer it runs without validation (fails
// when strict). The driver is released when t ends.
func openDriver(t testing.TB) (hal.Driver, *messages) {
	t.Helper()
	msgs := &messages{}
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{Validation: true, OnMessage: msgs.add})
	if err != nil && status.CodeOf(err) == status.FailedPrecondition {
		if testenv.Strict() {
			testenv.Unavailable(t, "no validation layer: %v", err)
		}
		t.Logf("running without validation: %v", err)
		drv, err = hal.OpenDriver("vulkan", hal.DriverOptions{})
	}
	if err != nil {
		testenv.Unavailable(t, "no usable Vulkan here (install libvulkan1 and mesa-vulkan-drivers for lavapipe): %v", err)
	}
	t.Cleanup(func() {
		if err := drv.Release(); err != nil {
			t.Errorf("Driver.Release: %v", err)
		}
		msgs.flush(t)
	})
	return drv, msgs
}

// listDevices lists the devices of drv: none ends t through
// testenv.Unavailable, and a failure to list them fails t.
func listDevices(t testing.TB, drv hal.Driver) []hal.DeviceInfo {
	t.Helper()
	infos, err := drv.Enumerate()
	if err != nil {
		t.Fatalf("Enumerate: %v", err)
	}
	if len(infos) == 0 {
		testenv.Unavailable(t, "Vulkan lists no devices (lavapipe is in mesa-vulkan-drivers)")
	}
	return infos
}

// defaultDevice returns the index of drv's default device, as
// listDevices ends t without one.
func defaultDevice(t testing.TB, drv hal.Driver) int {
	t.Helper()
	return hal.DefaultDevice(listDevices(t, drv))
}

// openListed opens a device drv lists. One the backend cannot use
// (Unimplemented: older than Vulkan 1.2, say) ends t through
// testenv.Unavailable; any other error fails t.
func openListed(t testing.TB, drv hal.Driver, info hal.DeviceInfo) hal.Device {
	t.Helper()
	dev, err := drv.Open(context.Background(), info.Index, hal.DeviceOptions{})
	if status.CodeOf(err) == status.Unimplemented {
		testenv.Unavailable(t, "device %d (%s) cannot be used: %v", info.Index, info.Name, err)
	}
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return dev
}

// eachDevice runs f in a subtest, named by index and name, on each device
// the driver lists, opened afresh and released after f.
func eachDevice(t *testing.T, f func(t *testing.T, dev hal.Device)) {
	t.Helper()
	drv, msgs := openDriver(t)
	for _, info := range listDevices(t, drv) {
		t.Run(fmt.Sprintf("%d-%s", info.Index, info.Name), func(t *testing.T) {
			dev := openListed(t, drv, info)
			t.Cleanup(func() {
				if err := dev.Release(); err != nil {
					t.Errorf("Device.Release: %v", err)
				}
				msgs.flush(t)
			})
			f(t, dev)
		})
	}
}

// wantCode fails t unless err has the status code want.
func wantCode(t testing.TB, err error, want status.Code, what string) {
	t.Helper()
	if got := status.CodeOf(err); got != want {
		t.Errorf("%s: got %v (code %v), want code %v", what, err, got, want)
	}
}

// release releases r, failing tb if that fails.
func release(tb testing.TB, r interface{ Release() error }) {
	tb.Helper()
	if err := r.Release(); err != nil {
		tb.Errorf("Release: %v", err)
	}
}

// must fails t at once on an error.
func must(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func readSPIRV(t testing.TB, name string) []byte {
	t.Helper()
	code, err := os.ReadFile("testdata/" + name)
	must(t, err, "reading "+name)
	return code
}

// run records what record does into a new command buffer, submits it and
// waits for it.
func run(t testing.TB, dev hal.Device, record func(cb hal.CommandBuffer)) {
	t.Helper()
	cb, err := dev.CreateCommandBuffer()
	must(t, err, "CreateCommandBuffer")
	defer release(t, cb)
	must(t, cb.Begin(), "Begin")
	record(cb)
	must(t, cb.End(), "End")
	f, err := dev.Submit(cb)
	must(t, err, "Submit")
	defer release(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, f.Wait(ctx), "Wait")
}

// spinner keeps a submission in flight for a while: a dispatch of the
// spin kernel, its workgroups calibrated on the device.
type spinner struct {
	dev    hal.Device
	exe    hal.Executable
	buf    hal.Buffer
	groups [3]uint32
}

// spinRounds is the spin kernel's rounds of 4096 steps per invocation:
// as many as lavapipe's loop limiter lets run.
const spinRounds = 15

// newSpinner calibrates the spin kernel so that one dispatch takes at
// least d, after one dispatch that may compile it (lavapipe compiles on
// first use). The calibration ends when two dispatches in a row last d:
// one slowed by a busy machine ended it too soon, leaving a dispatch of
// one workgroup where TestHangTimeout's work had to last seconds.
func newSpinner(t testing.TB, dev hal.Device, d time.Duration) *spinner {
	t.Helper()
	s := spinnerOn(t, dev, [3]uint32{1, 1, 1})
	run(t, dev, func(cb hal.CommandBuffer) { must(t, s.record(cb), "Dispatch(spin)") })
	lastsTwice := func() bool {
		for range 2 {
			start := time.Now()
			run(t, dev, func(cb hal.CommandBuffer) { must(t, s.record(cb), "Dispatch(spin)") })
			if time.Since(start) < d {
				return false
			}
		}
		return true
	}
	for s.groups[1] < 1<<15 {
		if lastsTwice() {
			break
		}
		if s.groups[0] < 1<<15 {
			s.groups[0] *= 2
		} else {
			s.groups[1] *= 2
		}
	}
	return s
}

// spinnerOn returns a spinner of dev whose dispatches have groups.
func spinnerOn(t testing.TB, dev hal.Device, groups [3]uint32) *spinner {
	t.Helper()
	exe, err := dev.CreateExecutable(hal.ExecutableDesc{Label: "spin", SPIRV: readSPIRV(t, "spin.spv"), Bindings: 1, PushConstantSize: 4})
	must(t, err, "CreateExecutable(spin)")
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 256, Label: "spin"})
	must(t, err, "CreateBuffer(spin)")
	t.Cleanup(func() {
		release(t, exe)
		release(t, buf)
	})
	return &spinner{dev: dev, exe: exe, buf: buf, groups: groups}
}

func (s *spinner) record(cb hal.CommandBuffer) error {
	return cb.Dispatch(hal.Dispatch{
		Executable:    s.exe,
		Bindings:      []hal.Binding{{Buffer: s.buf}},
		PushConstants: []byte{spinRounds, 0, 0, 0},
		Groups:        s.groups,
	})
}

// start submits a spinning command buffer and returns its fence; the
// command buffer is released when t ends.
func (s *spinner) start(t testing.TB) (hal.CommandBuffer, hal.Fence) {
	t.Helper()
	cb, err := s.dev.CreateCommandBuffer()
	must(t, err, "CreateCommandBuffer")
	must(t, cb.Begin(), "Begin")
	must(t, s.record(cb), "Dispatch(spin)")
	must(t, cb.End(), "End")
	f, err := s.dev.Submit(cb)
	must(t, err, "Submit(spin)")
	t.Cleanup(func() {
		// The test may have lost or released the device.
		if err := f.Wait(context.Background()); err != nil && !errors.Is(err, hal.ErrDeviceLost) && !errors.Is(err, hal.ErrReleased) {
			t.Errorf("Wait: %v", err)
		}
		release(t, f)
		release(t, cb)
	})
	return cb, f
}

// TestHarnessUnavailable checks that the harness ends a test through the
// suite's one rule (testenv.Unavailable) where the driver lists no device
// or cannot use one: a failure where CI or VKBENCH_REQUIRE_VALIDATION is
// set, a skip where only testenv.SkipVar is. The driver is the real one,
// wrapped.
func TestHarnessUnavailable(t *testing.T) {
	drv, _ := openDriver(t)
	info := listDevices(t, drv)[0]
	helpers := map[string]func(testing.TB){
		"no device listed":  func(tb testing.TB) { listDevices(tb, listsNone{drv}) },
		"no default device": func(tb testing.TB) { defaultDevice(tb, listsNone{drv}) },
		"device unusable": func(tb testing.TB) {
			release(tb, openListed(tb, opensNone{drv}, info))
		},
	}
	for name, f := range helpers {
		for _, strict := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/strict=%v", name, strict), func(t *testing.T) {
				t.Setenv("CI", "")
				t.Setenv("VKBENCH_REQUIRE_VALIDATION", "")
				t.Setenv(testenv.SkipVar, "1") // a skip where it is allowed
				if strict {
					t.Setenv("VKBENCH_REQUIRE_VALIDATION", "1")
				}
				got := testenv.Observe(t, f)
				if got.Failed != strict || got.Skipped == strict {
					t.Errorf("failed %v, skipped %v; want failed %v, skipped %v (%q)", got.Failed, got.Skipped, strict, !strict, got.Messages)
				}
			})
		}
	}
	// The real driver passes.
	if got := testenv.Observe(t, func(tb testing.TB) { release(tb, openListed(tb, drv, info)) }); got.Failed || got.Skipped {
		t.Errorf("opening the real device: %+v", got)
	}
}

// listsNone is a driver that lists no device.
type listsNone struct{ hal.Driver }

func (listsNone) Enumerate() ([]hal.DeviceInfo, error) { return nil, nil }

// opensNone is a driver that cannot use any device it lists.
type opensNone struct{ hal.Driver }

func (opensNone) Open(context.Context, int, hal.DeviceOptions) (hal.Device, error) {
	return nil, status.New(status.Unimplemented, "vk: the device supports Vulkan 1.1; vkbench needs 1.2")
}
