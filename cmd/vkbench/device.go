package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/vk"
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

// open opens the chosen device, as hal.Open: release releases it and its
// driver. The driver's messages (validation) are warnings on cmd's stderr.
func (f *deviceFlags) open(cmd *cobra.Command, cache *store.Store) (dev hal.Device, release func() error, err error) {
	dev, release, err = hal.Open(cmd.Context(), vk.DriverName, f.openOptions(cmd, cache))
	if err != nil {
		return nil, nil, deviceSpecError(f.device, err)
	}
	return dev, release, nil
}

// openOptions are how the command opens devices: validated if asked,
// messages as warnings on stderr, the driver's pipeline cache loaded from
// the tune cache.
func (f *deviceFlags) openOptions(cmd *cobra.Command, cache *store.Store) hal.OpenOptions {
	opts := hal.OpenOptions{
		Driver: hal.DriverOptions{Validation: f.validating(), Logger: warningLogger(cmd.ErrOrStderr())},
		Device: f.device,
	}
	if cache != nil {
		opts.PipelineCache = func(info hal.DeviceInfo) []byte {
			// A pipeline cache that does not load only costs compile time.
			data, _ := cache.LoadPipelineCache(info.PipelineCacheUUID)
			return data
		}
	}
	return opts
}

// deviceSpecError makes an error of choosing the device --device names
// bad usage, naming the flag.
func deviceSpecError(spec string, err error) error {
	if c := status.CodeOf(err); spec != "" && (c == status.NotFound || c == status.InvalidArgument) {
		return usageError{status.Annotatef(err, "--device %q (see vkbench devices)", spec)}
	}
	return err
}

// savePipelineCache keeps the driver's compiled pipelines for the next run.
func savePipelineCache(dev hal.Device, cache *store.Store) error {
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

// keepPipelineCache saves the driver's pipeline cache after a command
// measured: one not saved only costs the next run compile time, a warning.
func keepPipelineCache(cmd *cobra.Command, dev hal.Device, cache *store.Store) {
	if err := savePipelineCache(dev, cache); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "vkbench: warning: pipeline cache not saved: %v\n", err)
	}
}

// validating reports whether the validation layer is asked for, by flag or
// by the environment (the test command sets VKBENCH_VALIDATION=1, so that
// every command its tests run is validated).
func (f *deviceFlags) validating() bool {
	return f.validation || os.Getenv("VKBENCH_VALIDATION") == "1"
}
