package autotune_test

import (
	"context"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
)

// compileTime builds every supported built-in candidate on dev and returns
// how long that took.
func compileTime(t *testing.T, dev hal.Device) time.Duration {
	t.Helper()
	start := time.Now()
	n, err := autotune.Compile(context.Background(), dev, catalogue.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("compiled nothing")
	}
	return time.Since(start)
}

// TestCompileOnlyKeepsPipelineCache: after a compile-only pass, a device
// opened with the saved pipeline cache builds the same pipelines much
// faster than one opened without.
func TestCompileOnlyKeepsPipelineCache(t *testing.T) {
	drv := devtest.Driver(t)
	first := devtest.OpenIndex(t, drv, -1)
	cold := compileTime(t, first)
	data, err := first.(hal.PipelineCacher).PipelineCacheData()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 16 {
		t.Fatalf("pipeline cache data of %d bytes: not even the header Vulkan requires", len(data))
	}
	c := newCache(t, t.TempDir()+"/c.db")
	uuid := first.Info().PipelineCacheUUID
	if err := c.SavePipelineCache(t.Context(), uuid, data); err != nil {
		t.Fatal(err)
	}
	loaded, err := c.LoadPipelineCache(t.Context(), uuid)
	if err != nil || len(loaded) != len(data) {
		t.Fatalf("stored %d bytes, loaded %d (%v)", len(data), len(loaded), err)
	}
	infos, err := drv.Enumerate()
	if err != nil {
		t.Fatal(err)
	}
	warmDev, err := drv.Open(context.Background(), hal.DefaultDevice(infos), hal.DeviceOptions{PipelineCache: loaded})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := warmDev.Release(); err != nil {
			t.Error(err)
		}
	})
	warm := compileTime(t, warmDev)
	t.Logf("compiling every built-in candidate: %v without a pipeline cache, %v with (%d bytes)", cold, warm, len(data))
	// A cache of only its 32-byte header is a driver that keeps no
	// pipelines (lavapipe before Mesa 23): nothing to gain, only the round
	// trip above to check.
	if len(data) <= 32 {
		t.Logf("the driver keeps no pipelines in its cache; the speed-up is checked on drivers that do")
		return
	}
	// Some drivers (NVIDIA's) also keep a shader cache of their own on
	// disk, which speeds up the run without ours too; so the bound is
	// "clearly faster", not a fixed ratio.
	if float64(warm) > 0.8*float64(cold) {
		t.Errorf("with the pipeline cache compiling took %v, without %v: want it clearly (20%%) faster", warm, cold)
	}
}
