package kernels

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/hal"
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
	// Bindings is the number of storage buffers the kernel uses, at
	// bindings 0 to Bindings-1 of set 0.
	Bindings int
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
	// Params are the values the operation's dispatch geometry and CPU
	// check use (elements per invocation, tile sizes, grid size), by name;
	// those the kernel also sees are among Constants.
	Params map[string]int
	// Requires is what the device must support.
	Requires Requirements
}

// Executable returns the description of the candidate's pipeline, labelled
// with its name.
func (c Candidate) Executable() hal.ExecutableDesc {
	return hal.ExecutableDesc{
		Label:            c.Name,
		SPIRV:            c.SPIRV,
		EntryPoint:       c.EntryPoint,
		Bindings:         c.Bindings,
		PushConstantSize: c.PushConstantSize,
		Constants:        slices.Clone(c.Constants),
	}
}

// Invocations is the number of invocations in a workgroup.
func (c Candidate) Invocations() uint32 {
	return c.WorkgroupSize[0] * c.WorkgroupSize[1] * c.WorkgroupSize[2]
}

// Supported returns nil if the device can run the candidate, or an error
// with code Unimplemented that names the candidate and says what is
// missing: a feature, subgroup operations, shared memory, or a workgroup
// larger than the device's.
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
	if n := c.Invocations(); n > l.MaxWorkgroupInvocations {
		return fmt.Sprintf("needs %d invocations per workgroup, device allows %d", n, l.MaxWorkgroupInvocations)
	}
	if uint32(c.PushConstantSize) > l.MaxPushConstantsSize {
		return fmt.Sprintf("needs %d bytes of push constants, device allows %d", c.PushConstantSize, l.MaxPushConstantsSize)
	}
	return c.Requires.unsupported(info)
}

// Requirements is what a kernel needs of a device beyond core Vulkan 1.2
// compute.
type Requirements struct {
	// Float16 is 16-bit float arithmetic (shaderFloat16).
	Float16 bool
	// Int64 is 64-bit integer arithmetic (shaderInt64).
	Int64 bool
	// Subgroup are the subgroup operations used in compute shaders.
	Subgroup hal.SubgroupOps
	// MinSubgroupSize is the smallest subgroup size the kernel works with;
	// 0 if any.
	MinSubgroupSize uint32
	// SharedMemory is the workgroup (shared) memory the kernel declares,
	// in bytes.
	SharedMemory uint32
}

// Supported returns nil if info meets the requirements, or an error with
// code Unimplemented that names the first one it does not meet, such as
// "needs shaderFloat16" or "needs 48 KiB of shared memory, device has 32
// KiB".
func (r Requirements) Supported(info hal.DeviceInfo) error {
	if why := r.unsupported(info); why != "" {
		return status.New(status.Unimplemented, "kernels: "+why)
	}
	return nil
}

func (r Requirements) unsupported(info hal.DeviceInfo) string {
	l := info.Limits
	switch {
	case r.Float16 && !info.Features.Float16:
		return "needs shaderFloat16"
	case r.Int64 && !info.Features.Int64:
		return "needs shaderInt64"
	case !l.SubgroupOps.Has(r.Subgroup):
		return fmt.Sprintf("needs subgroup operations %s, device has %s", subgroupOpsString(r.Subgroup), subgroupOpsString(l.SubgroupOps))
	case r.MinSubgroupSize > 0 && l.SubgroupSize < r.MinSubgroupSize:
		return fmt.Sprintf("needs a subgroup size of at least %d, device has %d", r.MinSubgroupSize, l.SubgroupSize)
	case r.SharedMemory > l.MaxSharedMemory:
		return fmt.Sprintf("needs %s of shared memory, device has %s", kib(r.SharedMemory), kib(l.MaxSharedMemory))
	}
	return ""
}

func kib(n uint32) string {
	if n%1024 == 0 {
		return fmt.Sprintf("%d KiB", n/1024)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

func subgroupOpsString(ops hal.SubgroupOps) string {
	names := ops.Names()
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// Digest returns a SHA-256 of everything that makes the candidates what
// they are, in order: each one's name, shader name, entry point, SPIR-V
// bytes, bindings, push-constant size, workgroup size, specialization
// constants (in their order), params (sorted by name) and requirements.
// Change any kernel, reorder the list, or retune a constant and the digest
// changes, so a tuner's cached answers for the old list stop applying.
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
		u32(uint32(c.PushConstantSize))
		for _, n := range c.WorkgroupSize {
			u32(n)
		}
		u32(uint32(len(c.Constants)))
		for _, k := range c.Constants {
			u32(k.ID)
			u32(k.Value)
		}
		keys := slices.Sorted(maps.Keys(c.Params))
		u32(uint32(len(keys)))
		for _, k := range keys {
			str(k)
			b = binary.LittleEndian.AppendUint64(b, uint64(c.Params[k]))
		}
		r := c.Requires
		flags := uint32(0)
		if r.Float16 {
			flags |= 1
		}
		if r.Int64 {
			flags |= 2
		}
		u32(flags)
		u32(uint32(r.Subgroup))
		u32(r.MinSubgroupSize)
		u32(r.SharedMemory)
		h.Write(b)
		b = b[:0]
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
