package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"os"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// deviceFlags choose and open a device.
type deviceFlags struct {
	device     string
	validation bool
}

func (f *deviceFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.device, "device", "d", "", "device by index, name (or part of it) or UUID prefix (default: the first discrete GPU, then integrated, virtual, CPU)")
	fs.BoolVar(&f.validation, "validation", false, "turn on the Khronos validation layer (slow; for debugging kernels); also on when $VKBENCH_VALIDATION is 1")
}

// opened is an opened device and its driver.
type opened struct {
	drv hal.Driver
	dev hal.Device
}

func (o *opened) Release() error {
	return status.Join(o.dev.Release(), o.drv.Release())
}

// selectDevice returns the index in infos that spec names; a spec that
// names no device, or several, is bad usage.
func selectDevice(infos []hal.DeviceInfo, spec string) (int, error) {
	i, err := hal.SelectDevice(infos, spec)
	if err != nil && spec != "" && status.CodeOf(err) != status.Unavailable {
		return 0, usageError{status.Annotatef(err, "--device %q (see vkbench devices)", spec)}
	}
	return i, err
}

// open opens the chosen device; the driver's messages (validation) are
// warnings on cmd's stderr.
func (f *deviceFlags) open(cmd *cobra.Command, cache *autotune.Cache) (*opened, error) {
	ctx := cmd.Context()
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{Validation: f.validating(), Logger: warningLogger(cmd.ErrOrStderr())})
	if err != nil {
		return nil, err
	}
	infos, err := drv.Enumerate()
	if err != nil {
		return nil, status.Join(err, drv.Release())
	}
	i, err := selectDevice(infos, f.device)
	if err != nil {
		return nil, status.Join(err, drv.Release())
	}
	var opts hal.DeviceOptions
	if cache != nil {
		// A pipeline cache that does not load only costs compile time.
		opts.PipelineCache, _ = cache.LoadPipelineCache(infos[i].PipelineCacheUUID)
	}
	dev, err := drv.Open(ctx, i, opts)
	if err != nil {
		return nil, status.Join(err, drv.Release())
	}
	return &opened{drv: drv, dev: dev}, nil
}

// savePipelineCache keeps the driver's compiled pipelines for the next run.
func savePipelineCache(dev hal.Device, cache *autotune.Cache) error {
	pc, ok := dev.(hal.PipelineCacher)
	if !ok || cache == nil || cache.Path() == "" {
		return nil
	}
	data, err := pc.PipelineCacheData()
	if err != nil || len(data) == 0 {
		return err
	}
	return cache.SavePipelineCache(dev.Info().PipelineCacheUUID, data)
}

// validating reports whether the validation layer is asked for, by flag or
// by the environment (the test command sets VKBENCH_VALIDATION=1, so that
// every command its tests run is validated).
func (f *deviceFlags) validating() bool {
	return f.validation || os.Getenv("VKBENCH_VALIDATION") == "1"
}
