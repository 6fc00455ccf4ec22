package hal

import (
	"math"
	"time"

	"github.com/vkbench/vkbench/status"
)

// TickDuration is the one conversion of two timestamp counter readings to
// a duration: the difference masked to validBits (a counter of fewer than
// 64 bits that reads lower at end than at start has wrapped around once),
// times period nanoseconds a tick as a float64, rounded. A counter that
// did not tick is an error matching ErrNoTick, never a zero or infinite
// time. Backends use it for TimestampPool.Elapsed; callers of Ticks use it
// on their own readings.
func TickDuration(start, end uint64, period float64, validBits uint32) (time.Duration, error) {
	mask := uint64(math.MaxUint64)
	if validBits > 0 && validBits < 64 {
		mask = 1<<validBits - 1
	}
	start, end = start&mask, end&mask
	if end == start || end < start && mask == math.MaxUint64 {
		return 0, status.Wrapf(ErrNoTick, status.OK, "hal: the timer reads %d at the start and %d at the end", start, end)
	}
	ticks := (end - start) & mask // a counter below 64 bits wraps at the mask
	ns := math.Round(float64(ticks) * period)
	// The timer ticked, so the time is not zero, however short.
	return time.Duration(max(ns, 1)), nil
}
