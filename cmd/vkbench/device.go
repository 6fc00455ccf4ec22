package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
	fs.BoolVar(&f.validation, "validation", false, "turn on the Khronos validation layer (slow; for debugging kernels)")
}

// opened is an opened device and its driver.
type opened struct {
	drv hal.Driver
	dev hal.Device
}

func (o *opened) Release() error {
	return status.Join(o.dev.Release(), o.drv.Release())
}

// selectDevice returns the index in infos that spec names.
func selectDevice(infos []hal.DeviceInfo, spec string) (int, error) {
	if len(infos) == 0 {
		return 0, status.New(status.NotFound, "no Vulkan devices (is a Vulkan driver installed? lavapipe is in mesa-vulkan-drivers)")
	}
	if spec == "" {
		return hal.DefaultDevice(infos), nil
	}
	if i, err := strconv.Atoi(spec); err == nil {
		if i < 0 || i >= len(infos) {
			return 0, usageError{fmt.Errorf("--device %d is out of range: there are %d device(s), 0 to %d (see vkbench devices)", i, len(infos), len(infos)-1)}
		}
		return i, nil
	}
	var match []int
	for i, d := range infos {
		uuid := fmt.Sprintf("%x", d.DeviceUUID)
		if strings.Contains(strings.ToLower(d.Name), strings.ToLower(spec)) || strings.HasPrefix(uuid, strings.ToLower(strings.ReplaceAll(spec, "-", ""))) {
			match = append(match, i)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return 0, usageError{fmt.Errorf("--device %q matches no device (see vkbench devices)", spec)}
	}
	return 0, usageError{fmt.Errorf("--device %q matches %d devices; use an index or a UUID", spec, len(match))}
}

// open opens the chosen device; the driver's messages (validation) are
// warnings on cmd's stderr.
func (f *deviceFlags) open(cmd *cobra.Command, cache *autotune.Cache) (*opened, error) {
	ctx := cmd.Context()
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{Validation: f.validation, Logger: warningLogger(cmd.ErrOrStderr())})
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
