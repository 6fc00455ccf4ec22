package telemetry_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// TestRegister: a program that imported no source is told, by
// ErrNotAvailable, which import it forgot; sources are listed sorted; a
// nil opener or a second source of one name panics, as database/sql's
// Register does.
func TestRegister(t *testing.T) {
	if names := telemetry.Sources(); len(names) != 0 {
		t.Skipf("sources %v registered already (a test run twice in one process)", names)
	}
	_, err := telemetry.Open(hal.DeviceInfo{Name: "NVIDIA H200", VendorID: hal.VendorNVIDIA})
	if !errors.Is(err, telemetry.ErrNotAvailable) || status.CodeOf(err) != status.Unavailable ||
		!strings.Contains(err.Error(), `"github.com/vkbench/vkbench/telemetry/nvml"`) {
		t.Errorf("Open with no source registered: %v; want ErrNotAvailable naming the import", err)
	}

	none := func(info hal.DeviceInfo) (telemetry.Source, error) {
		return nil, status.Wrapf(telemetry.ErrNotAvailable, status.OK, "telemetry: test-b reads nothing")
	}
	telemetry.Register("test-b", none)
	telemetry.Register("test-a", none)
	if got := telemetry.Sources(); strings.Join(got, ",") != "test-a,test-b" {
		t.Errorf("Sources = %v, want [test-a test-b]", got)
	}
	if _, err := telemetry.Open(hal.DeviceInfo{Name: "llvmpipe"}); !errors.Is(err, telemetry.ErrNotAvailable) {
		t.Errorf("Open where no source reads the device: %v, want ErrNotAvailable", err)
	}
	for _, tt := range []struct {
		name string
		open telemetry.Opener
	}{{"test-a", none}, {"test-c", nil}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q, %p) did not panic", tt.name, tt.open)
				}
			}()
			telemetry.Register(tt.name, tt.open)
		}()
	}
}
