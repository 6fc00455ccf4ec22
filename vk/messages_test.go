package vk_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
)

// TestValidationMessages checks that messages of the validation layer
// reach DriverOptions.OnMessage, or the logger without one, so that the
// other tests' "no message" means something. It provokes one: a kernel
// with more shared memory than any device has (testdata/bigshared.comp),
// which vk does not check and the layer does.
func TestValidationMessages(t *testing.T) {
	provoke := func(t *testing.T, opts hal.DriverOptions) {
		t.Helper()
		opts.Validation = true
		drv, err := hal.OpenDriver("vulkan", opts)
		if err != nil {
			testenv.Unavailable(t, "no Vulkan with the validation layer: %v", err)
		}
		defer release(t, drv)
		dev, err := drv.Open(context.Background(), defaultDevice(t, drv), hal.DeviceOptions{})
		must(t, err, "Open")
		defer release(t, dev)
		// The layer objects when the pipeline is made; the call itself
		// may succeed or fail.
		exe, err := dev.CreateExecutable(hal.ExecutableDesc{SPIRV: readSPIRV(t, "bigshared.spv"), Bindings: 1})
		if err == nil {
			release(t, exe)
		}
	}

	t.Run("OnMessage", func(t *testing.T) {
		var mu sync.Mutex
		var msgs []hal.Message
		provoke(t, hal.DriverOptions{OnMessage: func(m hal.Message) {
			mu.Lock()
			msgs = append(msgs, m)
			mu.Unlock()
		}})
		mu.Lock()
		defer mu.Unlock()
		if len(msgs) == 0 {
			t.Fatal("no validation message reached OnMessage")
		}
		for _, m := range msgs {
			t.Logf("%s [%s]: %.120s…", m.Severity, m.ID, m.Text)
			if m.Severity != "error" && m.Severity != "warning" || m.ID == "" || m.Text == "" {
				t.Errorf("malformed message %+v", m)
			}
		}
	})
	t.Run("Logger", func(t *testing.T) {
		var buf testenv.SyncBuffer
		provoke(t, hal.DriverOptions{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
		if !strings.Contains(buf.String(), "level=ERROR") || !strings.Contains(buf.String(), "VUID") {
			t.Errorf("the logger got no validation error:\n%s", buf.String())
		}
	})
}
