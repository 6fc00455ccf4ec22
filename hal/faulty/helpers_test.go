package faulty_test

import (
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/vkbench/vkbench/internal/devtest"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
	_ "github.com/vkbench/vkbench/vk"
)

//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute testdata/add.comp -o testdata/add.spv

// addSPV computes out[i] = a[i] + b[i] for i < n, followed by reps steps of
// an LCG (see lcg); its workgroup size is specialization constant 0.
//
//go:embed testdata/add.spv
var addSPV []byte

// groupSize is the workgroup size the tests give the kernel.
const groupSize = 64

func TestMain(m *testing.M) {
	devtest.SkipExamplesWithoutVulkan()
	goleak.VerifyTestMain(m)
}

// openDriver opens the Vulkan driver with validation, failing t on every
// validation or driver message, and releases it when t ends.
func openDriver(t testing.TB) hal.Driver {
	t.Helper()
	// Messages can come from any goroutine, also after t has ended (from a
	// driver still being released); those are not t's to report.
	done := new(atomic.Bool)
	opening := testenv.NewOpening(func(s string) { t.Errorf("%s", s) })
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{
		Validation: true,
		OnMessage: func(m hal.Message) {
			if !done.Load() {
				opening.Complain(fmt.Sprintf("driver message: %s %s: %s", m.Severity, m.ID, m.Text))
			}
		},
		Logger: slog.New(slog.NewTextHandler(testLog{t, done}, nil)),
	})
	opening.Opened(err == nil)
	if err != nil {
		testenv.Unavailable(t, "no Vulkan driver with validation: %v", err)
	}
	t.Cleanup(func() {
		if err := drv.Release(); err != nil {
			t.Errorf("driver Release: %v", err)
		}
		done.Store(true)
	})
	return drv
}

// testLog writes the driver's logs to t's, until done.
type testLog struct {
	t    testing.TB
	done *atomic.Bool
}

func (w testLog) Write(p []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

// deviceIndex returns the index of the default device of drv.
func deviceIndex(t testing.TB, drv hal.Driver) int {
	t.Helper()
	infos, err := drv.Enumerate()
	if err != nil {
		t.Fatalf("Enumerate: %v", err)
	}
	i := hal.DefaultDevice(infos)
	if i < 0 {
		testenv.Unavailable(t, "Vulkan lists no devices")
	}
	return i
}

// rig is a wrapped device with the add kernel, and what a test made on it,
// released in reverse order when the test ends.
type rig struct {
	t    testing.TB
	dev  hal.Device
	plan *faulty.Plan
	exe  hal.Executable
	ctx  context.Context
}

// newRig opens the default device of drv, wraps it with plan and builds
// the kernel.
func newRig(t testing.TB, drv hal.Driver, plan *faulty.Plan) *rig {
	t.Helper()
	inner, err := drv.Open(context.Background(), deviceIndex(t, drv), hal.DeviceOptions{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return rigOf(t, faulty.Wrap(inner, plan), plan)
}

// rigOf makes a rig of an opened, wrapped device.
func rigOf(t testing.TB, dev hal.Device, plan *faulty.Plan) *rig {
	t.Helper()
	r := &rig{t: t, dev: dev, plan: plan, ctx: context.Background()}
	t.Cleanup(func() {
		if err := dev.Release(); err != nil {
			t.Errorf("device Release: %v", err)
		}
	})
	r.exe = r.executable()
	return r
}

func (r *rig) executable() hal.Executable {
	r.t.Helper()
	x, err := r.dev.CreateExecutable(addDesc())
	if err != nil {
		r.t.Fatalf("CreateExecutable: %v", err)
	}
	r.cleanup("executable", x.Release)
	return x
}

func addDesc() hal.ExecutableDesc {
	return hal.ExecutableDesc{
		Label:            "add",
		SPIRV:            addSPV,
		Bindings:         3,
		PushConstantSize: 8,
		Constants:        []hal.Constant{{ID: 0, Value: groupSize}},
	}
}

// cleanup releases an object when the test ends; Release must succeed,
// lost device or not.
func (r *rig) cleanup(what string, release func() error) {
	r.t.Cleanup(func() {
		start := time.Now()
		if err := release(); err != nil {
			r.t.Errorf("%s Release: %v", what, err)
		}
		if took := time.Since(start); took > slowRelease {
			r.t.Logf("%s Release took %v", what, took)
		}
	})
}

// slowRelease is how long a Release may take before the test says so: it
// waits for work still running on a lost device, and not much longer.
const slowRelease = 500 * time.Millisecond

func (r *rig) buffer(words int, mem hal.MemoryKind) hal.Buffer {
	r.t.Helper()
	b, err := r.dev.CreateBuffer(hal.BufferDesc{Size: int64(4 * words), Memory: mem})
	if err != nil {
		r.t.Fatalf("CreateBuffer: %v", err)
	}
	r.cleanup("buffer", b.Release)
	return b
}

func (r *rig) commandBuffer() hal.CommandBuffer {
	r.t.Helper()
	cb, err := r.dev.CreateCommandBuffer()
	if err != nil {
		r.t.Fatalf("CreateCommandBuffer: %v", err)
	}
	r.cleanup("command buffer", cb.Release)
	return cb
}

func (r *rig) write(b hal.Buffer, words []uint32) {
	r.t.Helper()
	if err := b.Write(r.ctx, 0, bytesOf(words)); err != nil {
		r.t.Fatalf("Write: %v", err)
	}
}

func (r *rig) read(b hal.Buffer) []uint32 {
	r.t.Helper()
	dst := make([]byte, b.Size())
	if err := b.Read(r.ctx, 0, dst); err != nil {
		r.t.Fatalf("Read: %v", err)
	}
	return wordsOf(dst)
}

// job is one dispatch of the kernel, with its own output buffer and
// command buffer.
type job struct {
	a, b, out hal.Buffer
	cb        hal.CommandBuffer
	n         int
	reps      uint32
	want      []uint32
}

// newJob makes a job of n words on fresh inputs seeded by seed.
func (r *rig) newJob(n int, reps uint32, seed uint64) *job {
	r.t.Helper()
	j := &job{n: n, reps: reps}
	j.a = r.buffer(n, hal.HostVisible)
	j.b = r.buffer(n, hal.DeviceLocal)
	j.out = r.buffer(n, hal.HostVisible)
	j.cb = r.commandBuffer()
	j.setInputs(r, seed)
	r.record(j)
	return j
}

// setInputs writes new inputs and computes the expected output.
func (j *job) setInputs(r *rig, seed uint64) {
	r.t.Helper()
	a, b := randomWords(seed, j.n), randomWords(seed+1<<32, j.n)
	r.write(j.a, a)
	r.write(j.b, b)
	j.want = expected(a, b, j.reps)
}

func (j *job) dispatch(exe hal.Executable) hal.Dispatch {
	return hal.Dispatch{
		Executable:    exe,
		Bindings:      []hal.Binding{{Buffer: j.a}, {Buffer: j.b}, {Buffer: j.out}},
		PushConstants: bytesOf([]uint32{uint32(j.n), j.reps}),
		Groups:        [3]uint32{uint32((j.n + groupSize - 1) / groupSize), 1, 1},
	}
}

// record records the job's dispatch into its command buffer.
func (r *rig) record(j *job) {
	r.t.Helper()
	for _, step := range []func() error{
		j.cb.Begin,
		func() error { return j.cb.Dispatch(j.dispatch(r.exe)) },
		j.cb.End,
	} {
		if err := step(); err != nil {
			r.t.Fatalf("recording: %v", err)
		}
	}
}

func (r *rig) submit(j *job, wait ...hal.Fence) hal.Fence {
	r.t.Helper()
	f, err := r.dev.Submit(j.cb, wait...)
	if err != nil {
		r.t.Fatalf("Submit: %v", err)
	}
	r.cleanup("fence", f.Release)
	return f
}

// wait waits for f, failing the test if that takes longer than 30s.
func (r *rig) wait(f hal.Fence) error {
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	return f.Wait(ctx)
}

// check reads the job's output and compares it with what it must be.
func (r *rig) check(what string, j *job) {
	r.t.Helper()
	if d := wordsDiff(j.want, r.read(j.out)); d != "" {
		r.t.Errorf("%s: output differs (-want +got):\n%s", what, d)
	}
}

// run submits the job, waits for it and checks its output.
func (r *rig) run(what string, j *job) {
	r.t.Helper()
	if err := r.wait(r.submit(j)); err != nil {
		r.t.Fatalf("%s: Wait: %v", what, err)
	}
	r.check(what, j)
}

// wordsDiff describes how got differs from want: "" when they are equal,
// else how many words differ, how many of those are zero (never written),
// and the first few. Jobs have tens of millions of words, too many for a
// general diff.
func wordsDiff(want, got []uint32) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d words, want %d", len(got), len(want))
	}
	var differ, zero int
	var first []string
	for i := range want {
		if want[i] == got[i] {
			continue
		}
		differ++
		if got[i] == 0 {
			zero++
		}
		if len(first) < 4 {
			first = append(first, fmt.Sprintf("[%d] got %#08x, want %#08x", i, got[i], want[i]))
		}
	}
	if differ == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d words differ (%d of them zero); first %s", differ, len(want), zero, strings.Join(first, ", "))
}

// lcg is one step of the kernel's generator.
func lcg(x uint32) uint32 { return x*1664525 + 1013904223 }

// expected is the kernel's output for a, b and reps. The LCG step is an
// affine map, so reps steps are one affine map, found by squaring in
// O(log reps): the long jobs of the loss tests have millions of words and
// tens of thousands of steps, which stepped one by one on the CPU took
// minutes.
func expected(a, b []uint32, reps uint32) []uint32 {
	ma, mb := lcgPower(reps)
	out := make([]uint32, len(a))
	for i := range a {
		out[i] = ma*(a[i]+b[i]) + mb
	}
	return out
}

// lcgPower returns (A, B) such that reps steps of lcg take x to A·x + B.
func lcgPower(reps uint32) (uint32, uint32) {
	ra, rb := uint32(1), uint32(0)                // the identity
	sa, sb := uint32(1664525), uint32(1013904223) // one step
	for ; reps > 0; reps >>= 1 {
		if reps&1 != 0 {
			ra, rb = sa*ra, sa*rb+sb
		}
		sa, sb = sa*sa, sa*sb+sb
	}
	return ra, rb
}

func randomWords(seed uint64, n int) []uint32 {
	rng := rand.New(rand.NewPCG(seed, 0xfa017))
	w := make([]uint32, n)
	for i := range w {
		w[i] = rng.Uint32()
	}
	return w
}

func bytesOf(words []uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func wordsOf(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

func filled(n int, v uint32) []uint32 {
	w := make([]uint32, n)
	for i := range w {
		w[i] = v
	}
	return w
}

// wantLost checks that err reports the loss of the device.
func wantLost(t testing.TB, what string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: no error after the device was lost", what)
	case !errors.Is(err, hal.ErrDeviceLost):
		t.Errorf("%s: error %v after the device was lost does not match hal.ErrDeviceLost", what, err)
	case status.CodeOf(err) != status.DataLoss:
		t.Errorf("%s: error %v after the device was lost has code %v, want DataLoss", what, err, status.CodeOf(err))
	}
}

// wantInjected checks that err is a synchronous fault injected with code.
func wantInjected(t testing.TB, what string, err error, code status.Code) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: no error, want the injected %v", what, code)
	case !errors.Is(err, faulty.ErrInjected):
		t.Errorf("%s: error %v does not match faulty.ErrInjected", what, err)
	case status.CodeOf(err) != code:
		t.Errorf("%s: error %v has code %v, want %v", what, err, status.CodeOf(err), code)
	}
}

func TestLCGPower(t *testing.T) {
	for _, reps := range []uint32{0, 1, 2, 3, 7, 64, 1000, 50000} {
		x := uint32(12345)
		for range reps {
			x = lcg(x)
		}
		a, b := lcgPower(reps)
		if got := a*12345 + b; got != x {
			t.Errorf("lcgPower(%d): %d, stepping gives %d", reps, got, x)
		}
	}
}
