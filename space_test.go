package vkbench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/internal/testenv"
)

// countPlan counts the calls of the devices opened through
// "vulkan-counted": package hal/faulty's wrapper of the Vulkan backend,
// with a plan that injects nothing.
var countPlan = faulty.NewPlan()

func init() {
	hal.Register("vulkan-counted", func(opts hal.DriverOptions) (hal.Driver, error) {
		drv, err := hal.OpenDriver("vulkan", opts)
		if err != nil {
			return nil, err
		}
		return faulty.WrapDriver(drv, func(int) *faulty.Plan { return countPlan }), nil
	})
}

// TestSearchKeepsWinner: Tuner.Search returns the pipeline its search
// built and measured for the winner: a search of 4 configurations, each
// measured, builds 4 pipelines, and the one returned computes. Before, it
// built the winner a fifth time, after the search had released its own.
// A search answered from the tuning log, which measures nothing, builds
// the winner once. The validation layer is on throughout.
func TestSearchKeepsWinner(t *testing.T) {
	devtest.NeedVulkan(t)
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{Driver: "vulkan-counted", Validation: true,
		OnMessage: func(m vkbench.Message) { t.Errorf("validation %s [%s]: %s", m.Severity, m.ID, m.Text) }})
	if err != nil {
		testenv.Unavailable(t, "no Vulkan device with validation: %v", err)
	}
	t.Cleanup(func() {
		if err := dev.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	tu, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "test", CachePath: filepath.Join(t.TempDir(), "autotune.db"),
		Budget: 100 * time.Millisecond, Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	op := scaleOpOf()
	op.Space = &vkbench.Space{
		Params: []vkbench.Param{{Name: "WG", Values: vkbench.Pow2(32, 256)}},
		Kernel: func(c vkbench.Config) vkbench.Kernel {
			k := scaleKernel
			k.Name = fmt.Sprintf("wg%d", c["WG"])
			k.WorkgroupSize, k.Constants = [3]uint32{uint32(c["WG"]), 1, 1}, map[uint32]uint32{0: uint32(c["WG"])}
			return k
		},
	}
	for _, c := range []struct {
		what  string
		built int
	}{{"a search that measures every configuration", 4}, {"a search answered from the tuning log", 1}} {
		before := countPlan.Calls(faulty.CreateExecutable)
		p, cfg, err := tu.Search(ctx, op, vkbench.SearchOptions{Strategy: "exhaustive"}, 4096)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if built := countPlan.Calls(faulty.CreateExecutable) - before; built != c.built {
			t.Errorf("%s built %d pipelines; want %d", c.what, built, c.built)
		}
		if got := scale(t, dev, p, []float32{1, 2, 3, 4}, 3); got[3] != 12 {
			t.Errorf("%s: the pipeline of %v computes %v", c.what, cfg, got)
		}
		if err := p.Release(); err != nil {
			t.Error(err)
		}
	}
}
