package kernels

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// Candidate is one kernel that computes an operation: a SPIR-V entry point
// with its specialization constants, and what the operation's geometry
// needs to know about it. Candidates are values; the SPIR-V bytes are
// shared and must not be modified.
type Candidate struct {
	// Name identifies the candidate within its operation, such as
	// "vec4-unroll4-wg256"; it says how the kernel differs from its
	// siblings.
	Name string
	// Shader names the source the SPIR-V was built from (for built-in
	// kernels, a name in package shaders), for people and reports.
	Shader string
	// SPIRV is the module.
	SPIRV []byte
	// EntryPoint is the GLCompute entry point; "main" if empty.
	EntryPoint string
	// Bindings is the number of bindings the kernel uses, at bindings 0
	// to Bindings-1 of set 0 unless Sets spreads them over sets
	// (hal.ExecutableDesc.Sets).
	Bindings int
	// Sets, if not nil, is the number of bindings in each descriptor set.
	Sets []int
	// BindingKinds is what each binding holds; nil means storage buffers
	// only (hal.ExecutableDesc.BindingKinds).
	BindingKinds []hal.BindingKind
	// PushConstantSize is the size in bytes of the push-constant block.
	PushConstantSize int
	// WorkgroupSize is the workgroup's size in x, y and z. It is set
	// through Constants (the kernel declares local_size_x_id and friends),
	// and repeated here so that a candidate can be checked against the
	// device and the geometry can use it.
	WorkgroupSize [3]uint32
	// Constants are the specialization constants, the workgroup size
	// among them.
	Constants []hal.Constant
	// SubgroupSize, if not 0, is the subgroup size the pipeline requires,
	// and FullSubgroups requires full subgroups
	// (hal.ExecutableDesc.SubgroupSize, FullSubgroups): a kernel whose
	// shared memory or indexing counts on one subgroup size, as ggml's do.
	SubgroupSize  uint32
	FullSubgroups bool
	// Params are the values the operation's dispatch geometry and CPU
	// check use (elements per invocation, tile sizes, grid size), by name;
	// those the kernel also sees are among Constants.
	Params map[string]int
	// Requires is what the device must support.
	Requires Requirements
	// Applies, if set, reports whether the candidate computes correctly at
	// a size (a kernel that works on vec4s needs a multiple of 4); nil
	// means at every size. A tuner never answers a size with a candidate
	// that does not apply to it: it tunes the candidates that do, under a
	// key of their own. Applies is not in Digest: change the rule and the
	// candidate's name together.
	Applies func(Size) bool
	// AppliesWhere says in words where Applies holds, for the message of
	// a built-in problem asked to run the candidate where it does not
	// ("its loads are unchecked, for sizes whose M, N and K are multiples
	// of 128, 128 and 8"). Like Applies, it is not in Digest.
	AppliesWhere string
}

// Clone returns c with slices and maps of its own, as an operation hands
// its candidates to a caller that may change them; the SPIR-V is shared.
func (c Candidate) Clone() Candidate {
	c.Sets, c.BindingKinds, c.Constants = slices.Clone(c.Sets), slices.Clone(c.BindingKinds), slices.Clone(c.Constants)
	c.Params = maps.Clone(c.Params)
	c.Requires.CooperativeMatrices, c.Requires.Images = slices.Clone(c.Requires.CooperativeMatrices), slices.Clone(c.Requires.Images)
	return c
}

// Executable returns the description of the candidate's pipeline, labelled
// with its name.
func (c Candidate) Executable() hal.ExecutableDesc {
	return hal.ExecutableDesc{
		Label:            c.Name,
		SPIRV:            c.SPIRV,
		EntryPoint:       c.EntryPoint,
		Bindings:         c.Bindings,
		Sets:             slices.Clone(c.Sets),
		BindingKinds:     slices.Clone(c.BindingKinds),
		PushConstantSize: c.PushConstantSize,
		Constants:        slices.Clone(c.Constants),
		SubgroupSize:     c.SubgroupSize,
		FullSubgroups:    c.FullSubgroups,
	}
}

// Invocations is the number of invocations in a workgroup (in 64 bits:
// three sizes that each fit in 32 need not multiply within 32).
func (c Candidate) Invocations() uint64 {
	return uint64(c.WorkgroupSize[0]) * uint64(c.WorkgroupSize[1]) * uint64(c.WorkgroupSize[2])
}

// Supported returns nil if the device can run the candidate, or an error
// with code Unimplemented that names the candidate and what is missing:
// of its Needs, its workgroup, push constants, sets or subgroups.
func (c Candidate) Supported(info hal.DeviceInfo) error {
	if why := c.unsupported(info); why != "" {
		return status.Newf(status.Unimplemented, "kernels: %s: %s", c.Name, why)
	}
	return nil
}

func (c Candidate) unsupported(info hal.DeviceInfo) string {
	l := info.Limits
	for i, n := range c.WorkgroupSize {
		if n > l.MaxWorkgroupSize[i] {
			return fmt.Sprintf("needs a workgroup of %d in %c, device allows %d", n, "xyz"[i], l.MaxWorkgroupSize[i])
		}
	}
	if n := c.Invocations(); n > uint64(l.MaxWorkgroupInvocations) {
		return fmt.Sprintf("needs %d invocations per workgroup, device allows %d", n, l.MaxWorkgroupInvocations)
	}
	if uint32(c.PushConstantSize) > l.MaxPushConstantsSize {
		return fmt.Sprintf("needs %d bytes of push constants, device allows %d", c.PushConstantSize, l.MaxPushConstantsSize)
	}
	if n := len(c.Sets); n > 1 && uint64(n) > uint64(l.MaxBoundDescriptorSets) {
		return fmt.Sprintf("needs %d descriptor sets, device has %d", n, l.MaxBoundDescriptorSets)
	}
	return cmp.Or(info.SubgroupsUnsupported(c.SubgroupSize, c.FullSubgroups, c.WorkgroupSize), c.Needs().unsupported(info))
}

// Needs returns everything the candidate needs of a device: its Requires
// (with SharedMemory's figure) and what its module's capabilities need
// (ModuleRequirements), whoever wrote its Requires. A module that does not
// parse adds nothing: creating its pipeline says what is wrong with it.
func (c Candidate) Needs() Requirements {
	m, err := spirv.Parse(c.SPIRV)
	if err != nil {
		return c.Requires
	}
	r := c.Requires
	r.SharedMemory = c.SharedMemory(m)
	return r.Merge(ModuleRequirements(m))
}

// SharedMemory returns the workgroup (shared) memory the candidate needs,
// in bytes, given its parsed module m: Requires.SharedMemory where set,
// else what m's entry point declares with the candidate's constants; 0
// where neither says.
func (c Candidate) SharedMemory(m *spirv.Module) uint32 {
	e, err := m.Entry(c.EntryPoint)
	if c.Requires.SharedMemory != 0 || err != nil {
		return c.Requires.SharedMemory
	}
	spec, _ := hal.ConstantValues(c.Constants) // one given twice: its pipeline says so
	n, _ := ModuleSharedMemory(m, e, spec)
	return n
}

// ModuleSharedMemory returns the bytes of workgroup memory entry point e
// of m declares with the constants spec, math.MaxUint32 (past any
// device's limit) for more, and false where they cannot be worked out.
func ModuleSharedMemory(m *spirv.Module, e *spirv.Entry, spec map[uint32]uint32) (uint32, bool) {
	n, ok := m.SharedMemory(e, spec)
	return uint32(min(n, math.MaxUint32)), ok
}

// Digest returns a SHA-256 of everything that makes the candidates what
// they are, in order (all but Applies and AppliesWhere). Change any
// kernel, reorder the list, or retune a constant and the digest changes,
// so a tuner's cached answers for the old list stop applying.
func Digest(cands []Candidate) [sha256.Size]byte {
	h := sha256.New()
	var b []byte
	str := func(s string) {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	b = binary.LittleEndian.AppendUint64(b, uint64(len(cands)))
	for _, c := range cands {
		str(c.Name)
		str(c.Shader)
		str(c.EntryPoint)
		str(string(c.SPIRV))
		u32(uint32(c.Bindings))
		if len(c.BindingKinds) > 0 {
			// Only a candidate with images says its kinds, so that the
			// digests of storage buffers alone stay as they were.
			str("kinds")
			b, _ = binary.Append(b, binary.LittleEndian, c.BindingKinds) // bytes always encode
		}
		if c.Sets != nil {
			// Likewise only a candidate of several sets says them.
			str("sets")
			for _, n := range c.Sets {
				u32(uint32(n))
			}
		}
		u32(uint32(c.PushConstantSize))
		b, _ = binary.Append(b, binary.LittleEndian, c.WorkgroupSize) // words always encode
		u32(uint32(len(c.Constants)))
		b, _ = binary.Append(b, binary.LittleEndian, c.Constants) // each ID, then its Value
		keys := slices.Sorted(maps.Keys(c.Params))
		u32(uint32(len(keys)))
		for _, k := range keys {
			str(k)
			b = binary.LittleEndian.AppendUint64(b, uint64(c.Params[k]))
		}
		// Needs' shared memory: a figure digests alike, declared or not.
		r := c.Requires
		if m, err := spirv.Parse(c.SPIRV); err == nil {
			r.SharedMemory = c.SharedMemory(m)
		}
		b = r.appendDigest(b)
		if c.SubgroupSize > 0 || c.FullSubgroups {
			// Only where set, so that the digests of other kernels stay.
			str("subgroups")
			u32(c.SubgroupSize)
			u32(bit(c.FullSubgroups))
		}
		h.Write(b)
		b = b[:0]
	}
	return [sha256.Size]byte(h.Sum(nil))
}
