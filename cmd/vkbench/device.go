package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/vk"
)

// deviceFlags choose and open a device.
type deviceFlags struct {
	device     string
	validation bool
	hang       time.Duration
}

func (f *deviceFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.device, "device", "d", "", "device by index, name (or part of it) or UUID prefix (default: the first discrete GPU, then integrated, virtual, CPU)")
	fs.BoolVar(&f.validation, "validation", false, "turn on the Khronos validation layer (slow; for debugging kernels); also on when $VKBENCH_VALIDATION is 1")
	fs.DurationVar(&f.hang, "hang-timeout", hal.DefaultHangTimeout, "how long one GPU submission may run before it is taken for a kernel that never ends (a driver's build of a kernel at its first dispatch does not count): the GPU cannot stop it, so the command ends there")
}

// open opens the chosen device, as hal.Open: release releases it and its
// driver. The driver's messages (validation) are warnings on cmd's stderr.
func (f *deviceFlags) open(cmd *cobra.Command, cache *store.Store) (dev hal.Device, release func() error, err error) {
	dev, release, err = hal.Open(cmd.Context(), vk.DriverName, f.openOptions(cmd, cache))
	if err != nil {
		return nil, nil, openError(f.device, err)
	}
	return wrapDevice(dev), release, nil
}

// wrapDevice is what the command uses of each device it opens: the device
// itself, but where a test injects faults by wrapping it (hal/faulty).
var wrapDevice = func(dev hal.Device) hal.Device { return dev }

// openOptions are how the command opens devices: validated if asked (by
// flag or by the environment: the test command sets VKBENCH_VALIDATION=1,
// so that every command its tests run is validated), messages as warnings on stderr, the driver's pipeline cache loaded from
// the tune cache.
func (f *deviceFlags) openOptions(cmd *cobra.Command, cache *store.Store) hal.OpenOptions {
	opts := hal.OpenOptions{
		Driver:      hal.DriverOptions{Validation: f.validation || os.Getenv("VKBENCH_VALIDATION") == "1", Logger: warningLogger(cmd.ErrOrStderr())},
		Device:      f.device,
		HangTimeout: f.hang,
	}
	if cache != nil {
		opts.PipelineCache = func(info hal.DeviceInfo) []byte {
			// A pipeline cache that does not load only costs compile time.
			data, _ := cache.LoadPipelineCache(cmd.Context(), info.PipelineCacheUUID)
			return data
		}
	}
	return opts
}

// openError is err, of opening the driver or a device, as the command's
// error: the device's or the driver's (exit status 3, whatever its code:
// a device too old to use is UNIMPLEMENTED, as a kernel it cannot run,
// but no verdict on the kernels), unless it is the user's to fix, bad
// usage: a --device (spec) that names no device or several, or
// validation asked for that this machine cannot give (the layer or its
// extension not installed: FAILED_PRECONDITION).
func openError(spec string, err error) error {
	switch c := status.CodeOf(err); {
	case spec != "" && (c == status.NotFound || c == status.InvalidArgument):
		return usageError{status.Annotatef(err, "--device %q (see vkbench devices)", spec)}
	case c == status.FailedPrecondition:
		return usageError{err}
	}
	return deviceError{err}
}

// deviceError marks an error as the device's or the driver's, for exit
// status 3 whatever its code.
type deviceError struct{ err error }

func (e deviceError) Error() string { return e.err.Error() }
func (e deviceError) Unwrap() error { return e.err }

// keepPipelineCache saves the driver's compiled pipelines in the tune
// cache, for the next run. One rule for every command: a pipeline cache
// only spares a later run compile time, so one that cannot be saved is a
// warning on warn and the command's own work stands; only where keeping
// it is the whole of the work (tune --compile-only: required) is that
// the command's error. A tune cache file the command cannot write (run
// only reads one) is left alone, without a word; so is a save that ctx,
// the command's, ended (an interrupt: the wait for the file's lock ends
// with it), unless the pipeline cache is required, where ctx's end is the
// error.
func keepPipelineCache(ctx context.Context, warn io.Writer, dev hal.Device, cache *store.Store, required bool) error {
	pc, ok := dev.(hal.PipelineCacher)
	if !ok || cache == nil || cache.Path() == "" || !required && checkCachePath(cache.Path(), true) != nil {
		return nil
	}
	data, err := pc.PipelineCacheData()
	if err == nil && len(data) > 0 {
		err = cache.SavePipelineCache(ctx, dev.Info().PipelineCacheUUID, data)
	}
	switch {
	case err == nil:
		return nil
	case required:
		return status.Annotatef(err, "the pipeline cache was not kept")
	case ctx.Err() != nil:
		return nil
	}
	_, err = fmt.Fprintf(warn, "vkbench: warning: pipeline cache not saved: %v\n", err)
	return err
}

// session is what a measuring command holds while it measures: the tune
// cache, its output (--output, written atomically when the command
// succeeds), and the devices with their telemetry (dev, the first).
type session struct {
	cache *store.Store
	out   *outFile
	dev   hal.Device
	// conditions is what the results say of dev's conditions: the
	// telemetry's source, or why there is none.
	conditions string
	// closers are what close undoes, the last opened first.
	closers []func() error
}

// openFiles opens the tune cache and the output: what a measuring command
// does before it opens a device, so that bad input is refused before any
// file is touched, an output over --manifest, over args (ab's
// manifests), over the tune cache or over a file a manifest names among
// it. A command that stores what it measures (stores) asks for the cache
// file's lock first (openFor).
func (f *benchFlags) openFiles(cmd *cobra.Command, stores bool, args ...input) (*session, error) {
	cache, err := f.cache.openFor(cmd, stores)
	if err != nil {
		return nil, err
	}
	in := slices.Concat(inputs("the --manifest file", f.manifest), args, []input{cacheInput(cache)}, f.named)
	out, err := openOutput(cmd, f.output, in...)
	if err != nil {
		return nil, err
	}
	return &session{cache: cache, out: out}, nil
}

// open opens the files (openFiles), then the device --device chooses,
// with its telemetry in opts. What it opened before an error, it closes.
func (f *benchFlags) open(cmd *cobra.Command, stores bool, opts *autotune.Options, args ...input) (*session, error) {
	s, err := f.openFiles(cmd, stores, args...)
	if err != nil {
		return nil, err
	}
	dev, release, err := f.dev.open(cmd, s.cache)
	if err != nil {
		return nil, s.close(cmd, err)
	}
	if s.conditions, err = s.add(cmd, dev, release, opts); err != nil {
		return nil, s.close(cmd, err)
	}
	s.dev = dev
	return s, nil
}

// add hands dev to s, which at close keeps its driver's pipeline cache
// (keepPipelineCache) and releases it with release, and reads its
// conditions through opts (withTelemetry), returning what the results say
// of them.
func (s *session) add(cmd *cobra.Command, dev hal.Device, release func() error, opts *autotune.Options) (string, error) {
	s.closers = append(s.closers, func() error {
		if dev.Err() != nil {
			// Lost: it has no pipelines to keep, the loss is the command's
			// error already, and Release warns of work still running.
			_ = release()
			return nil
		}
		return status.Join(keepPipelineCache(cmd.Context(), cmd.ErrOrStderr(), dev, s.cache, false), release())
	})
	conditions, closeTelemetry, err := withTelemetry(opts, dev.Info())
	if err == nil {
		s.closers = append(s.closers, func() error { closeTelemetry(); return nil })
	}
	return conditions, err
}

// close closes what s opened, the last first: each device's telemetry,
// then the device, its pipeline cache kept (add). Then it commits the
// output if err, joined with what they said, is nil, and discards it
// otherwise. It returns that joined error.
func (s *session) close(cmd *cobra.Command, err error) error {
	for _, c := range slices.Backward(s.closers) {
		err = status.Join(err, c())
	}
	return s.out.finish(err)
}
