package vkbench_test

import (
	"context"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/autotune"
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
func TestTuneAccumulatingKernel(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	tu := quickTuner(t, dev)
	if _, err := tu.Fastest(ctx, histogramOp(false), 4096); err == nil {
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
	tuning := autotune.DefaultOptions
	tuning.Tuner = "test"
	tuning.Warmup = -1
	tu, err := dev.NewTuner(vkbench.TunerOptions{
		Cache:  autotune.CacheOptions{Path: filepath.Join(t.TempDir(), "autotune.db")},
		Tuning: &tuning,
	})
	if err != nil {
		t.Fatal(err)
	}
	slow := scaleKernel
	slow.Name, slow.WorkgroupSize, slow.Constants = "slow", [3]uint32{1, 1, 1}, map[uint32]uint32{0: 1}
	fast := scaleKernel
	fast.Name = "fast"
	fast.Applies = func(size []int) bool { return size[0]%2 == 0 }
	op := scaleOpOf(slow, fast)
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
