package vkbench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/status"
)

// TestKernelSubgroupSize: a kernel that requires the device's own
// subgroup size and full subgroups builds and runs; one that requires a
// size outside the device's range is refused by Build (Unimplemented),
// naming the size and the range.
func TestKernelSubgroupSize(t *testing.T) {
	dev := open(t)
	ctx := context.Background()
	info := dev.Info()
	k := scaleKernel
	k.SubgroupSize, k.FullSubgroups = info.SubgroupSize, true
	p, err := dev.Build(ctx, k)
	if err != nil {
		t.Fatalf("Build requiring subgroups of %d, the device's: %v", info.SubgroupSize, err)
	}
	const n = 256
	x, err := vkbench.Upload(ctx, dev, make([]float32, n))
	if err != nil {
		t.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.Run(ctx, p, vkbench.Groups(n, 64), vkbench.Push(uint32(n), float32(2)), x, y); err != nil {
		t.Errorf("Run: %v", err)
	}
	k.SubgroupSize = 256 // past every device's range (Vulkan's largest is 128)
	_, err = dev.Build(ctx, k)
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "needs a subgroup size of 256") {
		t.Errorf("Build requiring subgroups of 256: %v; want UNIMPLEMENTED naming the size", err)
	}
}
