package vkbench_test

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

//go:embed testdata/library/histogram.spv
var histogramSPIRV []byte

// histogramOp counts values into 256 bins with atomics, at two workgroup
// sizes; its Problem resets the bins before every run when reset is set.
func histogramOp(reset bool) *vkbench.Op {
	kernel := func(wg uint32) vkbench.Kernel {
		return vkbench.Kernel{Name: fmt.Sprintf("atomic-wg%d", wg), SPIRV: histogramSPIRV,
			WorkgroupSize: [3]uint32{wg, 1, 1}, PushConstantSize: 4}
	}
	return &vkbench.Op{
		Name:       "histogram",
		Dims:       []string{"N"},
		DType:      0,
		Candidates: []vkbench.Kernel{kernel(64), kernel(256)},
		Prepare: func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
			n := size[0]
			x := make([]uint32, n)
			r := rand.New(rand.NewPCG(seed, 1))
			want := make([]uint32, 256)
			for i := range x {
				x[i] = r.Uint32()
				want[x[i]&255]++
			}
			xb, err := vkbench.Upload(ctx, d, x)
			if err != nil {
				return nil, err
			}
			bins, err := vkbench.NewBuffer[uint32](ctx, d, 256)
			if err != nil {
				return nil, err
			}
			p := &vkbench.Problem{
				Buffers: []vkbench.Binding{xb, bins},
				Outputs: []vkbench.Binding{bins},
				Push:    vkbench.Push(n),
				Groups:  func(k vkbench.Kernel) [3]uint32 { return vkbench.Groups(n, int(k.WorkgroupSize[0])) },
				Check: func(ctx context.Context) error {
					got := make([]uint32, 256)
					if err := bins.Read(ctx, got); err != nil {
						return err
					}
					if d := cmp.Diff(want, got); d != "" {
						return fmt.Errorf("bins (-want +got):\n%s", d)
					}
					return nil
				},
			}
			if reset {
				p.Reset = []vkbench.Fill{{Buffer: bins, Value: 0}}
			}
			return p, nil
		},
	}
}

// TestTuneAccumulatingKernel: a histogram, whose runs add to its bins, is
// tuned and verified when its Problem resets the bins; without the reset
// no candidate can be verified (the checked run starts from the poison).
// The two are named apart: a key whose tune failed is not tuned again
// for a minute.
func TestTuneAccumulatingKernel(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	tu := quickTuner(t, dev)
	unreset := histogramOp(false)
	unreset.Name += "-unreset"
	if _, err := tu.Fastest(ctx, unreset, 4096); err == nil {
		t.Fatal("a histogram without Reset was tuned; its checked run cannot start from zeroed bins")
	}
	op := histogramOp(true)
	p, err := tu.Fastest(ctx, op, 4096)
	if err != nil {
		t.Fatalf("tuning a histogram with Reset: %v", err)
	}
	if !slices.ContainsFunc(op.Candidates, func(k vkbench.Kernel) bool { return k.Name == p.Kernel().Name }) {
		t.Errorf("the answer %q is not a candidate", p.Kernel().Name)
	}
}

// TestApplies: a kernel that does not apply at a size is never the answer
// for it, even when it is the fastest at another size of the same bucket.
// Here "fast" (64 invocations a workgroup) applies only to even sizes and
// "slow" (one invocation a workgroup) to every size.
func TestApplies(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	tu, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "test", CachePath: filepath.Join(t.TempDir(), "autotune.db"), Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	slow := scaleKernel
	slow.Name, slow.WorkgroupSize, slow.Constants = "slow", [3]uint32{1, 1, 1}, map[uint32]uint32{0: 1}
	fast := scaleKernel
	fast.Name = "fast"
	fast.Applies = func(size []int) bool { return size[0]%2 == 0 }
	// Both orders: with fast first, the candidates that apply at an odd
	// size are a subset whose index 0 is the operation's 1, so an answer
	// not mapped back to the operation's numbering names fast.
	for _, op := range []*vkbench.Op{scaleOpOf(slow, fast), scaleOpOf(fast, slow)} {
		for _, n := range []int{1 << 12, 1<<12 - 1, 1<<12 - 3, 1 << 12} {
			p, err := tu.Fastest(ctx, op, n)
			if err != nil {
				t.Fatalf("Fastest(%d): %v", n, err)
			}
			got := p.Kernel().Name
			switch {
			case n%2 == 1 && got == "fast":
				t.Errorf("Fastest(%d) = %q, which does not apply at odd sizes", n, got)
			case n%2 == 0 && got != "fast":
				t.Errorf("Fastest(%d) = %q; want fast, 64 times wider", n, got)
			}
		}
	}
}

//go:embed testdata/library/scale_pastend.spv
var pastEndSPIRV []byte

// TestOutOfBoundsWrite: a kernel that computes every element right but
// writes past the end of its output is a wrong candidate, and its error
// names the buffer.
func TestOutOfBoundsWrite(t *testing.T) {
	dev := open(t)
	pastEnd := scaleKernel
	pastEnd.Name, pastEnd.SPIRV = "past-end", pastEndSPIRV
	op := scaleOpOf(scaleKernel, pastEnd)
	tu, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{Table: "test", CachePath: filepath.Join(t.TempDir(), "autotune.db"), Budget: 100 * time.Millisecond, Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := tu.Fastest(context.Background(), op, 4096); err != nil || p.Kernel().Name != scaleKernel.Name {
		t.Fatalf("Fastest: %v, %v; want the kernel that stays in bounds", p, err)
	}
	e, err := tu.Result(t.Context(), op, 4096)
	if err != nil || e == nil || len(e.Candidates) != 2 {
		t.Fatalf("Result: %+v, %v; want both candidates", e, err)
	}
	r := e.Candidates[1]
	if r.Outcome != vkbench.Wrong || !strings.Contains(r.Error, "wrote past the end of buffer binding 1") {
		t.Errorf("the kernel that writes past its output: %s: %s; want wrong, naming binding 1", r.Outcome, r.Error)
	}
	if e.Candidates[0].Outcome != vkbench.Measured {
		t.Errorf("the right kernel: %s: %s", e.Candidates[0].Outcome, e.Candidates[0].Error)
	}
}

// TestSlice: a kernel runs on part of a buffer through Slice, and what
// can never bind is refused when the slice is made.
func TestSlice(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	p, err := dev.Build(ctx, scaleKernel)
	if err != nil {
		t.Fatal(err)
	}
	align := int(dev.Info().StorageBufferAlignment / 4)
	n := 4 * max(align, 16)
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	x, err := vkbench.Upload(ctx, dev, in)
	if err != nil {
		t.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, n)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := max(align, 1), n-3
	xs, err := x.Slice(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := y.Slice(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	m := hi - lo
	if err := dev.Run(ctx, p, vkbench.Groups(m, 64), vkbench.Push(m, 2.0), xs, ys); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := y.Read(ctx, got); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := float32(0)
		if i >= lo && i < hi {
			want = 2 * float32(i)
		}
		if v != want {
			t.Fatalf("y[%d] = %v, want %v (slice [%d, %d))", i, v, want, lo, hi)
		}
	}
	for _, r := range [][2]int{{-1, 4}, {0, n + 1}, {5, 5}, {8, 4}} {
		if _, err := x.Slice(r[0], r[1]); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("Slice(%d, %d): %v, want InvalidArgument", r[0], r[1], err)
		}
	}
	if align > 1 {
		if _, err := x.Slice(1, 4); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("Slice at an unaligned start: %v, want InvalidArgument", err)
		}
	}

	// A buffer larger than the device binds at once is made, and bound in
	// parts; a slice of all of it is refused when it is made.
	max := int(dev.Info().MaxStorageBufferRange / 4)
	if max > 64<<20 {
		t.Logf("maxStorageBufferRange is %d floats: not making a larger buffer", max)
		return
	}
	big, err := vkbench.NewBuffer[float32](ctx, dev, max+64)
	if err != nil {
		t.Fatalf("a buffer of %d floats, past maxStorageBufferRange: %v", max+64, err)
	}
	defer func() { _ = big.Release() }()
	if _, err := big.Slice(0, max+64); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("Slice of %d floats, past maxStorageBufferRange: %v, want InvalidArgument", max+64, err)
	}
	if _, err := big.Slice(0, max); err != nil {
		t.Errorf("Slice of maxStorageBufferRange: %v", err)
	}
}

// TestTunerOptions: the root package's own options reach the tuner: the
// cache file, the table, the level, the budget, the precision. A table
// must be named; a level must be one.
func TestTunerOptions(t *testing.T) {
	dev := open(t)
	path := filepath.Join(t.TempDir(), "own.db")
	bad := []vkbench.TunerOptions{{CachePath: path}, {CachePath: path, Table: "My App"}, {CachePath: path, Table: "mine", Level: "thorough"},
		{CachePath: path, Table: "mine", Budget: -time.Second}}
	// A Precision that is not a fraction below 1: NaN, once accepted,
	// made answers that could not be stored; 1 or more is a percent.
	for _, p := range []float64{math.NaN(), math.Inf(1), -0.01, 1, 5} {
		bad = append(bad, vkbench.TunerOptions{CachePath: path, Table: "mine", Precision: p})
	}
	for _, bad := range bad {
		if _, err := dev.NewTuner(context.Background(), bad); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "TunerOptions.") {
			t.Errorf("NewTuner(%+v): %v; want InvalidArgument naming the field", bad, err)
		}
	}
	tu, err := dev.NewTuner(context.Background(), vkbench.TunerOptions{CachePath: path, Table: "mine", Level: "minimal", Budget: 200 * time.Millisecond, Precision: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := tu.Fastest(context.Background(), scaleOp(), 1<<12); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("a tune with a 200 ms budget took %v", d)
	}
	c, err := store.Open(store.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := c.Tables(t.Context())
	if err != nil || len(tables) != 1 || tables[0].Tuner != "mine" {
		t.Fatalf("tables in %s: %v, %v; want one of tuner \"mine\"", path, tables, err)
	}
	es, err := autotune.Entries(t.Context(), c, tables[0])
	if err != nil || len(es) != 1 {
		t.Fatalf("entries: %v, %v", es, err)
	}
	if b := es[0].Bounds; b.Budget != 200*time.Millisecond || b.TargetHalfWidth != 0.2 || es[0].Level != "minimal" {
		t.Errorf("the entry was measured under %+v, level %s; want a 200 ms budget, ±20%% and level minimal", b, es[0].Level)
	}
}

// TestSearchSpace searches an Op's Space through the root package alone:
// workgroup sizes from 1 to 256, those over 128 refused by Valid, and a
// BAD=1 half of kernels that write past their output's end. The answer is
// a configuration Valid accepts, never a wrong one, and its pipeline
// computes; a second search answers from the tuning log. An Op without a
// Space cannot be searched, and one with only a Space has no Fastest, nor
// Result.
func TestSearchSpace(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	tu, err := dev.NewTuner(ctx, vkbench.TunerOptions{
		Table:     "test",
		CachePath: filepath.Join(t.TempDir(), "autotune.db"),
		Budget:    100 * time.Millisecond,
		Warmup:    -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	op := scaleOpOf()
	compiled := 0
	op.Space = &vkbench.Space{
		Params: []vkbench.Param{{Name: "WG", Values: vkbench.Pow2(1, 256)}, {Name: "BAD", Values: []int{0, 1}}},
		Valid:  func(c vkbench.Config, size []int) bool { return c["WG"] <= 128 },
		Kernel: func(c vkbench.Config) vkbench.Kernel {
			compiled++
			k := scaleKernel
			k.Name = fmt.Sprintf("wg%d-bad%d", c["WG"], c["BAD"])
			k.WorkgroupSize, k.Constants = [3]uint32{uint32(c["WG"]), 1, 1}, map[uint32]uint32{0: uint32(c["WG"])}
			if c["BAD"] == 1 {
				k.SPIRV = pastEndSPIRV
			}
			return k
		},
	}
	p, cfg, err := tu.Search(ctx, op, vkbench.SearchOptions{Strategy: "exhaustive"}, 4096)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if cfg["WG"] > 128 || cfg["BAD"] != 0 {
		t.Errorf("the search chose %v: outside Valid, or a kernel that writes past its output", cfg)
	}
	if compiled != 16 {
		t.Errorf("Kernel was asked for %d configurations; want the 16 Valid accepts (8 sizes × 2)", compiled)
	}
	in := []float32{1, 2, 3, 4}
	if got := scale(t, dev, p, in, 3); got[3] != 12 {
		t.Errorf("the chosen pipeline computes %v", got)
	}
	_, again, err := tu.Search(ctx, op, vkbench.SearchOptions{Strategy: "exhaustive"}, 4096)
	if err != nil || again["WG"] != cfg["WG"] || again["BAD"] != 0 {
		t.Errorf("a second search: %v, %v; want %v from the tuning log", again, err, cfg)
	}

	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	// A search whose context has ended measures nothing and says why.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if p, _, err := tu.Search(cancelled, op, vkbench.SearchOptions{Strategy: "random", Seed: 7}, 8192); p != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context: %v, %v; want no pipeline and context.Canceled", p, err)
	}

	// A Space of which Valid accepts nothing is ErrNotFound, as documented.
	none := scaleOpOf()
	none.Name, none.Space = "none", &vkbench.Space{Params: op.Space.Params, Kernel: op.Space.Kernel, Valid: func(vkbench.Config, []int) bool { return false }}
	if p, _, err := tu.Search(ctx, none, vkbench.SearchOptions{Strategy: "exhaustive"}, 4096); p != nil || !errors.Is(err, vkbench.ErrNotFound) {
		t.Errorf("searching a Space that Valid empties: %v, %v; want ErrNotFound", p, err)
	}
	plain := scaleOpOf(scaleKernel)
	if _, _, err := tu.Search(ctx, plain, vkbench.SearchOptions{}, 4096); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("searching an Op without a Space: %v; want InvalidArgument", err)
	}
	if _, err := tu.Fastest(ctx, op, 4096); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "Search its Space") {
		t.Errorf("Fastest of an Op with only a Space: %v; want InvalidArgument that says to search", err)
	}
	// Result reads Fastest's answers, and says where a Search's are:
	// before, it was nil, no error, as for a key never tuned.
	if r, err := tu.Result(ctx, op, 4096); r != nil || status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "scale.space/") {
		t.Errorf("Result of an Op with only a Space, searched: %+v, %v; want InvalidArgument naming the search's keys", r, err)
	}
}

// TestReleaseTunedPipeline: the pipeline Fastest returns is the tuner's;
// a caller that releases it anyway does not poison later answers, which
// return the same pipeline and must still run (it failed every Run).
func TestReleaseTunedPipeline(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	tu, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "test", CachePath: filepath.Join(t.TempDir(), "autotune.db"), Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	op := scaleOpOf(scaleKernel)
	const n = 1024
	p, err := tu.Fastest(ctx, op, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Release(); err != nil {
		t.Errorf("Release of the tuner's pipeline: %v", err)
	}
	again, err := tu.Fastest(ctx, op, n)
	if err != nil {
		t.Fatal(err)
	}
	x, err := vkbench.Upload(ctx, dev, make([]float32, n))
	if err != nil {
		t.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.Run(ctx, again, vkbench.Groups(n, 64), vkbench.Push(uint32(n), float32(2.5)), x, y); err != nil {
		t.Errorf("Run of the tuner's answer after a Release of it: %v", err)
	}
	for _, b := range []interface{ Release() error }{x, y} {
		if err := b.Release(); err != nil {
			t.Error(err)
		}
	}
}

// TestZeroDeviceAndShortRead: a nil or zero Device, or Tuner, is an
// InvalidArgument error of every call, not a panic; Read into a slice of
// another length than the buffer's is an error, not a silent prefix.
func TestZeroDeviceAndShortRead(t *testing.T) {
	ctx := context.Background()
	refuses := func(what string, f func() error, says string) {
		t.Helper()
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked: %v", what, r)
				}
			}()
			err = f()
		}()
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT saying %q", what, err, says)
		}
	}
	for name, d := range map[string]*vkbench.Device{"nil": nil, "zero": {}} {
		calls := map[string]func() error{
			"Err":       d.Err,
			"Build":     func() error { _, err := d.Build(ctx, scaleKernel); return err },
			"Run":       func() error { return d.Run(ctx, nil, [3]uint32{1, 1, 1}, nil) },
			"NewTuner":  func() error { _, err := d.NewTuner(ctx, vkbench.TunerOptions{Table: "test"}); return err },
			"NewBuffer": func() error { _, err := vkbench.NewBuffer[float32](ctx, d, 4); return err },
		}
		for call, f := range calls {
			refuses(name+" Device: "+call, f, "Device is nil or was not opened")
		}
		if err := d.Close(); err != nil {
			t.Errorf("%s Device: Close: %v", name, err)
		}
	}
	op := scaleOp()
	for name, tu := range map[string]*vkbench.Tuner{"nil": nil, "zero": {}} {
		calls := map[string]func() error{
			"Fastest":          func() error { _, err := tu.Fastest(ctx, op, 1024); return err },
			"FastestOrDefault": func() error { _, _, err := tu.FastestOrDefault(ctx, op, 1024); return err },
			"Result":           func() error { _, err := tu.Result(t.Context(), op, 1024); return err },
			"Search":           func() error { _, _, err := tu.Search(ctx, op, vkbench.SearchOptions{}, 1024); return err },
		}
		for call, f := range calls {
			refuses(name+" Tuner: "+call, f, "Tuner is nil or was not made")
		}
	}
	dev := open(t)
	b, err := vkbench.Upload(ctx, dev, []float32{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Release(); err != nil {
			t.Error(err)
		}
	})
	if err := b.Read(ctx, make([]float32, 3)); !errors.Is(err, vkbench.ErrInvalidArgument) {
		t.Errorf("Read of 4 elements into 3: %v, want ErrInvalidArgument", err)
	}
	got := make([]float32, 4)
	if err := b.Read(ctx, got); err != nil || got[3] != 4 {
		t.Errorf("Read of 4 elements into 4: %v, %v", got, err)
	}
}

//go:embed testdata/library/fixed.spv
var fixedSPIRV []byte

// TestRunBufferSizes: a buffer smaller than the block its binding
// declares (float x[N], N a specialization constant) is refused by Run,
// InvalidArgument naming the buffer, its binding, the bytes given and the
// bytes the block takes, and nothing runs; a Problem too small for a
// candidate is refused the same way. Both ran before, the kernel reading
// and writing past the buffers with no word from the driver or the
// validation layer.
func TestRunBufferSizes(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	build := func(n uint32) *vkbench.Pipeline {
		p, err := dev.Build(ctx, vkbench.Kernel{Name: "fixed", SPIRV: fixedSPIRV, Constants: map[uint32]uint32{1: n}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	buffer := func(n int) *vkbench.Buffer[float32] {
		b, err := vkbench.Upload(ctx, dev, slices.Repeat([]float32{1}, n))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = b.Release() })
		return b
	}
	p256, p512 := build(256), build(512)
	x256, y64, y256 := buffer(256), buffer(64), buffer(256)
	half, err := x256.Slice(0, 128)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		p    *vkbench.Pipeline
		x, y vkbench.Binding
		want string
	}{
		{"output short", p256, x256, y64, "buffer 1 (set 0 binding 1) holds 256 bytes; the kernel's block there takes 1024"},
		{"specialized longer", p512, x256, y256, "buffer 0 (set 0 binding 0) holds 1024 bytes; the kernel's block there takes 2048"},
		{"slice short", p256, half, y256, "buffer 0 (set 0 binding 0) holds 512 bytes; the kernel's block there takes 1024"},
	} {
		err := dev.Run(ctx, c.p, vkbench.Groups(256, 64), nil, c.x, c.y)
		if !errors.Is(err, vkbench.ErrInvalidArgument) || !strings.Contains(err.Error(), `Run "fixed": `+c.want) {
			t.Errorf("%s: Run: %v; want InvalidArgument saying %q", c.name, err, c.want)
		}
	}
	got := make([]float32, 256)
	if err := y256.Read(ctx, got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 1 {
		t.Errorf("a refused Run wrote y[0] = %v", got[0])
	}
	if err := dev.Run(ctx, p256, vkbench.Groups(256, 64), nil, x256, y256); err != nil {
		t.Fatalf("Run with the sizes the blocks take: %v", err)
	}
	if err := y256.Read(ctx, got); err != nil || got[255] != 2 {
		t.Errorf("y[255] = %v, %v; want 2", got[255], err)
	}

	op := &vkbench.Op{Name: "fixed", Dims: []string{"N"},
		Candidates: []vkbench.Kernel{{Name: "fixed", SPIRV: fixedSPIRV}},
		Prepare: func(ctx context.Context, d *vkbench.Device, size []int, _ uint64) (*vkbench.Problem, error) {
			x, err := vkbench.NewBuffer[float32](ctx, d, size[0])
			if err != nil {
				return nil, err
			}
			y, err := vkbench.NewBuffer[float32](ctx, d, size[0])
			if err != nil {
				return nil, errors.Join(err, x.Release())
			}
			return &vkbench.Problem{Buffers: []vkbench.Binding{x, y}, Outputs: []vkbench.Binding{y},
				Groups: func(k vkbench.Kernel) [3]uint32 { return vkbench.Groups(size[0], 64) }}, nil
		},
	}
	const want = `the Problem at size 64, for candidate "fixed": buffer 0 (set 0 binding 0) holds 256 bytes; the kernel's block there takes 1024`
	if p, err := quickTuner(t, dev).Fastest(ctx, op, 64); !errors.Is(err, vkbench.ErrInvalidArgument) || !strings.Contains(err.Error(), want) {
		t.Errorf("Fastest with a Problem too small: %v, %v; want InvalidArgument saying %q", p, err, want)
	}
}

// TestPushIntAsFloat: an integer packed where the kernel's push constants
// have a float (Push(n, 10) for uint n; float a: the untyped 10 is an
// int) is refused by Run, InvalidArgument saying which byte and how to
// pack it, and nothing runs; so is a Problem's. Before, Run computed with
// a = 1.4e-45 * 10 and returned nil, and a tune said only that no
// candidate computed correctly.
func TestPushIntAsFloat(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	p, err := dev.Build(ctx, scaleKernel)
	if err != nil {
		t.Fatal(err)
	}
	x, err := vkbench.Upload(ctx, dev, []float32{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, 4)
	if err != nil {
		t.Fatal(err)
	}
	const want = "push constant at byte 4 is a float in the kernel, and holds the integer 10 (as a float, 1.4e-44): pack it as float32(10)"
	if err := dev.Run(ctx, p, vkbench.Groups(4, 64), vkbench.Push(4, 10), x, y); !errors.Is(err, vkbench.ErrInvalidArgument) || !strings.Contains(err.Error(), want) {
		t.Errorf("Run with an int for a float: %v; want InvalidArgument saying %q", err, want)
	}
	out := make([]float32, 4)
	for _, a := range []float32{0, 10} {
		if err := dev.Run(ctx, p, vkbench.Groups(4, 64), vkbench.Push(4, a), x, y); err != nil {
			t.Fatalf("Run with a = %v: %v", a, err)
		}
		if err := y.Read(ctx, out); err != nil || out[3] != 4*a {
			t.Errorf("a = %v: y = %v, %v; want y[3] = %v", a, out, err, 4*a)
		}
	}

	op := scaleOpOf(scaleKernel)
	prepare := op.Prepare
	op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
		pr, err := prepare(ctx, d, size, seed)
		if err == nil {
			pr.Push = vkbench.Push(size[0], 2)
		}
		return pr, err
	}
	if p, err := quickTuner(t, dev).Fastest(ctx, op, 64); !errors.Is(err, vkbench.ErrInvalidArgument) || !strings.Contains(err.Error(), "holds the integer 2") {
		t.Errorf("Fastest with an int for a float in the Problem's Push: %v, %v; want InvalidArgument saying so", p, err)
	}
}

// TestProblemFitsCandidates: a Problem whose Buffers or Push do not fit
// a candidate (another count of buffers than its Bindings, another
// length than its PushConstantSize) is refused, InvalidArgument naming
// the candidate, as a Problem whose buffers are too small is. Before, the
// candidate failed its run inside the tune and Fastest answered with
// another one, nil error: a typo in one candidate took it out of the race
// unseen; with every candidate so, the error blamed the candidates ("no
// candidate computed correctly", FAILED_PRECONDITION).
func TestProblemFitsCandidates(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	wide := scaleKernel
	wide.Name, wide.PushConstantSize = "wide-push", 12 // the module's block is 8
	extra := scaleKernel
	extra.Name, extra.Bindings = "extra-binding", 3
	for _, tc := range []struct {
		kernel vkbench.Kernel
		want   string
	}{
		{wide, `the Problem at size 64 has 8 bytes of push constants; candidate "wide-push" takes 12 (its PushConstantSize)`},
		{extra, `the Problem at size 64 has 2 buffers; candidate "extra-binding" takes 3 (its Bindings)`},
	} {
		op := scaleOpOf(scaleKernel, tc.kernel)
		if p, err := quickTuner(t, dev).Fastest(ctx, op, 64); !errors.Is(err, vkbench.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Fastest with candidate %q: %v (pipeline %t); want InvalidArgument saying %q", tc.kernel.Name, err, p != nil, tc.want)
		}
	}
}

// TestProblemOutputNotBound: a Problem whose Outputs name a buffer that
// is not among its Buffers is refused, InvalidArgument saying so. Before,
// that output was neither bound nor poisoned, and the tune went on
// without the check that a kernel writing nothing fails.
func TestProblemOutputNotBound(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	op := scaleOpOf(scaleKernel)
	prepare := op.Prepare
	op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
		pr, err := prepare(ctx, d, size, seed)
		if err != nil {
			return nil, err
		}
		other, err := vkbench.NewBuffer[float32](ctx, d, size[0])
		if err != nil {
			return nil, err
		}
		pr.Outputs = []vkbench.Binding{other}
		return pr, nil
	}
	const want = "output 0 is not one of the Problem's Buffers"
	if p, err := quickTuner(t, dev).Fastest(ctx, op, 64); !errors.Is(err, vkbench.ErrInvalidArgument) || !strings.Contains(err.Error(), want) {
		t.Errorf("Fastest with an output not bound: %v (pipeline %t); want InvalidArgument saying %q", err, p != nil, want)
	}
}

// TestProblemZeroGroups: a Problem whose Groups gives a candidate 0
// workgroups in some dimension is refused, InvalidArgument naming the
// candidate. Before, every candidate failed its dispatch and the error
// blamed them: "no candidate ... computed correctly" (FAILED_PRECONDITION).
func TestProblemZeroGroups(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	op := scaleOpOf(scaleKernel)
	prepare := op.Prepare
	op.Prepare = func(ctx context.Context, d *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
		pr, err := prepare(ctx, d, size, seed)
		if err == nil {
			pr.Groups = func(k vkbench.Kernel) [3]uint32 { return [3]uint32{1, 0, 1} }
		}
		return pr, err
	}
	const want = `the Problem's Groups at size 64 gives candidate "scale" [1 0 1] workgroups; each must be at least 1`
	if p, err := quickTuner(t, dev).Fastest(ctx, op, 64); !errors.Is(err, vkbench.ErrInvalidArgument) || errors.Is(err, vkbench.ErrFailedPrecondition) || !strings.Contains(err.Error(), want) {
		t.Errorf("Fastest with Groups of 0: %v (pipeline %t); want InvalidArgument saying %q", err, p != nil, want)
	}
}
