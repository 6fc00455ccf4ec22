package vk

import (
	"errors"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// The errors below are made only when a call fails: a call that succeeds
// allocates none of them.

// released reports a call (op) on an object (what) already released.
func released(op, what string) error {
	return status.Wrapf(hal.ErrReleased, status.OK, "vk: %s: %s was released", op, what)
}

// inFlight reports recording, submitting or releasing a command buffer
// whose submission has not completed.
func inFlight(op string) error {
	return status.Wrapf(hal.ErrInFlight, status.OK, "vk: %s: command buffer is in flight", op)
}

// invalidArg reports an argument of op, a call that makes the object
// label, that is wrong whatever the device.
func invalidArg(op, label, format string, args ...any) error {
	return status.Newf(status.InvalidArgument, "vk: %s %q: "+format, append([]any{op, label}, args...)...)
}

// foreign reports an object (what) of another device, or of another
// backend, passed to op.
func foreign(op, what string) error {
	return status.Wrapf(hal.ErrForeignObject, status.OK, "vk: %s: %s belongs to another device", op, what)
}

// ctxError reports a wait that ended because its context did: Cancelled
// or DeadlineExceeded, wrapping the context's error.
func ctxError(op string, err error) error {
	return status.Wrap(err, status.OK, "vk: "+op)
}

// deviceLostError is the sticky error of a lost device when what caused
// the loss does not already say so (MarkLost with any error): it has the
// code DataLoss, matches hal.ErrDeviceLost and wraps the cause.
type deviceLostError struct{ cause error }

func (e *deviceLostError) Error() string {
	return "DATA_LOSS: vk: device lost: " + e.cause.Error()
}

// Unwrap returns hal.ErrDeviceLost first, so that status.CodeOf finds
// DataLoss, then the cause.
func (e *deviceLostError) Unwrap() []error { return []error{hal.ErrDeviceLost, e.cause} }

// lostError returns the error a device lost because of cause keeps.
func lostError(cause error) error {
	if cause == nil {
		return hal.ErrDeviceLost
	}
	if errors.Is(cause, hal.ErrDeviceLost) && status.CodeOf(cause) == status.DataLoss {
		return cause
	}
	return &deviceLostError{cause: cause}
}
