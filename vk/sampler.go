//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

var _ hal.Sampler = (*sampler)(nil)

// sampler is a VkSampler of one mip level.
type sampler struct {
	desc   hal.SamplerDesc
	handle C.VkSampler
	lifetime
}

func (d *device) CreateSampler(desc hal.SamplerDesc) (hal.Sampler, error) {
	const op = "CreateSampler"
	return create[hal.Sampler](d, op, func() (resource, error) {
		switch {
		case desc.Filter != hal.Nearest && desc.Filter != hal.Linear:
			return nil, invalidArg(op, desc.Label, "unknown filter %d", desc.Filter)
		case desc.Address != hal.ClampToEdge && desc.Address != hal.Repeat:
			return nil, invalidArg(op, desc.Label, "unknown address mode %d", desc.Address)
		case desc.Unnormalized && desc.Address != hal.ClampToEdge:
			// Vulkan allows unnormalized coordinates only with clamping.
			return nil, invalidArg(op, desc.Label, "unnormalized coordinates need the clamp address mode, not %s", desc.Address)
		}
		s := &sampler{lifetime: lifetime{d: d}, desc: desc}
		if r := C.vkb_create_sampler(d.c, boolInt(desc.Filter == hal.Linear), boolInt(desc.Address == hal.Repeat), boolInt(desc.Unnormalized), &s.handle); r != C.VK_SUCCESS {
			return nil, status.Annotatef(d.result("vkCreateSampler", r), "vk: %s %q", op, desc.Label)
		}
		return s, nil
	})
}

func (s *sampler) destroy() { C.vkb_destroy_sampler(s.d.c, s.handle) }

func (s *sampler) Desc() hal.SamplerDesc { return s.desc }
