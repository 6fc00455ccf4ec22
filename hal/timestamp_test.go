package hal_test

import (
	"errors"
	"testing"
	"time"

	"github.com/vkbench/vkbench/hal"
)

// TestTickDuration pins the conversion's arithmetic: the period as a
// float, the mask of the valid bits, a counter that wrapped once, and a
// timer that did not tick.
func TestTickDuration(t *testing.T) {
	for _, c := range []struct {
		start, end uint64
		period     float64
		bits       uint32
		want       time.Duration
		noTick     bool
	}{
		{100, 1100, 1, 64, 1000 * time.Nanosecond, false},
		{100, 1100, 83.333, 64, 83333 * time.Nanosecond, false},
		{100, 101, 0.25, 64, time.Nanosecond, false}, // shorter than a nanosecond is not zero
		{1<<36 - 10, 10, 10, 36, 200 * time.Nanosecond, false},
		{1<<40 + 5, 1<<40 + 25, 2, 36, 40 * time.Nanosecond, false}, // bits above the mask are ignored
		{500, 500, 1, 64, 0, true},
		{500, 400, 1, 64, 0, true}, // a 64-bit counter does not wrap
	} {
		got, err := hal.TickDuration(c.start, c.end, c.period, c.bits)
		if c.noTick {
			if err == nil || !errors.Is(err, hal.ErrNoTick) {
				t.Errorf("TickDuration(%d, %d, %v, %d) = %v, %v; want an error matching hal.ErrNoTick", c.start, c.end, c.period, c.bits, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("TickDuration(%d, %d, %v, %d) = %v, %v; want %v", c.start, c.end, c.period, c.bits, got, err, c.want)
		}
	}
}
