package vkbench_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/vkbench/vkbench"
)

// TestKernelSets: a kernel with a buffer in descriptor set 1 (y of
// saxpy_sets, x in set 0) builds with its sets worked out from the module,
// takes its buffers set by set and computes y = a·x + y, the validation
// layer reporting nothing.
func TestKernelSets(t *testing.T) {
	ctx := context.Background()
	dev := open(t)
	code, err := os.ReadFile("testdata/manifests/saxpy_sets.spv")
	if err != nil {
		t.Fatal(err)
	}
	p, err := dev.Build(ctx, vkbench.Kernel{Name: "saxpy-sets", SPIRV: code, PushConstantSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Release(); err != nil {
			t.Error(err)
		}
	}()
	if k := p.Kernel(); k.Bindings != 2 || fmt.Sprint(k.Sets) != "[1 1]" {
		t.Errorf("Kernel(): %d bindings in sets %v, want 2 in [1 1]", k.Bindings, k.Sets)
	}
	const n = 1000
	in, init, want := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range in {
		in[i], init[i], want[i] = float32(i), 1, 2.5*float32(i)+1
	}
	x, err := vkbench.Upload(ctx, dev, in)
	if err != nil {
		t.Fatal(err)
	}
	y, err := vkbench.Upload(ctx, dev, init)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := errors.Join(x.Release(), y.Release()); err != nil {
			t.Error(err)
		}
	}()
	if err := dev.Run(ctx, p, vkbench.Groups(n, 256), vkbench.Push(uint32(n), float32(2.5)), x, y); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, n)
	if err := y.Read(ctx, out); err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if out[i] != want[i] {
			t.Fatalf("y[%d] = %v, want %v", i, out[i], want[i])
		}
	}
}
