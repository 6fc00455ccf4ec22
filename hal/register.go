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
	// flight (DefaultReleaseWait if zero; a negative bound is an
	// InvalidArgument error of Open, see ReleaseWaitOf). Work still
	// running then is left to the driver with the device and its objects,
	// which the process frees when it exits: destroying them under
	// running work would crash the driver.
	ReleaseWait time.Duration
}

// DefaultReleaseWait is the ReleaseWait of options that leave it zero.
const DefaultReleaseWait = 10 * time.Second

// ReleaseWaitOf returns the bound a ReleaseWait of d sets: d, or
// DefaultReleaseWait for zero. A negative d is an InvalidArgument error
// naming the field. Every backend's Open asks it, so that the rule has one
// place, whoever passes the bound down (OpenOptions, the vkbench package's
// Options).
func ReleaseWaitOf(d time.Duration) (time.Duration, error) {
	if d < 0 {
		return 0, status.Newf(status.InvalidArgument, "hal: ReleaseWait is %v; want zero (%v) or a positive bound", d, DefaultReleaseWait)
	}
	return cmp.Or(d, DefaultReleaseWait), nil
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
	// ReleaseWait is the device's DeviceOptions.ReleaseWait.
	ReleaseWait time.Duration
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
	dopts := DeviceOptions{ReleaseWait: opts.ReleaseWait}
	if opts.PipelineCache != nil {
		dopts.PipelineCache = opts.PipelineCache(infos[i])
	}
	return drv.Open(ctx, i, dopts)
}
