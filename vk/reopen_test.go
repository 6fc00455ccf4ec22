//go:build cgo

package vk_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/vk"
)

// A long-running program recovers from a lost device by opening it again,
// as often as it has to: these tests open, use and close devices the way
// it does, in one process, and check that nothing piles up.

// openFresh opens the default device the way the library and the command
// do (hal.Open), validated when validate is set and the layer is there
// (required where testenv.Strict), every validation message failing t.
// It returns the device and the function that releases it and its driver.
func openFresh(t testing.TB, validate bool) (hal.Device, func()) {
	t.Helper()
	// The driver's logs (a lost device is logged) go to t's.
	opts := hal.OpenOptions{Driver: hal.DriverOptions{Logger: slog.New(slog.NewTextHandler(tbWriter{t}, nil))}}
	opening := testenv.NewOpening(func(s string) { t.Errorf("%s", s) })
	if validate {
		opts.Driver.Validation = true
		opts.Driver.OnMessage = func(m hal.Message) {
			opening.Complain(fmt.Sprintf("validation %s [%s]: %s", m.Severity, m.ID, m.Text))
		}
	}
	dev, release, err := hal.Open(context.Background(), vk.DriverName, opts)
	if validate && status.CodeOf(err) == status.FailedPrecondition && !testenv.Strict() {
		t.Logf("running without validation: %v", err)
		opts.Driver.Validation, opts.Driver.OnMessage = false, nil
		dev, release, err = hal.Open(context.Background(), vk.DriverName, opts)
	}
	opening.Opened(err == nil)
	if err != nil {
		testenv.Unavailable(t, "no usable Vulkan device: %v", err)
	}
	return dev, func() {
		t.Helper()
		if err := release(); err != nil {
			t.Errorf("releasing the device and its driver: %v", err)
		}
	}
}

// tbWriter writes to a test's log.
type tbWriter struct{ t testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// scaleWords is the length of useKernel's buffers: 128 KiB each, so that
// a buffer left behind by every cycle would show in the resident memory.
const scaleWords = 1 << 15

// useKernel builds the scale kernel on dev, runs it on seeded random
// input in a host-visible buffer into a device-local one, and checks
// every word of the result.
func useKernel(t testing.TB, dev hal.Device, seed uint64) {
	t.Helper()
	exe, err := dev.CreateExecutable(hal.ExecutableDesc{
		Label: "scale", SPIRV: readSPIRV(t, "scale.spv"), Bindings: 2, PushConstantSize: 12,
		Constants: []hal.Constant{{ID: 0, Value: 64}},
	})
	must(t, err, "CreateExecutable(scale)")
	defer release(t, exe)
	in, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * scaleWords, Memory: hal.HostVisible, Label: "in"})
	must(t, err, "CreateBuffer(in)")
	defer release(t, in)
	out, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * scaleWords, Memory: hal.DeviceLocal, Label: "out"})
	must(t, err, "CreateBuffer(out)")
	defer release(t, out)

	rng := rand.New(rand.NewPCG(seed, 0x5ca1e))
	mul, add := rng.Uint32()|1, rng.Uint32()
	a := make([]byte, 4*scaleWords)
	for i := range scaleWords {
		binary.LittleEndian.PutUint32(a[4*i:], rng.Uint32())
	}
	ctx := context.Background()
	must(t, in.Write(ctx, 0, a), "Write")
	push := binary.LittleEndian.AppendUint32(nil, scaleWords)
	push = binary.LittleEndian.AppendUint32(push, mul)
	push = binary.LittleEndian.AppendUint32(push, add)
	run(t, dev, func(cb hal.CommandBuffer) {
		must(t, cb.Dispatch(hal.Dispatch{
			Executable:    exe,
			Bindings:      []hal.Binding{{Buffer: in}, {Buffer: out}},
			PushConstants: push,
			Groups:        [3]uint32{scaleWords / 64, 1, 1},
		}), "Dispatch(scale)")
	})
	got := make([]byte, 4*scaleWords)
	must(t, out.Read(ctx, 0, got), "Read")
	for i := range scaleWords {
		want := binary.LittleEndian.Uint32(a[4*i:])*mul + add
		if g := binary.LittleEndian.Uint32(got[4*i:]); g != want {
			t.Fatalf("scale: word %d is %#x, want %#x", i, g, want)
		}
	}
}

// usage is what the process holds of the operating system.
type usage struct {
	fds, threads int
	rssKiB       int64
}

func (u usage) String() string {
	return fmt.Sprintf("%d open files, %d threads, %.1f MiB resident", u.fds, u.threads, float64(u.rssKiB)/1024)
}

// measure reads the process's open files, threads and resident memory
// from /proc, after a garbage collection that returns what Go can.
func measure(t testing.TB) usage {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd to count open files in: %v", err)
	}
	proc, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	u := usage{fds: len(fds), threads: -1, rssKiB: -1}
	for _, line := range strings.Split(string(proc), "\n") {
		k, v, _ := strings.Cut(line, ":")
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		switch k {
		case "Threads":
			u.threads, _ = strconv.Atoi(fields[0])
		case "VmRSS":
			u.rssKiB, _ = strconv.ParseInt(fields[0], 10, 64)
		}
	}
	if u.threads < 0 || u.rssKiB < 0 {
		t.Fatalf("/proc/self/status has no Threads or VmRSS")
	}
	return u
}

// Bounds on what 1,000 cycles may add to the process, past the warm-up.
// Each cycle makes a device, a pipeline, 256 KiB of buffers and a
// submission: a device left behind costs a driver thread or more and
// megabytes, a buffer 128 KiB. Files must stay as they were; threads
// too, but for those Go's runtime starts when cgo calls block and never
// ends, about one for each of GOMAXPROCS at most (on the H200's 16
// processors: 11 threads, then 15 after 1,000 cycles). Resident memory
// grows for the first hundreds of cycles as drivers fill caches and the
// C allocator its arenas, then levels off: NVIDIA's driver on the H200
// grew 58 to 61 MiB over the first 500 cycles and 8 to 11 over the next
// 500, lavapipe 11 and 1.4. So the whole run is bounded loosely and its
// second half, where a leak is all that still grows, tightly: a leak of
// 48 KiB a cycle exceeds it.
const (
	maxMoreFiles         = 2
	maxMoreRSSKiB        = 128 << 10
	maxMoreRSSSecondHalf = 24 << 10
)

// TestReopen opens, uses and closes the default device 1,000 times (100
// with -short), every tenth with validation, as a long-running program
// recovering from lost devices would: every cycle must work, the
// process's instances must not grow past one of each kind (NVIDIA's
// driver refuses the 31st vkCreateInstance of a process), and its open
// files, threads and resident memory must not grow past small bounds.
func TestReopen(t *testing.T) {
	cycles := 1000
	if testing.Short() {
		cycles = 100
	}
	const warmUp = 20
	cycle := func(i int) {
		dev, done := openFresh(t, i%10 == 0)
		defer done()
		useKernel(t, dev, uint64(i))
	}
	for i := range warmUp {
		cycle(i)
	}
	if t.Failed() {
		t.FailNow()
	}
	before, instances := measure(t), vk.InstancesCreated()
	if instances > 2 {
		t.Errorf("%d Vulkan instances after %d opens, want one for each validation setting at most", instances, warmUp)
	}
	start := time.Now()
	var middle usage
	series := []string{fmt.Sprintf("%.1f", float64(before.rssKiB)/1024)}
	for i := 1; i <= cycles; i++ {
		cycle(warmUp + i)
		if t.Failed() {
			t.Fatalf("cycle %d failed", i)
		}
		if i%(cycles/10) == 0 {
			u := measure(t)
			series = append(series, fmt.Sprintf("%.1f", float64(u.rssKiB)/1024))
			if i == cycles/2 {
				middle = u
			}
		}
	}
	took := time.Since(start)
	after := measure(t)
	t.Logf("%d cycles in %v, %v a cycle", cycles, took.Round(time.Millisecond), (took / time.Duration(cycles)).Round(10*time.Microsecond))
	t.Logf("Vulkan instances created in this process: %d", vk.InstancesCreated())
	t.Logf("before: %v", before)
	t.Logf("middle: %v", middle)
	t.Logf("after:  %v", after)
	t.Logf("resident MiB every %d cycles: %s", cycles/10, strings.Join(series, " "))
	if n := vk.InstancesCreated(); n != instances {
		t.Errorf("%d cycles created %d Vulkan instances, want none", cycles, n-instances)
	}
	if d := after.fds - before.fds; d > maxMoreFiles {
		t.Errorf("open files grew by %d, more than %d", d, maxMoreFiles)
	}
	if d, most := after.threads-before.threads, runtime.GOMAXPROCS(0)+2; d > most {
		t.Errorf("threads grew by %d, more than %d", d, most)
	}
	if d := after.rssKiB - before.rssKiB; d > maxMoreRSSKiB {
		t.Errorf("resident memory grew by %.1f MiB, more than %d MiB", float64(d)/1024, maxMoreRSSKiB>>10)
	}
	if d := after.rssKiB - middle.rssKiB; d > maxMoreRSSSecondHalf {
		t.Errorf("resident memory grew by %.1f MiB over the second half, more than %d MiB", float64(d)/1024, maxMoreRSSSecondHalf>>10)
	}
}

// TestLossRecovery loses the device 100 times (10 with -short) while work
// is in flight, through the fault-injecting wrapper and so through vk's
// own loss path (hal.LossMarker): the waiter must see hal.ErrDeviceLost,
// later calls must fail the same way, and the device opened again must
// run a kernel and compute the right result. A round whose work finished
// before the loss came (the host descheduled between Submit and the loss,
// as on a busy runner) does not count: the spin doubles and the round is
// tried again, so the 100 losses in flight do not depend on the host's
// speed, only the number of tries does.
func TestLossRecovery(t *testing.T) {
	rounds := 100
	if testing.Short() {
		rounds = 10
	}
	dev, done := openFresh(t, true)
	// The spin kernel's dispatch, calibrated once: long enough to be in
	// flight when the loss comes, right after it is submitted.
	groups := spinGroups(t, dev, 20*time.Millisecond)
	late := 0
	for lost := 0; lost < rounds; {
		if late == rounds {
			t.Fatalf("%d losses came after the work had finished, %d in flight: the spin never outlasted the host's delay", late, lost)
		}
		plan := faulty.NewPlan()
		wrapped := faulty.Wrap(dev, plan)
		useKernel(t, wrapped, uint64(lost+late))
		if loseInFlight(t, wrapped, plan, groups) {
			lost++
		} else {
			late++
			groups = longerSpin(groups)
		}
		if err := wrapped.Release(); err != nil {
			t.Errorf("try %d: releasing the lost device: %v", lost+late, err)
		}
		done()
		if t.Failed() {
			t.Fatalf("try %d failed", lost+late)
		}
		dev, done = openFresh(t, true)
	}
	useKernel(t, dev, uint64(rounds+late))
	done()
	t.Logf("%d losses in flight; %d more came after the work had finished and were tried again (spin %v)", rounds, late, groups)
}

// longerSpin returns the workgroups of a spin dispatch twice as long as
// groups', up to 2^15 x 2^15.
func longerSpin(groups [3]uint32) [3]uint32 {
	if groups[0] < 1<<15 {
		groups[0] *= 2
	} else if groups[1] < 1<<15 {
		groups[1] *= 2
	}
	return groups
}

// spinGroups returns the workgroups of a spin dispatch that keeps dev
// busy for at least d of GPU time (timestamps: on a loaded machine host
// time says more of the load than of the work).
func spinGroups(t testing.TB, dev hal.Device, d time.Duration) [3]uint32 {
	t.Helper()
	s := newSpinner(t, dev, 0)
	pool, err := dev.CreateTimestampPool(2)
	must(t, err, "CreateTimestampPool")
	defer release(t, pool)
	for {
		run(t, dev, func(cb hal.CommandBuffer) {
			must(t, cb.Timestamp(pool, 0), "Timestamp")
			must(t, s.record(cb), "Dispatch(spin)")
			must(t, cb.Timestamp(pool, 1), "Timestamp")
		})
		took, err := pool.Elapsed(0, 1)
		must(t, err, "Elapsed")
		if took >= d || s.groups[1] >= 1<<15 {
			t.Logf("spin: %v workgroups run %v", s.groups, took)
			return s.groups
		}
		s.groups = longerSpin(s.groups)
	}
}

// loseInFlight submits the spin kernel and, while it runs and a Wait
// blocks on it, loses the device; then it checks what the device says.
// It reports whether the work was still in flight when the loss came.
func loseInFlight(t testing.TB, dev hal.Device, plan *faulty.Plan, groups [3]uint32) bool {
	t.Helper()
	exe, err := dev.CreateExecutable(hal.ExecutableDesc{Label: "spin", SPIRV: readSPIRV(t, "spin.spv"), Bindings: 1, PushConstantSize: 4})
	must(t, err, "CreateExecutable(spin)")
	defer release(t, exe)
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 256, Label: "spin"})
	must(t, err, "CreateBuffer(spin)")
	defer release(t, buf)
	s := &spinner{dev: dev, exe: exe, buf: buf, groups: groups}
	cb, err := dev.CreateCommandBuffer()
	must(t, err, "CreateCommandBuffer")
	defer release(t, cb)
	must(t, cb.Begin(), "Begin")
	must(t, s.record(cb), "Dispatch(spin)")
	must(t, cb.End(), "End")
	f, err := dev.Submit(cb)
	must(t, err, "Submit(spin)")
	defer release(t, f)
	done, err := f.Poll()
	must(t, err, "Poll")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waited := make(chan error, 1)
	go func() { waited <- f.Wait(ctx) }()
	plan.LoseNow()
	err = <-waited
	switch {
	case done || err == nil:
		// The GPU finished first (a loaded machine took the time between
		// Submit and the loss): not a loss in flight.
		return false
	case !errors.Is(err, hal.ErrDeviceLost):
		t.Errorf("Wait: %v, want an error matching hal.ErrDeviceLost", err)
	}
	if _, err := dev.CreateBuffer(hal.BufferDesc{Size: 256}); !errors.Is(err, hal.ErrDeviceLost) {
		t.Errorf("CreateBuffer after the loss: %v, want an error matching hal.ErrDeviceLost", err)
	}
	if err := dev.Err(); !errors.Is(err, hal.ErrDeviceLost) {
		t.Errorf("Err after the loss: %v, want an error matching hal.ErrDeviceLost", err)
	}
	return true
}

// TestSharedInstance opens drivers with and without validation side by
// side: they share one instance of each kind, list the same devices, and
// a validation message reaches the driver whose device caused it, not
// the other validating driver's OnMessage.
func TestSharedInstance(t *testing.T) {
	type collected struct {
		mu   sync.Mutex
		msgs []hal.Message
	}
	open := func(c *collected) hal.Driver {
		opts := hal.DriverOptions{}
		if c != nil {
			opts = hal.DriverOptions{Validation: true, OnMessage: func(m hal.Message) {
				c.mu.Lock()
				c.msgs = append(c.msgs, m)
				c.mu.Unlock()
			}}
		}
		drv, err := hal.OpenDriver(vk.DriverName, opts)
		if err != nil {
			testenv.Unavailable(t, "no Vulkan with the validation layer: %v", err)
		}
		t.Cleanup(func() { release(t, drv) })
		return drv
	}
	var quiet, noisy collected
	plain, a, b := open(nil), open(&quiet), open(&noisy)
	if n := vk.InstancesCreated(); n > 2 {
		t.Errorf("%d Vulkan instances, want one for each validation setting at most", n)
	}
	created := vk.InstancesCreated()
	names := func(drv hal.Driver) []string {
		var s []string
		for _, info := range listDevices(t, drv) {
			s = append(s, info.Name)
		}
		return s
	}
	if p, v := names(plain), names(a); strings.Join(p, "\n") != strings.Join(v, "\n") {
		t.Errorf("the plain driver lists %q, the validating one %q", p, v)
	}

	// b's device provokes a message (see TestValidationMessages) while a's
	// device works; a must hear nothing of it.
	devA := openListed(t, a, listDevices(t, a)[defaultDevice(t, a)])
	defer release(t, devA)
	devB := openListed(t, b, listDevices(t, b)[defaultDevice(t, b)])
	defer release(t, devB)
	exe, err := devB.CreateExecutable(hal.ExecutableDesc{SPIRV: readSPIRV(t, "bigshared.spv"), Bindings: 1})
	if err == nil {
		release(t, exe)
	}
	useKernel(t, devA, 1)
	noisy.mu.Lock()
	heard := len(noisy.msgs)
	noisy.mu.Unlock()
	if heard == 0 {
		t.Error("the driver whose device misused Vulkan heard no validation message")
	}
	quiet.mu.Lock()
	defer quiet.mu.Unlock()
	for _, m := range quiet.msgs {
		t.Errorf("another driver's message reached this one: %s [%s]: %.200s", m.Severity, m.ID, m.Text)
	}
	if n := vk.InstancesCreated(); n != created {
		t.Errorf("opening devices created %d more instances", n-created)
	}
}

// TestInstanceError checks, in a process of its own whose loader is
// pointed at driver manifests of the test's choosing, what a failed
// vkCreateInstance says: that no driver is installed, with the advice to
// install one, only when there is no driver to find; and what failed,
// without that claim, when a driver is there and does not work.
func TestInstanceError(t *testing.T) {
	if os.Getenv("VKBENCH_INSTANCE_ERROR_CHILD") != "" {
		_, err := hal.OpenDriver(vk.DriverName, hal.DriverOptions{})
		fmt.Printf("error: %v\n", err)
		return
	}
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken_icd.json")
	manifest := `{"file_format_version": "1.0.0", "ICD": {"library_path": "` + filepath.Join(dir, "libvulkan_absent.so") + `", "api_version": "1.3.0"}}`
	if err := os.WriteFile(broken, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	const noDriver = "no Vulkan driver is installed"
	const advice = "mesa-vulkan-drivers"
	tests := []struct {
		name    string
		files   string
		want    []string
		notWant []string
	}{
		{"no driver", filepath.Join(dir, "absent.json"), []string{"vkCreateInstance", "VK_ERROR_INCOMPATIBLE_DRIVER", noDriver, advice}, nil},
		{"a driver that does not load", broken, []string{"vkCreateInstance", "VK_ERROR_INCOMPATIBLE_DRIVER", "broken_icd.json"}, []string{noDriver, advice}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestInstanceError$", "-test.count=1")
			cmd.Env = append(os.Environ(), "VKBENCH_INSTANCE_ERROR_CHILD=1",
				"VK_DRIVER_FILES="+tt.files, "VK_ICD_FILENAMES="+tt.files, "VK_ADD_DRIVER_FILES=")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the child: %v\n%s%s", err, out, stderr.Bytes())
			}
			var msg string
			for _, line := range strings.Split(string(out), "\n") {
				if m, ok := strings.CutPrefix(line, "error: "); ok {
					msg = m
				}
			}
			t.Logf("the child's error: %s", msg)
			if msg == "" || msg == "<nil>" {
				t.Fatalf("the child opened the driver, or said nothing:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the message does not say %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("the message says %q", w)
				}
			}
		})
	}
}
