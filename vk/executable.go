//go:build cgo

package vk

/*
#include <stdlib.h>
#include "vkb.h"
*/
import "C"

import (
	"math"
	"slices"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

var _ hal.Executable = (*executable)(nil)

// executable is a compute pipeline with its layouts: its bindings at set
// 0, bindings 0..bindings-1, or spread over sets as hal.ExecutableDesc.Sets
// says, and one push-constant range.
type executable struct {
	label    string
	bindings int
	// kinds are the bindings' kinds (nil: all storage buffers), and
	// formats the formats that the module declares of its storage
	// images, by binding (nil without them).
	kinds    []hal.BindingKind
	formats  []spirv.ImageFormat
	pushSize int
	p        C.vkb_pipeline
	// sets are the layouts of a pipeline of several sets (nil for set 0
	// alone), which vkb_cmd_dispatch records set by set.
	sets *C.vkb_sets
	lifetime
}

func (d *device) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	return create[hal.Executable](d, "CreateExecutable", func() (resource, error) { return d.newExecutable(desc) })
}

// newExecutable checks desc against its module and the device, and
// builds the pipeline. The gate must be held.
func (d *device) newExecutable(desc hal.ExecutableDesc) (*executable, error) {
	const op = "CreateExecutable"
	if len(desc.BindingKinds) == 0 {
		desc.BindingKinds = nil // storage buffers only, as nil says
	}
	module, entry, err := spirv.Check(desc.SPIRV, desc.EntryPoint)
	if err != nil {
		return nil, status.Annotatef(err, "vk: CreateExecutable %q", desc.Label)
	}
	if err := d.checkSets(desc); err != nil {
		return nil, err
	}
	formats, err := d.checkBindings(desc, module, entry)
	if err != nil {
		return nil, err
	}
	spec, err := hal.ConstantValues(desc.Constants)
	if err != nil {
		return nil, status.Annotatef(err, "vk: %s %q", op, desc.Label)
	}
	// A block longer than the range pushed would read past it: undefined
	// values on most drivers, a crash on some.
	push, known := module.PushConstantBytes(entry, spec)
	if !known && desc.PushConstantSize == 0 {
		return nil, invalidArg(op, desc.Label, "entry point %q has a push-constant block, but the executable's PushConstantSize is 0", entry.Name)
	}
	if known && push > desc.PushConstantSize {
		if desc.PushConstantSize == 0 {
			return nil, invalidArg(op, desc.Label, "entry point %q has a push-constant block of %d bytes, but the executable's PushConstantSize is 0", entry.Name, push)
		}
		return nil, invalidArg(op, desc.Label, "entry point %q's push-constant block is %d bytes, more than the executable's PushConstantSize of %d", entry.Name, push, desc.PushConstantSize)
	}
	limit := d.info.Limits.MaxPushConstantsSize
	if desc.PushConstantSize < 0 || desc.PushConstantSize%4 != 0 || uint64(desc.PushConstantSize) > uint64(limit) {
		return nil, invalidArg(op, desc.Label, "push-constant size %d is not a multiple of 4 between 0 and the device's %d", desc.PushConstantSize, limit)
	}
	if desc.SubgroupSize > 0 || desc.FullSubgroups {
		wg, _ := module.WorkgroupSize(entry, spec)
		if why := d.info.SubgroupsUnsupported(desc.SubgroupSize, desc.FullSubgroups, wg); why != "" {
			return nil, status.Wrapf(hal.ErrUnsupported, status.OK, "vk: CreateExecutable %q: %s: %s", desc.Label, d.info.Name, why)
		}
	}
	// pCode must be 4-byte aligned; spirv.Check has read the words once.
	code, _ := spirv.Words(desc.SPIRV)
	centry := C.CString(entry.Name)
	defer C.free(unsafe.Pointer(centry))
	e := &executable{lifetime: lifetime{d: d}, label: desc.Label, bindings: desc.Bindings, pushSize: desc.PushConstantSize,
		kinds: slices.Clone(desc.BindingKinds), formats: formats}
	counts, types := e.layouts(desc.Sets)
	ids := make([]C.uint32_t, len(desc.Constants))
	values := make([]C.uint32_t, len(desc.Constants))
	for i, c := range desc.Constants {
		ids[i], values[i] = C.uint32_t(c.ID), C.uint32_t(c.Value)
	}
	var failed *C.char
	r := C.vkb_create_pipeline(d.c, d.cache, (*C.uint32_t)(&code[0]), C.size_t(4*len(code)), centry,
		C.uint32_t(desc.Bindings), C.uint32_t(len(counts)), first(counts), first(types), C.uint32_t(desc.PushConstantSize), C.uint32_t(len(ids)), first(ids), first(values),
		C.uint32_t(desc.SubgroupSize), boolInt(desc.FullSubgroups), &e.p, &e.sets, &failed)
	if r != C.VK_SUCCESS {
		return nil, status.Annotatef(d.result(C.GoString(failed), r), "vk: CreateExecutable %q", desc.Label)
	}
	return e, nil
}

// layouts returns the bindings of each set for vkb_create_pipeline (none
// for set 0 alone) and the type of each binding (none for storage buffers
// alone). A pipeline of sets says its kinds: vkb_cmd_dispatch writes
// each binding by its kind.
func (e *executable) layouts(sets []int) ([]C.uint32_t, []C.VkDescriptorType) {
	var counts []C.uint32_t
	if sets != nil {
		if e.kinds == nil && e.bindings > 0 {
			e.kinds = make([]hal.BindingKind, e.bindings)
		}
		for _, n := range sets {
			counts = append(counts, C.uint32_t(n))
		}
	}
	var types []C.VkDescriptorType
	for _, k := range e.kinds {
		types = append(types, descriptorTypes[k])
	}
	return counts, types
}

// descriptorTypes are the VkDescriptorTypes of hal's binding kinds.
var descriptorTypes = [...]C.VkDescriptorType{
	hal.StorageBufferBinding: C.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
	hal.StorageImageBinding:  C.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
	hal.SampledImageBinding:  C.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
	hal.UniformBufferBinding: C.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
}

// moduleKinds are the descriptors of a module that each binding kind
// binds.
var moduleKinds = [...]spirv.DescriptorKind{
	hal.StorageBufferBinding: spirv.StorageBuffer,
	hal.StorageImageBinding:  spirv.StorageImage,
	hal.SampledImageBinding:  spirv.SampledImage,
	hal.UniformBufferBinding: spirv.UniformBuffer,
}

// checkBindings checks desc's bindings against the device's limits, of
// each kind and of all together in the one stage (maxPerStageResources),
// and against what the entry point uses: a module that uses a binding the
// layout lacks, or of another kind, is invalid, and some drivers
// (lavapipe) crash building its pipeline. It returns the formats the
// module declares of its storage images, by binding.
func (d *device) checkBindings(desc hal.ExecutableDesc, module *spirv.Module, entry *spirv.Entry) ([]spirv.ImageFormat, error) {
	if desc.Bindings < 0 || len(desc.BindingKinds) > 0 && len(desc.BindingKinds) != desc.Bindings {
		return nil, invalidArg("CreateExecutable", desc.Label, "%d bindings with %d kinds; give a kind for each binding, or none for storage buffers only", desc.Bindings, len(desc.BindingKinds))
	}
	kind := func(i int) hal.BindingKind {
		if desc.BindingKinds == nil {
			return hal.StorageBufferBinding
		}
		return desc.BindingKinds[i]
	}
	var count [4]uint32
	for i := range desc.Bindings {
		k := kind(i)
		if int(k) >= len(count) {
			return nil, invalidArg("CreateExecutable", desc.Label, "binding %d has unknown kind %d", i, k)
		}
		count[k]++
	}
	for k, limit := range d.pd.maxBindings {
		if count[k] > limit {
			return nil, invalidArg("CreateExecutable", desc.Label, "%d %s bindings; the device allows 0 to %d", count[k], hal.BindingKind(k), limit)
		}
	}
	if n := uint32(desc.Bindings); n > d.pd.maxResources {
		return nil, invalidArg("CreateExecutable", desc.Label, "%d descriptors in all; the device allows 0 to %d in one stage", n, d.pd.maxResources)
	}
	sets := desc.Sets
	if sets == nil {
		sets = []int{desc.Bindings}
	}
	var formats []spirv.ImageFormat
	for _, b := range module.Bindings(entry) {
		i, ok := desc.BindingIndex(b.Set, b.Binding)
		if !ok || b.Kind != moduleKinds[kind(i)] {
			what := "nothing"
			if ok {
				what = "a " + kind(i).String()
			}
			return nil, invalidArg("CreateExecutable", desc.Label, "entry point %q uses %v, but the executable has %s there (bindings by set: %v)", entry.Name, b, what, sets)
		}
		isImage := b.Kind == spirv.StorageImage || b.Kind == spirv.SampledImage
		if isImage && (b.Image.Dim != spirv.Dim2D || b.Image.Arrayed || b.Image.Multisampled) {
			return nil, invalidArg("CreateExecutable", desc.Label, "entry point %q uses %v; vkbench binds 2D images only, neither arrayed nor multisampled", entry.Name, b)
		}
		if b.Kind == spirv.StorageImage {
			if formats == nil {
				formats = make([]spirv.ImageFormat, desc.Bindings)
			}
			formats[i] = b.Image.Format
		}
	}
	return formats, nil
}

// checkSets checks desc's Sets: they sum to Bindings, and the device
// binds as many sets.
func (d *device) checkSets(desc hal.ExecutableDesc) error {
	if desc.Sets == nil {
		return nil
	}
	sum := 0
	for _, n := range desc.Sets {
		sum += n
	}
	if len(desc.Sets) == 0 || slices.Min(desc.Sets) < 0 || sum != desc.Bindings || sum == 0 {
		return invalidArg("CreateExecutable", desc.Label, "sets of %v bindings for %d bindings; give sets of bindings, none negative, summing to Bindings (at least 1)",
			desc.Sets, desc.Bindings)
	}
	if limit := d.info.Limits.MaxBoundDescriptorSets; uint64(len(desc.Sets)) > uint64(limit) {
		return status.Wrapf(hal.ErrUnsupported, status.OK, "vk: CreateExecutable %q: %s: needs %d descriptor sets, device has %d",
			desc.Label, d.info.Name, len(desc.Sets), limit)
	}
	return nil
}

func (e *executable) destroy() { C.vkb_destroy_pipeline(e.d.c, e.p, e.sets) }

func (e *executable) Label() string { return e.label }

var _ hal.CompilerReporter = (*executable)(nil)

func (e *executable) CompilerStats() ([]hal.CompilerStat, error) {
	const op = "Executable.CompilerStats"
	if err := e.d.enterHolding(op, e); err != nil {
		return nil, err
	}
	defer e.d.leaveHolding(e)
	if e.d.c.exec_stats == 0 {
		return nil, status.Newf(status.Unimplemented, "vk: %s: %s does not report compiler statistics (no VK_KHR_pipeline_executable_properties)", op, e.d.info.Name)
	}
	props, r := enumerate(func(n *C.uint32_t, out *C.VkPipelineExecutablePropertiesKHR) C.VkResult {
		return C.vkb_pipeline_executables(e.d.c, e.p.pipeline, n, out)
	})
	if r != C.VK_SUCCESS {
		return nil, e.d.result("vkGetPipelineExecutablePropertiesKHR", r)
	}
	var stats []hal.CompilerStat
	for i, p := range props {
		name := C.GoString(&p.name[0])
		list, r := enumerate(func(n *C.uint32_t, out *C.VkPipelineExecutableStatisticKHR) C.VkResult {
			return C.vkb_pipeline_statistics(e.d.c, e.p.pipeline, C.uint32_t(i), n, out)
		})
		if r != C.VK_SUCCESS {
			return nil, e.d.result("vkGetPipelineExecutableStatisticsKHR", r)
		}
		for _, s := range list {
			st := hal.CompilerStat{
				Executable:  name,
				Name:        C.GoString(&s.name[0]),
				Description: C.GoString(&s.description[0]),
				Value:       statValue(s.format, s.value),
			}
			// NVIDIA's driver (580.159.04) reports "Local Memory Size"
			// with bit 36 set in every pipeline: 68719476736 for none, and
			// 2³⁶+32 for a kernel that spills 32 bytes. Per-thread local
			// memory is far below 4 GiB on any GPU, so its low 32 bits
			// are the size.
			if st.Name == "Local Memory Size" && st.Value >= 1<<32 {
				st.Value = float64(uint64(st.Value) & (1<<32 - 1))
			}
			stats = append(stats, st)
		}
	}
	return stats, nil
}

// statValue reads a statistic's value union by its format.
func statValue(format C.VkPipelineExecutableStatisticFormatKHR, v C.VkPipelineExecutableStatisticValueKHR) float64 {
	raw := unsafe.Pointer(&v)
	switch format {
	case C.VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
		if *(*C.VkBool32)(raw) != 0 {
			return 1
		}
		return 0
	case C.VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
		return float64(*(*int64)(raw))
	case C.VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
		return float64(*(*uint64)(raw))
	case C.VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
		return *(*float64)(raw)
	}
	return math.NaN()
}
