// Package haltest is the conformance suite of the HAL: the properties every
// backend of package hal must have, checked against a real device.
//
// # Basics
//
// A backend's test hands TestDevice a function that opens a fresh device,
// as golang.org/x/net/nettest's TestConn takes a function that makes a
// pipe:
//
//	func TestConformance(t *testing.T) {
//		drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{Validation: true})
//		if err != nil {
//			t.Skip(err)
//		}
//		t.Cleanup(func() {
//			if err := drv.Release(); err != nil {
//				t.Error(err)
//			}
//		})
//		haltest.TestDevice(t, func(t testing.TB) hal.Device {
//			dev, err := drv.Open(context.Background(), 0, hal.DeviceOptions{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return dev
//		})
//	}
//
// TestDevice runs one subtest per property, each on a device of its own,
// and releases the devices itself. Some properties open a second device
// through the same function (to pass one device's objects to the other),
// so every call must open a new logical device of the same physical
// device. Subtests that need what the device lacks (timestamps,
// hal.LossMarker, image formats) skip, saying why.
//
// TestDeviceOptions takes Options: a count of the backend's validation
// messages, so that a subtest during which it grows fails.
//
// # Properties
//
//   - Info: the device describes itself sanely and stably, and its
//     Hardware string is path-safe.
//   - BufferReadWrite: bytes written at any offset and of any length come
//     back unchanged, in both memory kinds; out-of-range reads and writes
//     are InvalidArgument and change nothing.
//   - Dispatch, Specialization, PushConstants, CopyFillBarrier: recorded
//     work computes what a CPU computes.
//   - DescriptorSets: a kernel of bindings in sets 0 and 2 (1 empty)
//     computes what a CPU computes; more sets than
//     Limits.MaxBoundDescriptorSets are hal.ErrUnsupported, saying how
//     many it needs and has.
//   - Timestamps: durations are positive and scale with the work; a timer
//     that did not tick is an error.
//   - ImageReadWrite, ImageDispatch: images start zero and keep the bytes
//     written, in every format the device has; a kernel samples an image
//     (nearest and linear, clamped and repeated) and writes a storage
//     image as the CPU computes, the images filled and read by Write and
//     Read and by recorded copies.
//   - SyncErrors: each bad argument or failed precondition is returned by
//     the call that made it, with the right code, and leaves every object
//     usable: the same command buffer then records correct work. A format
//     the device lacks a feature of is refused by CreateImage with
//     hal.ErrUnsupported, naming the format and the feature.
//   - WaitContext: a cancelled or expired context ends Wait promptly with
//     Cancelled or DeadlineExceeded, and the submission stays in flight.
//   - ManySubmissions, SubmissionChain: hundreds of submissions in flight,
//     and submissions ordered by the fences they wait on.
//   - DeviceLoss: after hal.LossMarker.MarkLost, every pending fence fails
//     with hal.ErrDeviceLost at once, every later call fails the same way,
//     and releasing still works.
//   - Release: releasing everything, in any order and twice, leaves no
//     goroutine behind, and every later call fails with hal.ErrReleased.
//   - Ownership: every object a submission uses can be released right
//     after Submit, or by another goroutine while the fence is waited on,
//     without waiting for the GPU, and the result is still right; a Wait
//     interrupted by its context (50 cancels, 50 deadlines) returns exactly
//     the context's error and a later Wait succeeds; Device.Release racing
//     8 goroutines that upload, write, read, run and build (50 rounds on
//     fresh devices) lets each call succeed or fail with hal.ErrReleased,
//     and Err reports the release; images and samplers released after
//     End or right after Submit still give the right result.
//   - Concurrency: goroutines that share a device each submit and wait.
//
// Every subtest also checks, when it ends, that the goroutines running
// when it began are all that is left once its devices are released.
//
// # Caveats
//
// Some properties need GPU work that lasts (0.3 to 1 s: a submission
// still in flight when Wait gives up, or when the device is lost). The
// suite sizes that work from how long the device takes to run a spin
// kernel, timed on the host, fastest of three, once per TestDevice; a
// property whose work finished too soon to test what it meant to fails
// saying so. The Timestamps property compares two amounts of work over
// several rounds and checks the median ratio, so that a host busy with
// other work, which slows a CPU device, does not decide it.
//
// Run the suite under the race detector: the Concurrency property is
// written for it.
//
// The kernels are GLSL in testdata, compiled to the SPIR-V files next to
// them by go generate (which needs glslc).
package haltest
