package vkbench

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/vk"
)

// Errors that callers match with errors.Is, under names that need no other
// import (see the package doc's Errors).
var (
	// ErrDeviceLost is matched by every error that the loss of the device
	// caused: the call that found it, and every later call on the device
	// and on what it made, which fails at once. Its code is DataLoss. There
	// is no recovery but to Close the device and Open one again.
	ErrDeviceLost = hal.ErrDeviceLost

	// ErrReleased is matched by errors from using a buffer or pipeline
	// after its Release, or anything after Device.Close. Its code is
	// FailedPrecondition.
	ErrReleased = hal.ErrReleased

	// ErrInvalidArgument is matched by errors of a call given what it
	// cannot take (a malformed Op, a size that does not fit its Dims, a
	// slice of another length than its buffer): nothing changed.
	ErrInvalidArgument error = status.InvalidArgument

	// ErrFailedPrecondition is matched by errors of a call that the state
	// of things refuses: no candidate of an Op computed correctly, or
	// ErrReleased.
	ErrFailedPrecondition error = status.FailedPrecondition

	// ErrResourceExhausted is matched by errors of memory that does not
	// fit on the device.
	ErrResourceExhausted error = status.ResourceExhausted

	// ErrUnimplemented is matched by errors of a kernel that needs what the
	// device lacks (a feature, an extension, more shared memory).
	ErrUnimplemented error = status.Unimplemented

	// ErrNotFound is matched by errors of a device that Options.Device
	// names and that is not there, and of a Search whose Space has no
	// configuration that Valid accepts at the size.
	ErrNotFound error = status.NotFound
)

// Options choose and configure the device that Open opens. The zero value
// opens the default device without validation.
type Options struct {
	// Device chooses the device: "" for the default one (the first
	// discrete GPU, else integrated, virtual, then CPU, such as lavapipe),
	// an index in the list Devices returns ("1"), or part of a device's
	// name, case-insensitive ("llvmpipe").
	Device string
	// Validation turns on the Khronos validation layer, which checks every
	// Vulkan call (slowly) and reports misuse through OnMessage. Open fails
	// if the layer is not installed.
	Validation bool
	// OnMessage receives validation and driver messages of warning
	// severity or above, from any goroutine. If nil they are logged
	// through Logger.
	OnMessage func(Message)
	// Logger receives the driver's logs; slog.Default() if nil.
	Logger *slog.Logger
	// PipelineCache keeps the driver's compiled pipelines between runs in
	// the tune cache file: Open loads them, and Close saves them back,
	// waiting a second at most for another process that holds the file.
	// They only spare the next run compile time: a cache not saved (the
	// file held longer, or not writable) is a warning through Logger, not
	// Close's error.
	PipelineCache bool
	// ReleaseWait bounds how long Close waits for work still running on
	// the GPU (a Run whose context ended, say); 10 s if zero, and a
	// negative bound is an InvalidArgument error of Open.
	ReleaseWait time.Duration
	// HangTimeout is how long one GPU submission may run (a Run, a
	// transfer, one round of a tune) before it is taken for a kernel that
	// never ends: 1 minute if zero. The GPU cannot stop it, so the device
	// then turns lost (ErrDeviceLost, the cause of code DeadlineExceeded)
	// and the call waiting on it returns, where it would wait for ever.
	// A driver's build of a kernel at its first dispatch (lavapipe's)
	// does not count. A negative bound is an InvalidArgument error of
	// Open.
	HangTimeout time.Duration
	// Driver names the backend that opens the device, as registered with
	// package hal: "vulkan" if empty, or a program's own, such as a fault
	// injector wrapping Vulkan's (package hal/faulty's WrapDriver).
	Driver string
}

// Device is an opened GPU (or CPU) device with one compute queue. Buffers,
// pipelines and tuners are made from it. Its methods are safe for
// concurrent use.
type Device struct {
	hal hal.Device
	// pipelines is where Close saves the driver's pipeline cache; nil
	// unless Options.PipelineCache.
	pipelines *store.Store

	mu      sync.Mutex
	release func() error        // nil once closed
	spare   []hal.CommandBuffer // not in flight, ready to record
	// tuners are its Tuners' autotune tuners, whose background tunes
	// Close ends and whose stores it closes (a shared store's connections).
	tuners []*autotune.Tuner
}

// Devices lists the Vulkan devices in the order Options.Device indexes them.
// An empty list is not an error.
func Devices() ([]DeviceInfo, error) {
	drv, err := hal.OpenDriver(vk.DriverName, hal.DriverOptions{})
	if err != nil {
		return nil, err
	}
	infos, err := drv.Enumerate()
	out := make([]DeviceInfo, len(infos))
	for i, info := range infos {
		out[i] = deviceInfo(info)
	}
	return out, status.Join(err, drv.Release())
}

// Open opens the device that opts choose (the default device for the zero
// Options). Its errors say what is missing, and have a code: NotFound when
// there is no such device (or none at all), Unavailable when there is no
// Vulkan loader, FailedPrecondition when the validation layer asked for is
// not installed, Unimplemented for a device older than Vulkan 1.2 (or a
// build without cgo). Close the Device when done.
func Open(ctx context.Context, opts Options) (*Device, error) {
	hopts := hal.OpenOptions{
		Driver:      hal.DriverOptions{Validation: opts.Validation, Logger: opts.Logger},
		Device:      opts.Device,
		ReleaseWait: opts.ReleaseWait,
		HangTimeout: opts.HangTimeout,
	}
	if on := opts.OnMessage; on != nil {
		hopts.Driver.OnMessage = func(m hal.Message) { on(Message(m)) }
	}
	var pipelines *store.Store
	if opts.PipelineCache {
		var err error
		if pipelines, err = store.Open(store.Options{Logger: opts.Logger}); err != nil {
			return nil, err
		}
		hopts.PipelineCache = func(info hal.DeviceInfo) []byte {
			// Data the driver does not accept only costs compile time; the
			// cache warns of a file it cannot read.
			data, _ := pipelines.LoadPipelineCache(ctx, info.PipelineCacheUUID)
			return data
		}
	}
	dev, release, err := hal.Open(ctx, cmp.Or(opts.Driver, vk.DriverName), hopts)
	if err != nil {
		return nil, status.Annotate(err, "vkbench: opening the device")
	}
	return &Device{hal: dev, release: release, pipelines: pipelines}, nil
}

// errNoDevice is the error of every call on a nil or zero Device.
var errNoDevice = status.New(status.InvalidArgument, "vkbench: the Device is nil or was not opened (vkbench.Open makes one)")

// Info describes the device: its name, type, driver, limits and the
// Hardware string that names its table in the tuning cache. A nil or
// zero Device describes nothing.
func (d *Device) Info() DeviceInfo {
	if d == nil || d.hal == nil {
		return DeviceInfo{}
	}
	return deviceInfo(d.hal.Info())
}

// Err is nil while the device works, and an error matching ErrDeviceLost
// once it has been lost; an InvalidArgument error for a nil or zero
// Device, which every other call returns too.
func (d *Device) Err() error {
	if d == nil || d.hal == nil {
		return errNoDevice
	}
	return d.hal.Err()
}

// Close releases the device and everything made from it that is still
// alive (buffers, pipelines, tuners' pipelines) and closes its tuners'
// shared stores. It is safe while other calls run, from any goroutine:
// those already running finish or fail with an error matching
// ErrReleased, and so do later ones. The context of a tune that
// FastestOrDefault started in the background ends, its cause
// (context.Cause) matching ErrReleased; Close does not wait for the Op's
// Prepare or Check to return, and one that ignores its ctx keeps its
// goroutine until it does, measuring nothing. It waits at most
// Options.ReleaseWait for work still running, such as a Run whose
// context ended first; past it, the device's memory is left to the
// driver (the process frees it when it exits), and Close returns an
// error with code DeadlineExceeded that says so. With Options.PipelineCache it first saves the driver's
// pipeline cache (see there). A lost device closes too; closing twice is
// not an error.
func (d *Device) Close() error {
	if d == nil || d.hal == nil {
		return nil // nothing was opened
	}
	d.mu.Lock()
	release, tuners := d.release, d.tuners
	d.release, d.spare, d.tuners = nil, nil, nil // the spares go with the device
	d.mu.Unlock()
	var err error
	for _, t := range tuners {
		t.Stop(status.Wrap(ErrReleased, status.FailedPrecondition, "vkbench: the Device was closed"))
		err = status.Join(err, t.Store().Close())
	}
	if release == nil {
		return err // closed already
	}
	d.savePipelines()
	return status.Join(err, release())
}

// keep makes Close stop t and close its store; a device already closed
// closes the store now and returns ErrReleased.
func (d *Device) keep(t *autotune.Tuner) error {
	d.mu.Lock()
	if d.release != nil {
		d.tuners = append(d.tuners, t)
		d.mu.Unlock()
		return nil
	}
	d.mu.Unlock()
	err := d.Err()
	if err == nil { // a Close under way has not released the device yet
		err = status.Wrap(ErrReleased, status.FailedPrecondition, "vkbench: NewTuner of a closed Device")
	}
	return status.Join(err, t.Store().Close())
}

// pipelineSaveWait bounds Close's wait for another process's lock on the
// tune cache file to save the pipeline cache: Close has no context, and a
// program that closes its device on an interrupt should not wait out the
// store's lock timeout (5 s) for a cache that only spares compile time.
const pipelineSaveWait = time.Second

// savePipelines saves the driver's pipeline cache (Options.PipelineCache).
func (d *Device) savePipelines() {
	pc, ok := d.hal.(hal.PipelineCacher)
	if d.pipelines == nil || !ok || d.hal.Err() != nil {
		return
	}
	const notSaved = "vkbench: pipeline cache not saved (the next Open compiles again): "
	data, err := pc.PipelineCacheData()
	if err == nil && len(data) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), pipelineSaveWait)
		defer cancel()
		if err = d.pipelines.SavePipelineCache(ctx, d.hal.Info().PipelineCacheUUID, data); err != nil && ctx.Err() != nil {
			d.pipelines.Warn(notSaved+"another process held %s for %v", d.pipelines.Path(), pipelineSaveWait)
			return
		}
	}
	if err != nil {
		d.pipelines.Warn(notSaved+"%v", err)
	}
}

// commandBuffer returns a command buffer ready to Begin: a spare one, or a
// new one.
func (d *Device) commandBuffer() (hal.CommandBuffer, error) {
	d.mu.Lock()
	if n := len(d.spare); n > 0 {
		cb := d.spare[n-1]
		d.spare = d.spare[:n-1]
		d.mu.Unlock()
		return cb, nil
	}
	d.mu.Unlock()
	return d.hal.CreateCommandBuffer()
}

// runOnce is kernels.ExecuteWith, with the device's spare command buffers.
func (d *Device) runOnce(ctx context.Context, record func(hal.CommandBuffer) error) error {
	return kernels.ExecuteWith(ctx, d.hal, d.commandBuffer, d.recycle, record)
}

// recycle keeps a command buffer that is not in flight for the next call,
// unless the device was closed meanwhile.
func (d *Device) recycle(cb hal.CommandBuffer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.release == nil {
		_ = cb.Release() // released with the device already: a no-op
		return nil
	}
	d.spare = append(d.spare, cb)
	return nil
}
