//go:build cgo

package vk

/*
#include <stdlib.h>
#include "vkb.h"
*/
import "C"

import (
	"unsafe"

	"github.com/vkbench/vkbench/hal"
)

// cooperativeMatrices converts the multiply-adds vkb_query_physical_device
// listed, NV's then KHR's, to hal's: an empty list, not nil, when there
// are none, so that JSON shows [].
func cooperativeMatrices(c *C.vkb_pd_info) []hal.CooperativeMatrix {
	out := []hal.CooperativeMatrix{}
	for _, m := range c.coopmat[:c.ncoopmat] {
		out = append(out, hal.CooperativeMatrix{
			API: hal.MatrixAPI(m.api),
			M:   uint32(m.m), N: uint32(m.n), K: uint32(m.k),
			A: hal.ComponentType(m.a), B: hal.ComponentType(m.b), C: hal.ComponentType(m.c), Result: hal.ComponentType(m.result),
			SaturatingAccumulation: m.saturating != 0,
			Scope:                  hal.Scope(m.scope),
			Invocations:            uint32(m.invocations),
		})
	}
	return out
}

// fixedCooperativeMatrices returns what cooperativeMatrices makes of the
// fixed properties of vkb_test_cooperative_matrices: test support, for a
// check of the C structures' fields without a device that has them.
func fixedCooperativeMatrices() []hal.CooperativeMatrix {
	c := (*C.vkb_pd_info)(C.calloc(1, C.sizeof_vkb_pd_info))
	defer C.free(unsafe.Pointer(c))
	C.vkb_test_cooperative_matrices(c)
	return cooperativeMatrices(c)
}
