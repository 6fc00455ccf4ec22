package telemetry

import (
	"maps"
	"slices"
	"sync"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// Opener opens a source's reader of the Vulkan device info describes, or
// returns an error matching ErrNotAvailable that says why it cannot (a
// device of another vendor, a library that is not installed).
type Opener func(info hal.DeviceInfo) (Source, error)

// nvmlImport is the package that registers NVIDIA's source, named in the
// error of a program that forgot it.
const nvmlImport = "github.com/vkbench/vkbench/telemetry/nvml"

var (
	sourcesMu sync.RWMutex
	sources   = make(map[string]Opener)
)

// Register makes a source available to Open under name, from the init
// function of the source's package. It panics if open is nil or a source
// of that name is registered already.
func Register(name string, open Opener) {
	sourcesMu.Lock()
	defer sourcesMu.Unlock()
	if open == nil {
		panic("telemetry: Register of a nil opener for source " + name)
	}
	if _, dup := sources[name]; dup {
		panic("telemetry: Register called twice for source " + name)
	}
	sources[name] = open
}

// Sources returns the names of the registered sources, sorted.
func Sources() []string {
	sourcesMu.RLock()
	defer sourcesMu.RUnlock()
	return slices.Sorted(maps.Keys(sources))
}

// Open returns the telemetry source of the Vulkan device info describes:
// the first registered source, in name order, that reads it. Where none
// does, or none is registered, the error matches ErrNotAvailable and says
// why.
func Open(info hal.DeviceInfo) (Source, error) {
	names := Sources()
	if len(names) == 0 {
		return nil, status.Wrapf(ErrNotAvailable, status.OK,
			"telemetry: no source is registered (forgotten import _ %q?)", nvmlImport)
	}
	var errs []error
	for _, name := range names {
		sourcesMu.RLock()
		open := sources[name]
		sourcesMu.RUnlock()
		src, err := open(info)
		if err == nil {
			return src, nil
		}
		errs = append(errs, err)
	}
	return nil, status.Join(errs...)
}
