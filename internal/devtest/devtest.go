// Package devtest opens real Vulkan devices for tests, with the Khronos
// validation layer on and every validation message turned into a test
// failure.
//
// A machine without Vulkan, a device or the validation layer ends the test
// through testenv.Unavailable: a failure where CI or
// VKBENCH_REQUIRE_VALIDATION is set (the test command sets the latter), a
// skip with the reason elsewhere.
package devtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/vk"
)

// Driver opens the "vulkan" driver with validation on. Every validation
// message fails tb; the driver is released at cleanup.
func Driver(tb testing.TB) hal.Driver {
	tb.Helper()
	// Messages can come from any goroutine, also while the driver is
	// released after tb has ended; those are not reported to tb (which
	// would panic).
	done := new(atomic.Bool)
	opening := testenv.NewOpening(func(s string) { tb.Errorf("%s", s) })
	drv, err := hal.OpenDriver(vk.DriverName, hal.DriverOptions{
		Validation: true,
		OnMessage: func(m hal.Message) {
			if !done.Load() {
				opening.Complain(fmt.Sprintf("validation %s [%s]: %s", m.Severity, m.ID, m.Text))
			}
		},
	})
	opening.Opened(err == nil)
	if err != nil {
		testenv.Unavailable(tb, "no Vulkan with validation: %v", err)
	}
	tb.Cleanup(func() {
		if err := drv.Release(); err != nil {
			tb.Errorf("releasing the driver: %v", err)
		}
		done.Store(true)
	})
	return drv
}

// Device opens the default device of a validated driver, released at
// cleanup.
func Device(tb testing.TB) hal.Device {
	tb.Helper()
	return OpenIndex(tb, Driver(tb), -1)
}

// NeedVulkan ends tb through testenv.Unavailable where Vulkan lists no
// device here: for tests that open a device their own way (through the
// root package, a child process, an Open whose error they check), before
// they do.
func NeedVulkan(tb testing.TB) {
	tb.Helper()
	if err := vulkanMissing(); err != nil {
		testenv.Unavailable(tb, "no Vulkan device: %v", err)
	}
}

// SkipExamplesWithoutVulkan, called by TestMain before m.Run, leaves the
// package's examples out where tests may skip (see testenv) and Vulkan
// lists no device here.
func SkipExamplesWithoutVulkan() { testenv.SkipExamplesWithout(vulkanMissing) }

// vulkanMissing says why Vulkan lists no device here, or is nil; it asks
// the driver once a process.
var vulkanMissing = sync.OnceValue(func() error {
	drv, err := hal.OpenDriver(vk.DriverName, hal.DriverOptions{})
	if err != nil {
		return err
	}
	infos, err := drv.Enumerate()
	if err == nil && len(infos) == 0 {
		err = errors.New("the Vulkan driver lists no devices")
	}
	return errors.Join(err, drv.Release())
})

// Devices lists the devices of drv. A driver that lists none ends tb
// through testenv.Unavailable; one that fails to list them fails tb.
func Devices(tb testing.TB, drv hal.Driver) []hal.DeviceInfo {
	tb.Helper()
	infos, err := drv.Enumerate()
	if err != nil {
		tb.Fatalf("Enumerate: %v", err)
	}
	if len(infos) == 0 {
		testenv.Unavailable(tb, "Vulkan lists no devices")
	}
	return infos
}

// OpenIndex opens device index of drv (-1: the default), released at
// cleanup (before the driver).
func OpenIndex(tb testing.TB, drv hal.Driver, index int) hal.Device {
	tb.Helper()
	infos := Devices(tb, drv)
	if index < 0 {
		index = hal.DefaultDevice(infos)
	}
	dev, err := drv.Open(context.Background(), index, hal.DeviceOptions{})
	if err != nil {
		tb.Fatalf("opening device %d: %v", index, err)
	}
	tb.Cleanup(func() {
		if err := dev.Release(); err != nil {
			tb.Errorf("releasing device %d: %v", index, err)
		}
	})
	return dev
}
