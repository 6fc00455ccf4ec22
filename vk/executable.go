//go:build cgo

package vk

/*
#include <stdlib.h>
#include "vkb.h"
*/
import "C"

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

var _ hal.Executable = (*executable)(nil)

// executable is a compute pipeline with its layouts: storage buffers at
// set 0, bindings 0..bindings-1, and one push-constant range.
type executable struct {
	d        *device
	label    string
	bindings int
	pushSize int
	p        C.vkb_pipeline
	released atomic.Bool
}

func (d *device) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	if err := d.usable("CreateExecutable"); err != nil {
		return nil, err
	}
	if err := hal.CheckSPIRV(desc.SPIRV, desc.EntryPoint); err != nil {
		return nil, status.Annotatef(err, "vk: CreateExecutable %q", desc.Label)
	}
	invalid := func(format string, args ...any) error {
		return status.Newf(status.InvalidArgument, "vk: CreateExecutable %q: "+format, append([]any{desc.Label}, args...)...)
	}
	if desc.Bindings < 0 || uint64(desc.Bindings) > uint64(d.pd.maxStorageBuffers) {
		return nil, invalid("%d bindings; the device allows 0 to %d storage buffers", desc.Bindings, d.pd.maxStorageBuffers)
	}
	// A module that uses a binding the layout lacks is invalid, and some
	// drivers (lavapipe) crash building its pipeline.
	module, err := hal.ParseSPIRV(desc.SPIRV)
	if err != nil {
		return nil, status.Annotatef(err, "vk: CreateExecutable %q", desc.Label)
	}
	for _, sb := range module.Bindings {
		if set, binding := sb>>16, sb&0xffff; set != 0 || int(binding) >= desc.Bindings {
			return nil, invalid("the module uses set %d binding %d, but the executable has bindings 0 to %d of set 0", set, binding, desc.Bindings-1)
		}
	}
	if desc.PushConstantSize == 0 && hasPushConstants(desc.SPIRV) {
		return nil, invalid("the module has push constants, but the executable's PushConstantSize is 0")
	}
	limit := d.info.Limits.MaxPushConstantsSize
	if desc.PushConstantSize < 0 || desc.PushConstantSize%4 != 0 || uint64(desc.PushConstantSize) > uint64(limit) {
		return nil, invalid("push-constant size %d is not a multiple of 4 between 0 and the device's %d", desc.PushConstantSize, limit)
	}
	ids := make([]uint32, len(desc.Constants))
	values := make([]uint32, len(desc.Constants))
	seen := make(map[uint32]bool, len(desc.Constants))
	for i, c := range desc.Constants {
		if seen[c.ID] {
			return nil, invalid("specialization constant %d is given twice", c.ID)
		}
		seen[c.ID] = true
		ids[i], values[i] = c.ID, c.Value
	}
	// Copy the code into words: pCode must be 4-byte aligned.
	code := make([]uint32, len(desc.SPIRV)/4)
	for i := range code {
		code[i] = binary.LittleEndian.Uint32(desc.SPIRV[4*i:])
	}
	entry := desc.EntryPoint
	if entry == "" {
		entry = "main"
	}
	centry := C.CString(entry)
	defer C.free(unsafe.Pointer(centry))
	var idp, valuep *C.uint32_t
	if len(ids) > 0 {
		idp, valuep = (*C.uint32_t)(&ids[0]), (*C.uint32_t)(&values[0])
	}

	e := &executable{d: d, label: desc.Label, bindings: desc.Bindings, pushSize: desc.PushConstantSize}
	var failed *C.char
	r := C.vkb_create_pipeline(d.c, d.cache, (*C.uint32_t)(&code[0]), C.size_t(4*len(code)), centry,
		C.uint32_t(desc.Bindings), C.uint32_t(desc.PushConstantSize), C.uint32_t(len(ids)), idp, valuep, &e.p, &failed)
	if r != C.VK_SUCCESS {
		return nil, status.Annotatef(d.result(C.GoString(failed), r), "vk: CreateExecutable %q", desc.Label)
	}
	if err := d.track(e, &e.released, "CreateExecutable"); err != nil {
		e.destroy()
		return nil, err
	}
	return e, nil
}

func (e *executable) destroy() { C.vkb_destroy_pipeline(e.d.c, e.p) }

func (e *executable) Label() string { return e.label }

// Release frees the pipeline; a second Release returns nil.
func (e *executable) Release() error {
	e.d.releaseObject(e, &e.released)
	return nil
}

// SPIR-V opcode and storage class that hasPushConstants looks for.
const (
	spvOpVariable            = 59
	spvStorageClassPushConst = 9
)

// hasPushConstants reports whether a module that hal.CheckSPIRV accepted
// declares a variable in the PushConstant storage class: a pipeline
// layout without a push-constant range cannot run it.
func hasPushConstants(code []byte) bool {
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(code[4*i:]) }
	for i, n := 5, len(code)/4; i < n; {
		count, op := int(word(i)>>16), word(i)&0xffff
		if count == 0 || i+count > n {
			return false
		}
		if op == spvOpVariable && count >= 4 && word(i+3) == spvStorageClassPushConst {
			return true
		}
		i += count
	}
	return false
}
