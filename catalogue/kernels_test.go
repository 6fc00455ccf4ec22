package catalogue_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

const seed = 20261130

// testSizes are the sizes every candidate is verified at: for each
// operation one size that is a multiple of nothing (not of 4, of any
// workgroup or of any tile) and one that is a multiple of everything, plus
// some degenerate ones. They are small, as lavapipe is slow.
var testSizes = map[string][]kernels.Size{
	// 4195003 needs more than 65535 workgroups of 64: the grid folds into y.
	"copy":      {kernels.SizeOf(4195003), kernels.SizeOf(1 << 16), kernels.SizeOf(3)},
	"triad":     {kernels.SizeOf(1000003), kernels.SizeOf(1 << 16), kernels.SizeOf(5)},
	"reduce":    {kernels.SizeOf(1000003), kernels.SizeOf(1 << 16), kernels.SizeOf(3)},
	"transpose": {kernels.SizeOf(127, 1001), kernels.SizeOf(256, 256), kernels.SizeOf(1, 33)},
	// K or N not a multiple of 4 takes the kernels' scalar paths.
	// 128³ and 256x256x64 are whole tiles of the exact candidates (and
	// of their halved twins on lavapipe); with K of 128, 64, 24 and 8,
	// those of 8 rows of k run an odd number of slices that load the
	// next (a lone one after the pairs), an even number, and none.
	"gemm": {kernels.SizeOf(67, 45, 33), kernels.SizeOf(128, 128, 128), kernels.SizeOf(5, 130, 9), kernels.SizeOf(100, 36, 70), kernels.SizeOf(36, 70, 64), kernels.SizeOf(256, 256, 64),
		kernels.SizeOf(128, 128, 24), kernels.SizeOf(128, 128, 8)},
	// K or N not a multiple of 8 (or 4) takes the scalar paths of gemm-f16.
	"gemm-f16":     {kernels.SizeOf(67, 45, 33), kernels.SizeOf(128, 128, 128), kernels.SizeOf(5, 130, 9), kernels.SizeOf(100, 36, 70), kernels.SizeOf(36, 72, 64)},
	"gemm-bf16":    {kernels.SizeOf(67, 45, 33), kernels.SizeOf(128, 128, 128), kernels.SizeOf(5, 130, 9), kernels.SizeOf(100, 36, 70), kernels.SizeOf(36, 72, 64)},
	"peak-fma-f32": {kernels.SizeOf(1000, 37), kernels.SizeOf(4096, 64)},
	"peak-fma-f16": {kernels.SizeOf(1001, 37), kernels.SizeOf(4096, 64)},
	"peak-mad-i32": {kernels.SizeOf(999, 37), kernels.SizeOf(4096, 64)},
	// Chains that fill no warp, odd and even steps.
	"peak-coopmat-f16":    {kernels.SizeOf(37, 5), kernels.SizeOf(256, 16)},
	"peak-coopmat-f16acc": {kernels.SizeOf(37, 5), kernels.SizeOf(256, 16)},
	"peak-coopmat-s8":     {kernels.SizeOf(37, 5), kernels.SizeOf(256, 16)},
	"peak-coopmat-bf16":   {kernels.SizeOf(37, 5), kernels.SizeOf(256, 16)},
}

// devices opens every device the Vulkan driver lists, with validation on
// and every validation message failing t.
func devices(t *testing.T) []hal.Device {
	t.Helper()
	drv := devtest.Driver(t)
	infos := devtest.Devices(t, drv)
	var devs []hal.Device
	for i := range infos {
		devs = append(devs, devtest.OpenIndex(t, drv, i))
	}
	return devs
}

// releaseAtCleanup releases r when the test ends, failing it if that
// fails. Cleanups run last in, first out, so objects go before the device
// that made them.
func releaseAtCleanup(tb testing.TB, r interface{ Release() error }) {
	tb.Helper()
	tb.Cleanup(func() {
		if err := r.Release(); err != nil {
			tb.Errorf("Release: %v", err)
		}
	})
}

func deviceName(d hal.Device) string {
	info := d.Info()
	return fmt.Sprintf("%d-%s", info.Index, strings.ReplaceAll(info.Name, " ", "_"))
}

// TestCandidates verifies every built-in candidate at every test size it
// applies to (Candidate.Applies), on every device; a candidate that
// applies to none of them fails. A candidate the device cannot run is
// skipped with its reason, which must have code Unimplemented.
func TestCandidates(t *testing.T) {
	ctx := context.Background()
	for _, dev := range devices(t) {
		t.Run(deviceName(dev), func(t *testing.T) {
			for _, op := range catalogue.Builtin() {
				t.Run(op.Name(), func(t *testing.T) {
					testOperation(t, ctx, dev, op)
				})
			}
		})
	}
}

func testOperation(t *testing.T, ctx context.Context, dev hal.Device, op kernels.Operation) {
	sizes, ok := testSizes[op.Name()]
	if !ok {
		t.Fatalf("no test sizes for %s", op.Name())
	}
	var problems []kernels.Problem
	for _, size := range sizes {
		p, err := op.Prepare(ctx, dev, size, seed)
		if err != nil {
			t.Fatalf("Prepare(%v): %v", size, err)
		}
		releaseAtCleanup(t, p)
		problems = append(problems, p)
	}
	for i, c := range op.Candidates() {
		t.Run(c.Name, func(t *testing.T) {
			if err := c.Supported(dev.Info()); err != nil {
				if code := status.CodeOf(err); code != status.Unimplemented {
					t.Fatalf("Supported: code %v, want UNIMPLEMENTED: %v", code, err)
				}
				t.Skipf("unsupported on this device: %v", err)
			}
			exe, err := dev.CreateExecutable(c.Executable())
			if err != nil {
				t.Fatal(err)
			}
			releaseAtCleanup(t, exe)
			verified := 0
			for _, p := range problems {
				if c.Applies != nil && !c.Applies(p.Size()) {
					continue
				}
				verified++
				if err := kernels.Run(ctx, dev, p, exe, i); err != nil {
					t.Fatalf("%v: Run: %v", p.Size(), err)
				}
				if err := p.Verify(ctx, i); err != nil {
					t.Errorf("%v: %v", p.Size(), err)
				}
			}
			if verified == 0 {
				t.Errorf("applies to none of the test sizes %v: verified at none", sizes)
			}
		})
	}
}

// TestCandidatesTooLargeForTheDevice verifies the code of every built-in
// candidate the device cannot run for want of shared memory or workgroup
// size, through a twin that it can (kernels' fitted): the same shader and
// per-invocation tile, slice depth and phases, with a smaller workgroup
// and block, at every test size. On lavapipe (32 KiB of shared memory)
// these are regblock-128x128x16-8x8 and its -p2 variant (32.5 KiB), which
// TestCandidates skips. A candidate with no such twin fails the test: its
// code would be verified nowhere here.
func TestCandidatesTooLargeForTheDevice(t *testing.T) {
	ctx := context.Background()
	for _, dev := range devices(t) {
		t.Run(deviceName(dev), func(t *testing.T) {
			for _, op := range catalogue.Builtin() {
				twins, missing := catalogue.FittedTwins(op, dev.Info())
				for _, name := range missing {
					t.Errorf("%s/%s: too large for %s, and no smaller twin of it runs there: its code is verified nowhere here", op.Name(), name, dev.Info().Name)
				}
				if twins == nil {
					continue
				}
				t.Run(op.Name(), func(t *testing.T) {
					for i, c := range twins.Candidates() {
						t.Logf("twin %d: %s, workgroup %v, %v", i, c.Name, c.WorkgroupSize, c.Params)
					}
					testOperation(t, ctx, dev, twins)
				})
			}
		})
	}
}

// firstSupported returns the index of op's first candidate dev can run.
func firstSupported(t *testing.T, op kernels.Operation, info hal.DeviceInfo) int {
	for i, c := range op.Candidates() {
		if c.Supported(info) == nil {
			return i
		}
	}
	t.Skipf("no candidate of %s runs on %s", op.Name(), info.Name)
	return -1
}

// TestVerifyCatchesWrongResults checks that Verify can fail: after a
// correct run one output word is changed, and Verify must report it; and a
// run that records nothing but the poisoning must fail too.
func TestVerifyCatchesWrongResults(t *testing.T) {
	ctx := context.Background()
	dev := devices(t)[0]
	for _, op := range catalogue.Builtin() {
		t.Run(op.Name(), func(t *testing.T) {
			cand := firstSupported(t, op, dev.Info())
			p, err := op.Prepare(ctx, dev, testSizes[op.Name()][0], seed)
			if err != nil {
				t.Fatal(err)
			}
			releaseAtCleanup(t, p)
			exe, err := dev.CreateExecutable(op.Candidates()[cand].Executable())
			if err != nil {
				t.Fatal(err)
			}
			releaseAtCleanup(t, exe)
			if err := kernels.Run(ctx, dev, p, exe, cand); err != nil {
				t.Fatal(err)
			}
			if err := p.Verify(ctx, cand); err != nil {
				t.Fatalf("correct run: %v", err)
			}

			out := output(t, p)
			word := make([]byte, 4)
			if err := out.Read(ctx, 0, word); err != nil {
				t.Fatal(err)
			}
			v := uint32(word[0]) | uint32(word[1])<<8 | uint32(word[2])<<16 | uint32(word[3])<<24
			switch out.DType {
			case kernels.F32:
				v = math.Float32bits(2*math.Float32frombits(v) + 1)
			case kernels.F16, kernels.BF16:
				v ^= 0x8000 // the sign of the first half
			default:
				v ^= 0x80000001
			}
			word = []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
			if err := out.Write(ctx, 0, word); err != nil {
				t.Fatal(err)
			}
			err = p.Verify(ctx, cand)
			if !errors.Is(err, kernels.ErrWrongResult) {
				t.Fatalf("Verify after corrupting %s[0] = %v, want an error matching ErrWrongResult", out.Name, err)
			}
			if code := status.CodeOf(err); code != status.FailedPrecondition {
				t.Errorf("code %v, want FAILED_PRECONDITION", code)
			}
			msg := err.Error()
			for _, want := range []string{"got", "want", "1 of"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			t.Logf("caught: %v", err)

			// A run without the kernel: only the poison reaches the outputs.
			cb, err := dev.CreateCommandBuffer()
			if err != nil {
				t.Fatal(err)
			}
			releaseAtCleanup(t, cb)
			if err := cb.Begin(); err != nil {
				t.Fatal(err)
			}
			if err := kernels.RecordPoison(cb, p); err != nil {
				t.Fatal(err)
			}
			if err := cb.End(); err != nil {
				t.Fatal(err)
			}
			f, err := dev.Submit(cb)
			if err != nil {
				t.Fatal(err)
			}
			releaseAtCleanup(t, f)
			if err := f.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if err := p.Verify(ctx, cand); !errors.Is(err, kernels.ErrWrongResult) {
				t.Fatalf("Verify of poisoned outputs = %v, want ErrWrongResult", err)
			}
		})
	}
}

func output(t *testing.T, p kernels.Problem) kernels.Operand {
	for _, b := range p.Buffers() {
		if b.Role == kernels.Output {
			return b
		}
	}
	t.Fatal("problem has no output buffer")
	return kernels.Operand{}
}

// TestVerifyCandidate runs the convenience path end to end, including its
// answer for a candidate index out of range.
func TestVerifyCandidate(t *testing.T) {
	ctx := context.Background()
	dev := devices(t)[0]
	op, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	cand := firstSupported(t, op, dev.Info())
	if err := kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(33, 17, 9), cand, seed); err != nil {
		t.Fatal(err)
	}
	err = kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(33, 17, 9), len(op.Candidates()), seed)
	if code := status.CodeOf(err); code != status.InvalidArgument {
		t.Errorf("candidate out of range: %v, want INVALID_ARGUMENT", err)
	}
	_, err = op.Prepare(ctx, dev, kernels.SizeOf(33, 17), seed)
	if code := status.CodeOf(err); code != status.InvalidArgument {
		t.Errorf("Prepare with two dimensions: %v, want INVALID_ARGUMENT", err)
	}
}

// TestDefaultSizeRuns checks that each operation's default size for the
// device prepares, and runs with the first candidate the device supports.
func TestDefaultSizeRuns(t *testing.T) {
	ctx := context.Background()
	dev := devices(t)[0]
	if dev.Info().Type != hal.CPU {
		t.Skip("default sizes are only small on CPU devices")
	}
	for _, op := range catalogue.Builtin() {
		t.Run(op.Name(), func(t *testing.T) {
			size := op.DefaultSize(dev.Info())
			cand := firstSupported(t, op, dev.Info())
			// The last candidate is often the fastest; the first is the
			// simplest. Try the first: the point is that the size works.
			if err := kernels.VerifyCandidate(ctx, dev, op, size, cand, seed); err != nil {
				t.Fatalf("%v: %v", size, err)
			}
		})
	}
}
