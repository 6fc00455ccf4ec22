package hal

import "github.com/vkbench/vkbench/status"

// Errors shared by every backend. Backends return errors that wrap these
// (so errors.Is works) and that carry a status code.
var (
	// ErrDeviceLost is matched (errors.Is) by every error caused by the loss
	// of a device: the fences pending when it was lost and every later call
	// on the device or its objects. Its code is DataLoss.
	ErrDeviceLost = status.New(status.DataLoss, "hal: device lost")

	// ErrReleased is matched by errors from calls on an object that was
	// already released. Its code is FailedPrecondition.
	ErrReleased = status.New(status.FailedPrecondition, "hal: object released")

	// ErrInFlight is matched by errors from recording or submitting a
	// command buffer whose submission has not completed. Its code is
	// FailedPrecondition.
	ErrInFlight = status.New(status.FailedPrecondition, "hal: command buffer in flight")

	// ErrForeignObject is matched by errors from passing an object of one
	// device to another. Its code is InvalidArgument.
	ErrForeignObject = status.New(status.InvalidArgument, "hal: object belongs to another device")

	// ErrNoTick is matched by errors from TimestampPool.Elapsed when the
	// GPU timer did not tick between the two timestamps (the end does not
	// read after the start): the work was too short for the timer, and
	// timing more of it at once may help. Its code is Internal.
	ErrNoTick = status.New(status.Internal, "hal: the GPU timer did not tick")

	// ErrUnsupported is matched by errors from asking for a feature the
	// device does not have. Its code is Unimplemented.
	ErrUnsupported = status.New(status.Unimplemented, "hal: not supported by this device")
)
