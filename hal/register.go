package hal

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vkbench/vkbench/status"
)

// Message is a diagnostic from the driver or a validation layer.
type Message struct {
	// Severity is "error", "warning", "info" or "verbose".
	Severity string
	// ID names the check that fired, e.g. a validation VUID.
	ID   string
	Text string
}

// DriverOptions configure a driver when it is opened.
type DriverOptions struct {
	// Validation turns on the backend's validation (for Vulkan, the Khronos
	// validation layer). Opening fails if it is asked for and missing.
	Validation bool
	// OnMessage receives every validation and driver message at warning
	// severity or above. It may be called from any goroutine. If nil,
	// messages are logged through Logger.
	OnMessage func(Message)
	// Logger receives the driver's logs; slog.Default() if nil.
	Logger *slog.Logger
}

// DeviceOptions configure a device when it is opened.
type DeviceOptions struct {
	// PipelineCache is pipeline-cache data from an earlier
	// PipelineCacher.PipelineCacheData of the same hardware; a cache the
	// driver does not accept is ignored.
	PipelineCache []byte
	// ReleaseWait bounds how long Device.Release waits for the work in
	// flight (DefaultReleaseWait if zero). Work still running then is
	// left to the driver with the device and its objects, which the
	// process frees when it exits: destroying them under running work
	// would crash the driver.
	ReleaseWait time.Duration
	// HangTimeout is how long one submission may run without finishing
	// before the device takes it for a hang, such as a kernel that never
	// ends, and turns lost, its cause of code DeadlineExceeded: no GPU
	// can stop a running dispatch, so nothing queued behind it would ever
	// run. DefaultHangTimeout if zero. A backend checks it while a Wait
	// is pending; a run is counted from when the submission was made or
	// the one before it was seen done, whichever is later. A driver that
	// builds a kernel at its first dispatch, as lavapipe does, builds it
	// inside the submission; that time does not count, however long: the
	// bound is for kernels that never end, and the run counts from the
	// build's end, so such a kernel is still caught one bound after it.
	// Release does not wait for work taken for a hang: it leaves the
	// device's objects to the driver at once (see ReleaseWait).
	HangTimeout time.Duration
}

// The bounds of options that leave them zero. A negative bound is an
// InvalidArgument error of Open (see DeviceOptions.Bounds).
const (
	DefaultReleaseWait = 10 * time.Second
	DefaultHangTimeout = time.Minute
)

// Bounds returns the ReleaseWait and HangTimeout that o sets, the
// defaults for zero. A negative one is an InvalidArgument error naming
// the fields. Every backend's Open asks it, so that the rule has one
// place, whoever passes the bounds down (OpenOptions, the vkbench
// package's Options).
func (o DeviceOptions) Bounds() (releaseWait, hangTimeout time.Duration, err error) {
	if o.ReleaseWait < 0 || o.HangTimeout < 0 {
		return 0, 0, status.Newf(status.InvalidArgument, "hal: ReleaseWait is %v and HangTimeout %v; want zero (the default) or a positive bound for each", o.ReleaseWait, o.HangTimeout)
	}
	return cmp.Or(o.ReleaseWait, DefaultReleaseWait), cmp.Or(o.HangTimeout, DefaultHangTimeout), nil
}

// Opener opens a registered backend.
type Opener func(opts DriverOptions) (Driver, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Opener{}
)

// Register makes a backend available by name. It panics if open is nil or
// the name is already registered; backends call it from init.
func Register(name string, open Opener) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if open == nil {
		panic("hal: Register opener is nil")
	}
	if _, dup := registry[name]; dup {
		panic("hal: Register called twice for driver " + name)
	}
	registry[name] = open
}

// Drivers returns the names of the registered backends, sorted.
func Drivers() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}

// OpenDriver opens the backend registered as name.
func OpenDriver(name string, opts DriverOptions) (Driver, error) {
	registryMu.RLock()
	open, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		registered := cmp.Or(strings.Join(Drivers(), ", "), "none")
		return nil, status.Newf(status.NotFound, "hal: unknown driver %q; registered: %s (forgotten import?)", name, registered)
	}
	return open(opts)
}

// OpenOptions choose a device for Open and configure it.
type OpenOptions struct {
	// Driver configures the driver Open opens.
	Driver DriverOptions
	// Device names the device as SelectDevice takes it: "" for the default
	// one (see DefaultDevice), an index, part of a name, a UUID prefix.
	Device string
	// PipelineCache, if set, returns the driver pipeline cache saved for
	// the chosen device (nil for none), so that its pipelines need no
	// compiling; DeviceInfo.PipelineCacheUUID says which data applies.
	PipelineCache func(DeviceInfo) []byte
	// ReleaseWait and HangTimeout are the device's DeviceOptions'.
	ReleaseWait, HangTimeout time.Duration
}

// Open opens the backend registered as name and the device opts choose:
// the one way vkbench opens a device, for the command and the library
// alike. Releasing the returned device does not release the driver: call
// release, which releases both. A spec that names no device is NotFound,
// no devices at all Unavailable.
func Open(ctx context.Context, name string, opts OpenOptions) (dev Device, release func() error, err error) {
	drv, err := OpenDriver(name, opts.Driver)
	if err != nil {
		return nil, nil, err
	}
	dev, err = OpenOn(ctx, drv, opts)
	if err != nil {
		return nil, nil, status.Join(err, drv.Release())
	}
	return dev, func() error { return status.Join(dev.Release(), drv.Release()) }, nil
}

// OpenOn opens the device opts choose (opts.Driver aside) of a driver
// already open, for callers that open several devices of one driver.
func OpenOn(ctx context.Context, drv Driver, opts OpenOptions) (Device, error) {
	infos, err := drv.Enumerate()
	if err != nil {
		return nil, err
	}
	i, err := SelectDevice(infos, opts.Device)
	if err != nil {
		return nil, err
	}
	dopts := DeviceOptions{ReleaseWait: opts.ReleaseWait, HangTimeout: opts.HangTimeout}
	if opts.PipelineCache != nil {
		dopts.PipelineCache = opts.PipelineCache(infos[i])
	}
	return drv.Open(ctx, i, dopts)
}
