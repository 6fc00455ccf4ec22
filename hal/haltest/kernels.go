package haltest

import (
	"embed"
	"encoding/binary"
	"slices"

	"github.com/vkbench/vkbench/hal"
)

// The kernels the suite dispatches, compiled from testdata/*.comp.
//go:generate sh -c "ls testdata/*.comp | sed s/[.]comp// | xargs -I@ glslc -O --target-env=vulkan1.2 -fshader-stage=compute -o @.spv @.comp"

//go:embed testdata/*.spv
var spirvFiles embed.FS

// kernel is one of the suite's compute kernels and how it is bound.
type kernel struct {
	name     string
	spirv    []byte
	bindings int
	push     int // bytes of push constants
	local    uint32
	kinds    []hal.BindingKind // nil: storage buffers
}

var (
	// kernelAdd: c[i] = a[i] + b[i] for i < n; bindings a, b, c; push n.
	kernelAdd = loadKernel("add", 3, 4, 64)
	// kernelFillIota: out[i] = i*MUL + add for i < n; binding out; push
	// add, n; constant 0 is the workgroup size (default 1), constant 1 is
	// MUL (default 1).
	kernelFillIota = loadKernel("fill_iota", 1, 8, 1)
	// kernelInc: x[i] = x[i]*3 + k for i < n; binding x; push k, n.
	kernelInc = loadKernel("inc", 1, 8, 64)
	// kernelSpin: out[i] = step^(16*iters)(i); binding out; push iters.
	kernelSpin = loadKernel("spin", 1, 4, 64)
	// kernelAddSets is kernelAdd with a in set 0 and b and c at bindings 0
	// and 1 of set 2, set 1 empty (addSets).
	kernelAddSets = loadKernel("add_sets", 3, 4, 64)
	// kernelSample reads a sampled r32f image and writes a storage r32f
	// image and a buffer (testdata/sample.comp); push w, h, off.x, off.y.
	kernelSample = loadKernel("sample", 3, 16, 8, hal.SampledImageBinding, hal.StorageImageBinding, hal.StorageBufferBinding)
	// kernelEmpty does nothing.
	kernelEmpty = loadKernel("empty", 0, 0, 1)
)

// addSets are kernelAddSets' bindings by set.
var addSets = []int{1, 0, 2}

func loadKernel(name string, bindings, push int, local uint32, kinds ...hal.BindingKind) kernel {
	code, err := spirvFiles.ReadFile("testdata/" + name + ".spv")
	if err != nil {
		panic("haltest: " + err.Error())
	}
	return kernel{name: name, spirv: code, bindings: bindings, push: push, local: local, kinds: kinds}
}

// desc describes an executable of k with constants, labelled with k's
// name.
func (k kernel) desc(constants ...hal.Constant) hal.ExecutableDesc {
	return hal.ExecutableDesc{Label: k.name, SPIRV: k.spirv, Bindings: k.bindings, BindingKinds: k.kinds,
		PushConstantSize: k.push, Constants: constants}
}

// groupsFor returns how many workgroups of local invocations cover n.
func groupsFor(n int, local uint32) [3]uint32 {
	return [3]uint32{uint32((n + int(local) - 1) / int(local)), 1, 1}
}

// spinRef is what kernelSpin stores for invocation i after iters rounds of
// 16 steps of its generator.
func spinRef(i, iters uint32) uint32 {
	x := i
	for range 16 * uint64(iters) {
		x = x*1664525 + 1013904223
		x ^= x >> 16
	}
	return x
}

// words packs uint32s little-endian, as push constants and buffer contents.
func words(v ...uint32) []byte { return pack(v) }

// pack packs 32-bit values little-endian, as buffers, push constants and
// images of 32-bit texels hold them.
func pack[T uint32 | float32](v []T) []byte {
	b, err := binary.Append(nil, binary.LittleEndian, v)
	if err != nil {
		panic("haltest: " + err.Error()) // a slice of fixed-size values always packs
	}
	return b
}

// unpack unpacks what pack packs; a trailing partial value is dropped.
func unpack[T uint32 | float32](b []byte) []T {
	v := make([]T, len(b)/4)
	if _, err := binary.Decode(b, binary.LittleEndian, v); err != nil {
		panic("haltest: " + err.Error()) // b holds len(v) values
	}
	return v
}

func repeat(x uint32, n int) []uint32 { return slices.Repeat([]uint32{x}, n) }

// alignUp rounds n up to a multiple of align (any positive align).
func alignUp(n, align int64) int64 {
	if align <= 1 {
		return n
	}
	return (n + align - 1) / align * align
}

// sentinel marks words that no kernel should have written.
const sentinel = 0xdeadbeef
