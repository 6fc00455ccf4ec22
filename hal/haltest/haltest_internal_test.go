package haltest

import (
	"testing"

	"github.com/vkbench/vkbench/hal"
)

// TestConformanceFake runs the suite on a device written in Go, to check
// the suite itself: what a correct backend does, it must accept.
func TestConformanceFake(t *testing.T) {
	TestDevice(t, func(t testing.TB) hal.Device { return newFakeDevice() })
}
