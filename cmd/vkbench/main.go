// Command vkbench runs SPIR-V compute kernels on Vulkan devices, measures
// them with GPU timestamps, and remembers which candidate kernel is fastest
// on each kind of hardware.
//
// Usage:
//
//	vkbench devices [--json]
//
// Exit status: 0 success, 1 a regression or a failed verification, 2 bad
// usage or input, 3 a device or driver failure.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
	_ "github.com/vkbench/vkbench/vk"
)

// Exit codes, documented in the README.
const (
	exitOK         = 0
	exitRegression = 1
	exitUsage      = 2
	exitDevice     = 3
)

// usageError marks an error as the user's input, for exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := newRoot().ExecuteContext(ctx)
	stop()
	os.Exit(exitCode(err))
}

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(os.Stderr, "vkbench: %v\n", err)
	var u usageError
	var reg errRegression
	var ver errVerification
	switch {
	case errors.As(err, &reg), errors.As(err, &ver):
		return exitRegression
	case errors.As(err, &u):
		return exitUsage
	case errors.Is(err, hal.ErrDeviceLost):
		return exitDevice
	}
	switch status.CodeOf(err) {
	case status.InvalidArgument, status.NotFound, status.OutOfRange, status.AlreadyExists, status.PermissionDenied:
		return exitUsage
	case status.Unavailable, status.DataLoss, status.Internal, status.Unimplemented, status.Incompatible, status.ResourceExhausted:
		return exitDevice
	}
	return exitDevice
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "vkbench",
		Short:         "Benchmark and autotune SPIR-V compute kernels on Vulkan devices",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newDevicesCmd(), newRunCmd(), newTuneCmd(), newPeakCmd(), newCacheCmd(), newCompareCmd())
	return root
}
