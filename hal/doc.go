// Package hal is the backend-neutral, Vulkan-shaped contract that vkbench
// computes through: drivers, devices, buffers, executables, command
// buffers, submissions and their fences, GPU timestamps, and the identity
// of the hardware.
//
// # Basics
//
// Backends register themselves by name, as database/sql drivers do; the
// Vulkan backend in package vk registers "vulkan" when it is imported:
//
//	import _ "github.com/vkbench/vkbench/vk"
//
//	drv, err := hal.OpenDriver(vk.DriverName, hal.DriverOptions{})
//	infos, err := drv.Enumerate()
//	dev, err := drv.Open(ctx, hal.DefaultDevice(infos), hal.DeviceOptions{})
//
// A device creates buffers, 2D images and samplers, executables (a
// SPIR-V entry point with its bindings, push constants and specialization
// constants) and command buffers. A binding is a storage buffer, a
// storage image or a sampled image with its sampler
// (ExecutableDesc.BindingKinds); DeviceInfo.ImageFormats says what the
// device can do with each image format, and CreateImage refuses what it
// cannot with ErrUnsupported. A recorded command buffer is submitted and returns a Fence;
// Fence.Wait blocks until the GPU is done and returns the submission's
// error.
//
// # Errors
//
// Errors follow IREE's model and are statuses of package status:
//
//   - Invalid arguments and failed preconditions are returned by the call
//     that made them, and that call changes nothing.
//   - Allocating real memory can fail at once with ResourceExhausted.
//   - Errors of execution belong to a submission and surface on its fence,
//     and nowhere finer. A submission that waits on a failed one fails too,
//     and names the first failure as its cause.
//   - Device loss is sticky. From the moment it is detected every pending
//     fence of the device fails with an error matching
//     errors.Is(err, ErrDeviceLost) (code DataLoss), every later call on the
//     device or on its objects fails the same way at once, waiting never
//     hangs, and Release still works. Only opening the device again
//     recovers; other devices are not affected.
//   - Fence.Wait honours its context: cancelled or past its deadline, it
//     returns the context's error (Cancelled or DeadlineExceeded, matching
//     errors.Is with ctx.Err()), frees nothing, and the submission stays
//     in flight, to be waited on again.
//
// # Ownership
//
// Whoever creates an object does not have to know who still uses it, as in
// IREE, whose submissions keep a set of the resources they use:
//
//   - A recording holds every object it records (executables, buffers,
//     images, samplers, timestamp pools) until the command buffer is begun again or
//     released; a submission holds its command buffer, and so everything
//     recorded in it, until its fence completes or the device is lost.
//   - Release of any object is safe at any time, from any goroutine, and
//     never waits for the GPU. It ends the caller's handle (later calls
//     through it fail with ErrReleased) and the object is destroyed once
//     nothing holds it: releasing every object right after Submit, then
//     waiting, computes the same result. Releasing twice is harmless.
//   - A recorded command buffer may be submitted after the objects it uses
//     were released: the recording holds them.
//   - Device.Release is safe while other calls run: those already running
//     finish or fail with ErrReleased, later ones fail with ErrReleased,
//     and Err reports ErrReleased. It waits a bounded time for the work in
//     flight (DeviceOptions.ReleaseWait), then destroys everything; work
//     still running then is left to the driver with the device, which is
//     lost to the fences still waiting, and Release returns an error with
//     code DeadlineExceeded that says so.
//   - A submission that runs past DeviceOptions.HangTimeout, as a kernel
//     that never ends would, makes the device lost, the cause of code
//     DeadlineExceeded, and Release does not wait for it again. A
//     driver's build of a kernel at its first dispatch does not count.
//
// # Timestamps
//
// A command buffer writes GPU timestamps into a TimestampPool. Durations
// are computed with the device's timestamp period as a float, masked to
// its valid bits; a timer that did not tick is an error, never a zero or
// an infinite duration.
//
// # Caveats
//
// Objects of one device must not be used with another device: that is an
// InvalidArgument at the call. A command buffer in flight cannot be
// recorded or submitted again until its fence has signalled (ErrInFlight);
// it can be released.
package hal
