package vk_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/haltest"
	"github.com/vkbench/vkbench/internal/testenv"
	_ "github.com/vkbench/vkbench/vk"
)

// TestConformance runs the HAL's conformance suite on every device the
// vulkan driver enumerates, with the Khronos validation layer on: every
// validation or driver message fails the subtest during which it came.
//
// Without a Vulkan device or the validation layer the test skips, unless
// the environment sets CI or VKBENCH_REQUIRE_VALIDATION, where it fails.
func TestConformance(t *testing.T) {
	msgs := &confMessages{}
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{
		Validation: true,
		OnMessage:  msgs.report,
		Logger:     slog.New(slog.NewTextHandler(msgs, nil)),
	})
	if err != nil {
		testenv.Unavailable(t, "cannot open the vulkan driver with validation on: %v", err)
	}
	msgs.attach(t)
	t.Cleanup(func() {
		if err := drv.Release(); err != nil {
			t.Errorf("Driver.Release: %v", err)
		}
	})
	for _, info := range listDevices(t, drv) {
		t.Run(confSubtestName(info), func(t *testing.T) {
			t.Logf("device %d: %s (%v), driver %s %s, Vulkan %v", info.Index, info.Name, info.Type,
				info.DriverName, info.DriverVersionString(), info.APIVersion)
			haltest.TestDevice(t, func(tb testing.TB) hal.Device {
				msgs.attach(tb)
				dev, err := drv.Open(context.Background(), info.Index, hal.DeviceOptions{})
				if err != nil {
					tb.Fatalf("Open(%d): %v", info.Index, err)
				}
				return dev
			})
		})
	}
	t.Logf("validation and driver messages: %d", msgs.count())
}

// confSubtestName names a device's subtest by its index and name, in
// characters that -run patterns take as they are.
func confSubtestName(info hal.DeviceInfo) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(info.Name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	return fmt.Sprintf("%d-%s", info.Index, b.String())
}

// confMessages routes validation messages, which come from any goroutine,
// to the test that is running: each one fails it. It routes the driver's
// logs there too, as an io.Writer.
type confMessages struct {
	mu      sync.Mutex
	current testing.TB
	n       int
}

// attach makes t the test that messages fail until t ends, when the test
// that was current before is current again.
func (m *confMessages) attach(t testing.TB) {
	m.mu.Lock()
	prev := m.current
	m.current = t
	m.mu.Unlock()
	t.Cleanup(func() {
		m.mu.Lock()
		if m.current == t {
			m.current = prev
		}
		m.mu.Unlock()
	})
}

func (m *confMessages) report(msg hal.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n++
	if m.current != nil {
		m.current.Errorf("vulkan %s message %s: %s", msg.Severity, msg.ID, msg.Text)
	} else {
		fmt.Fprintf(os.Stderr, "vulkan %s message outside any test: %s: %s\n", msg.Severity, msg.ID, msg.Text)
	}
}

// Write logs p, a line of the driver's log, in the test that is running.
func (m *confMessages) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current != nil {
		m.current.Log(strings.TrimSuffix(string(p), "\n"))
		return len(p), nil
	}
	return os.Stderr.Write(p)
}

func (m *confMessages) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}
