package faulty

import (
	"time"

	"github.com/vkbench/vkbench/hal"
)

type timestampPool struct{ wrapped[hal.TimestampPool] }

func (p *timestampPool) Count() int { return p.inner.Count() }

func (p *timestampPool) Elapsed(start, end int) (time.Duration, error) {
	f, err := p.dev.enter(Elapsed)
	if err != nil {
		return 0, err
	}
	var d time.Duration
	if m := p.dev.plan.ticks.Load(); m > 1 {
		d, err = p.scaledElapsed(start, end, m)
	} else {
		d, err = p.inner.Elapsed(start, end)
	}
	if err == nil && f.slow > 0 {
		d = time.Duration(float64(d) * f.slow)
	}
	return d, err
}

func (p *timestampPool) Ticks(first, n int) ([]uint64, error) {
	if _, err := p.dev.enter(Ticks); err != nil {
		return nil, err
	}
	ticks, err := p.inner.Ticks(first, n)
	if m := p.dev.plan.ticks.Load(); m > 1 && err == nil {
		for i := range ticks {
			ticks[i] *= m
		}
	}
	return ticks, err
}

// scaledElapsed is Elapsed under Plan.ScaleTimestamps: the scaled
// readings converted with the period the device reports.
func (p *timestampPool) scaledElapsed(start, end int, m uint64) (time.Duration, error) {
	if start < 0 || start >= p.inner.Count() || end < 0 || end >= p.inner.Count() {
		return p.inner.Elapsed(start, end) // the inner pool's own refusal
	}
	var at [2]uint64
	for i, slot := range []int{start, end} {
		t, err := p.inner.Ticks(slot, 1)
		if err != nil {
			return 0, err
		}
		at[i] = t[0] * m
	}
	l := p.dev.Info().Limits
	return hal.TickDuration(at[0], at[1], l.TimestampPeriod, l.TimestampValidBits)
}
