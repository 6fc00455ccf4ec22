package faulty_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/hal/haltest"
	"github.com/vkbench/vkbench/internal/testenv"
)

// TestConformance runs the HAL's conformance suite on wrapped devices with
// empty plans: a wrapper that injects nothing is not there.
func TestConformance(t *testing.T) {
	var messages atomic.Int64
	done := new(atomic.Bool)
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{
		Validation: true,
		OnMessage: func(m hal.Message) {
			messages.Add(1)
			if !done.Load() {
				t.Logf("driver message: %s %s: %s", m.Severity, m.ID, m.Text)
			}
		},
		Logger: slog.New(slog.NewTextHandler(testLog{t, done}, nil)),
	})
	if err != nil {
		testenv.Unavailable(t, "no Vulkan driver with validation: %v", err)
	}
	t.Cleanup(func() {
		if err := drv.Release(); err != nil {
			t.Errorf("driver Release: %v", err)
		}
		done.Store(true)
	})
	index := deviceIndex(t, drv)
	haltest.TestDeviceOptions(t, func(t testing.TB) hal.Device {
		dev, err := drv.Open(context.Background(), index, hal.DeviceOptions{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return faulty.Wrap(dev, faulty.NewPlan())
	}, haltest.Options{Messages: func() int { return int(messages.Load()) }})
}
