package faulty

import (
	"time"

	"github.com/vkbench/vkbench/hal"
)

var _ hal.TimestampPool = (*timestampPool)(nil)

// timestampPool wraps a hal.TimestampPool.
type timestampPool struct{ wrapped[hal.TimestampPool] }

func (p *timestampPool) Count() int { return p.inner.Count() }

func (p *timestampPool) Elapsed(start, end int) (time.Duration, error) {
	e, err := p.dev.enterCall(Elapsed)
	if err != nil {
		return 0, err
	}
	d, err := p.inner.Elapsed(start, end)
	if err == nil && e.slow > 0 {
		d = time.Duration(float64(d) * e.slow)
	}
	return d, err
}

func (p *timestampPool) Ticks(first, n int) ([]uint64, error) {
	if err := p.dev.enter(Ticks); err != nil {
		return nil, err
	}
	return p.inner.Ticks(first, n)
}
