//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"math"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

var _ hal.TimestampPool = (*timestampPool)(nil)

// timestampPool is a VkQueryPool of timestamps, reset on the host when it
// is made so that a slot never written reads as unavailable.
type timestampPool struct {
	count  int
	handle C.VkQueryPool
	lifetime
}

func (d *device) CreateTimestampPool(count int) (hal.TimestampPool, error) {
	return create[hal.TimestampPool](d, "CreateTimestampPool", func() (resource, error) {
		if d.info.Limits.TimestampValidBits == 0 {
			return nil, status.Wrapf(hal.ErrUnsupported, status.OK, "vk: CreateTimestampPool: the compute queue of %s has no timestamps", d.info.Name)
		}
		if count <= 0 || count > math.MaxInt32 {
			return nil, status.Newf(status.InvalidArgument, "vk: CreateTimestampPool: count %d is not positive", count)
		}
		p := &timestampPool{lifetime: lifetime{d: d}, count: count}
		if r := C.vkb_create_query_pool(d.c, C.uint32_t(count), &p.handle); r != C.VK_SUCCESS {
			return nil, d.result("vkCreateQueryPool", r)
		}
		return p, nil
	})
}

func (p *timestampPool) destroy() { C.vkb_destroy_query_pool(p.d.c, p.handle) }

func (p *timestampPool) Count() int { return p.count }

func (p *timestampPool) Ticks(first, n int) ([]uint64, error) {
	if err := p.d.enterHolding("Ticks", p); err != nil {
		return nil, err
	}
	defer p.d.leaveHolding(p)
	if first < 0 || n <= 0 || first > p.count || n > p.count-first {
		return nil, status.Newf(status.InvalidArgument, "vk: Ticks: slots [%d, %d+%d) are outside the pool of %d", first, first, n, p.count)
	}
	return p.ticks("Ticks", first, n)
}

func (p *timestampPool) ticks(op string, first, n int) ([]uint64, error) {
	// Each slot reads as (value, availability).
	data := make([]uint64, 2*n)
	r := C.vkb_query_results(p.d.c, p.handle, C.uint32_t(first), C.uint32_t(n), (*C.uint64_t)(&data[0]))
	if r != C.VK_SUCCESS && r != C.VK_NOT_READY {
		return nil, p.d.result("vkGetQueryPoolResults", r)
	}
	mask := uint64(math.MaxUint64) // of the valid bits
	if bits := p.d.info.Limits.TimestampValidBits; bits < 64 {
		mask = 1<<bits - 1
	}
	out := make([]uint64, n)
	for i := range n {
		if data[2*i+1] == 0 {
			return nil, status.Newf(status.FailedPrecondition, "vk: %s: timestamp slot %d not written (or its submission has not completed)", op, first+i)
		}
		out[i] = data[2*i] & mask
	}
	return out, nil
}

func (p *timestampPool) Elapsed(start, end int) (time.Duration, error) {
	if err := p.d.enterHolding("Elapsed", p); err != nil {
		return 0, err
	}
	defer p.d.leaveHolding(p)
	if start < 0 || start >= p.count || end < 0 || end >= p.count {
		return 0, status.Newf(status.InvalidArgument, "vk: Elapsed: slots %d and %d are not both in the pool of %d", start, end, p.count)
	}
	s, err := p.ticks("Elapsed", start, 1)
	if err != nil {
		return 0, err
	}
	e, err := p.ticks("Elapsed", end, 1)
	if err != nil {
		return 0, err
	}
	d, err := hal.TickDuration(s[0], e[0], p.d.info.Limits.TimestampPeriod, p.d.info.Limits.TimestampValidBits)
	return d, status.Annotatef(err, "vk: Elapsed: slots %d and %d", start, end)
}
