package vkbench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"reflect"
	"slices"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// Kernel describes a compute kernel: a SPIR-V module (bytes, often
// embedded), its entry point, and the specialization constants that make
// it one variant among several. It is a value, tied to no device; Build
// makes a Pipeline of it.
//
// vkbench does not compile GLSL; glslc does, once, at go generate time:
//
//	//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute scale.comp -o scale.spv
//	//go:embed scale.spv
//	var scaleSPIRV []byte
type Kernel struct {
	// Name tells this kernel from the other candidates of an Op, such as
	// "vec4-wg128"; lower case, digits, '-' and '.' read best in reports.
	Name string
	// SPIRV is the module. It must not be modified after use.
	SPIRV []byte
	// EntryPoint is the GLCompute entry point; "main" if empty.
	EntryPoint string
	// WorkgroupSize is the workgroup's size in x, y and z. If zero, it is
	// the module's: fixed (local_size_x = 64), or taken from specialization
	// constants (local_size_x_id = 0) with the values in Constants. If set,
	// it must agree with what the module fixes and with Constants, and it
	// sets the local_size_x_id constants that Constants does not: a
	// mismatch is InvalidArgument.
	WorkgroupSize [3]uint32
	// Constants are the specialization constants by constant_id, as 32-bit
	// values: math.Float32bits for a float, 0 or 1 for a bool.
	Constants map[uint32]uint32
	// Bindings is the number of storage buffers the kernel takes, at
	// bindings 0 to Bindings-1 of descriptor set 0 when Sets is nil. If
	// zero, it and Sets are worked out from the module: one more than the
	// highest binding of each set it uses.
	Bindings int
	// Sets, if not nil, spreads the buffers over descriptor sets: set s
	// has Sets[s] of them, at bindings 0 to Sets[s]-1 (0 for a set the
	// module does not use), and Sets sums to Bindings. Run takes the
	// buffers set by set: set 0's, then set 1's, and so on.
	Sets []int
	// PushConstantSize is the size in bytes of the push constants Run
	// gives the kernel (a multiple of 4): its push-constant block's, or
	// more where the candidates of an Op share a longer Push than this
	// one reads, never less; 0 if it has none. Run must be given exactly
	// that many bytes.
	PushConstantSize int
	// Params are numbers about the kernel that the code dispatching it
	// needs, such as the elements each invocation handles.
	Params map[string]int
	// SubgroupSize, if not 0, is the subgroup size the kernel's pipeline
	// requires (VK_EXT_subgroup_size_control), for a kernel whose shared
	// memory or indexing counts on one size: a device that cannot set it
	// makes Build fail with code Unimplemented, saying why.
	SubgroupSize uint32
	// FullSubgroups requires every subgroup to be full: the workgroup's
	// x a multiple of SubgroupSize (or of the device's largest size
	// without one), on a device with computeFullSubgroups.
	FullSubgroups bool
	// Requires is what the kernel needs of a device beyond core Vulkan 1.2
	// compute that its module does not declare. Build refuses a device
	// without it, and a Tuner reports such a candidate as unsupported.
	Requires Requirements
	// Applies, if set, reports whether the kernel computes correctly at a
	// size (one integer per name in its Op's Dims): a kernel that works on
	// vec4s needs a multiple of 4. Nil means every size. A Tuner never
	// answers a size with a kernel that does not apply to it.
	Applies func(size []int) bool
}

// candidate returns the kernel in the catalogue's form, and as a variant,
// with what the module says filled in, there and in k (WorkgroupSize,
// Bindings and Sets, as Pipeline.Kernel and Problem.Groups show them). It
// checks the module, and that WorkgroupSize and Constants agree with it.
func (k *Kernel) candidate() (kernels.Candidate, variant, error) {
	fail := func(err error) (kernels.Candidate, variant, error) {
		return kernels.Candidate{}, variant{}, status.Annotatef(err, "vkbench: kernel %q", k.Name)
	}
	mod, entry, err := spirv.Check(k.SPIRV, k.EntryPoint)
	if err != nil {
		return fail(err)
	}
	if k.PushConstantSize < 0 || k.PushConstantSize%4 != 0 {
		return fail(status.Newf(status.InvalidArgument, "push-constant size %d is not a multiple of 4", k.PushConstantSize))
	}
	constants := maps.Clone(k.Constants)
	if constants == nil {
		constants = map[uint32]uint32{}
	}
	wg, err := mod.SpecializeWorkgroup(entry, k.WorkgroupSize, constants)
	if err != nil {
		return fail(err)
	}
	bindings, sets := k.Bindings, slices.Clone(k.Sets)
	if bindings == 0 {
		for _, b := range mod.Bindings(entry) {
			for len(sets) <= int(b.Set) {
				sets = append(sets, 0)
			}
			sets[b.Set] = max(sets[b.Set], int(b.Binding)+1)
		}
		for _, n := range sets {
			bindings += n
		}
		if len(sets) < 2 {
			sets = nil
		}
	}
	k.WorkgroupSize, k.Bindings, k.Sets = wg, bindings, sets
	return kernels.Candidate{
		Name:             k.Name,
		Shader:           k.Name,
		SPIRV:            k.SPIRV,
		EntryPoint:       k.EntryPoint,
		Bindings:         bindings,
		Sets:             sets,
		PushConstantSize: k.PushConstantSize,
		WorkgroupSize:    wg,
		Constants:        hal.ConstantsOf(constants),
		Params:           maps.Clone(k.Params),
		Requires:         k.Requires.kernels(),
		Applies:          k.applies(),
		SubgroupSize:     k.SubgroupSize,
		FullSubgroups:    k.FullSubgroups,
	}, variant{*k, layoutOf(mod, entry, constants, hal.ExecutableDesc{Bindings: bindings, Sets: sets})}, nil
}

// applies is Applies for the catalogue's Size.
func (k Kernel) applies() func(kernels.Size) bool {
	if k.Applies == nil {
		return nil
	}
	return func(s kernels.Size) bool { return k.Applies(s.Extents()) }
}

// Pipeline is a Kernel built for one device, ready to Run.
type Pipeline struct {
	exe hal.Executable
	v   variant
	// tuned marks a pipeline a Tuner returned: the Tuner's, which every
	// later answer returns too, so its Release does nothing.
	tuned bool
}

// Build checks k's module and builds its pipeline on d. A malformed
// module, a missing entry point or a workgroup larger than the device
// allows is an error with code InvalidArgument or Unimplemented.
//
// The driver's compile cannot be interrupted: if ctx ends first, Build
// returns ctx's error at once, and the pipeline is released in the
// background when the compile is done.
func (d *Device) Build(ctx context.Context, k Kernel) (*Pipeline, error) {
	if d == nil || d.hal == nil {
		return nil, errNoDevice
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, v, err := k.candidate()
	if err != nil {
		return nil, err
	}
	if ctx.Done() == nil { // a context that never ends: nothing to wait beside
		p, err := d.build(v, c)
		return p, status.Annotatef(err, "vkbench: Build %q", k.Name)
	}
	var p *Pipeline
	done := make(chan struct{})
	go func() {
		defer close(done)
		p, err = d.build(v, c)
	}()
	select {
	case <-done:
		return p, status.Annotatef(err, "vkbench: Build %q", k.Name)
	case <-ctx.Done():
		go func() {
			<-done
			if err == nil {
				if err := p.Release(); err != nil && !errors.Is(err, hal.ErrReleased) {
					slog.Warn("vkbench: releasing the pipeline of an abandoned Build", "kernel", k.Name, "err", err)
				}
			}
		}()
		return nil, ctx.Err()
	}
}

func (d *Device) build(v variant, c kernels.Candidate) (*Pipeline, error) {
	if err := c.Supported(d.hal.Info()); err != nil {
		return nil, err
	}
	exe, err := d.hal.CreateExecutable(c.Executable())
	if err != nil {
		return nil, err
	}
	return &Pipeline{exe: exe, v: v}, nil
}

// need is the bytes one buffer of a Run must hold: its block's, with the
// kernel's constants.
type need struct {
	set, binding uint32
	bytes        int64
}

// layout is what a kernel's module says of what a Run gives it.
type layout struct {
	// buffers are what each buffer holds at least, in Run's order (set
	// by set); zero where the module says nothing.
	buffers []need
	// floats are the byte offsets of the push constants' 32-bit floats.
	floats []int
}

// variant is a Kernel checked against its module, with the layout its
// module gives a Run.
type variant struct {
	Kernel
	layout
}

// layoutOf returns the layout of entry, a kernel of desc's bindings, with
// constants applied.
func layoutOf(mod *spirv.Module, entry *spirv.Entry, spec map[uint32]uint32, desc hal.ExecutableDesc) layout {
	var l layout
	if fields, ok := mod.PushConstantFields(entry, spec); ok {
		for _, f := range fields {
			if f.Scalar == (spirv.Scalar{Kind: "float", Bits: 32}) {
				l.floats = append(l.floats, int(f.Offset))
			}
		}
	}
	l.buffers = make([]need, desc.Bindings)
	for _, b := range mod.Bindings(entry) {
		i, ok := desc.BindingIndex(b.Set, b.Binding)
		if !ok {
			continue // the driver's to refuse
		}
		if n, ok := mod.BufferBytes(b, spec); ok {
			l.buffers[i] = need{b.Set, b.Binding, int64(min(n, math.MaxInt64))}
		}
	}
	return l
}

// tooSmall says how buffer i, of size bytes, holds less than l asks of
// it, or is "" where it does not.
func (l layout) tooSmall(i int, size int64) string {
	if i >= len(l.buffers) || size >= l.buffers[i].bytes {
		return ""
	}
	n := l.buffers[i]
	return fmt.Sprintf("buffer %d (set %d binding %d) holds %d bytes; the kernel's block there takes %d",
		i, n.set, n.binding, size, n.bytes)
}

// intAsFloat says which of push's words is a float of l's that holds
// the bits of a small integer, as Push packs an untyped constant
// (Push(n, 2) for uint n; float a), or is "". Such bits are a float
// below 1.2e-38, which no kernel means and a GPU may take for 0.
func (l layout) intAsFloat(push []byte) string {
	for _, off := range l.floats {
		if off+4 > len(push) {
			continue // the wrong length is the driver's to refuse
		}
		if bits := binary.LittleEndian.Uint32(push[off:]); bits != 0 && bits < 1<<23 {
			return fmt.Sprintf("push constant at byte %d is a float in the kernel, and holds the integer %d (as a float, %g): pack it as float32(%d)", off, bits, math.Float32frombits(bits), bits)
		}
	}
	return ""
}

// Kernel returns the kernel the pipeline was built from, with its
// WorkgroupSize and Bindings as the module gave them if they were zero.
func (p *Pipeline) Kernel() Kernel { return p.v.Kernel }

// Release frees the pipeline once no Run uses it; it never waits for the
// GPU, and releasing twice is not an error. A pipeline a Tuner returned
// belongs to the Tuner: its Release does nothing, and the Device's Close
// frees it.
func (p *Pipeline) Release() error {
	if p.tuned {
		return nil
	}
	return p.exe.Release()
}

// Run dispatches p once on groups workgroups (x, y, z), with push as its
// push constants (nil if it has none) and buffers bound in order at
// bindings 0, 1, ... (set by set for a kernel of Sets), and waits for it
// to finish.
//
// Wrong arguments (too few buffers, push constants of the wrong size, a
// buffer of another device, no groups, a buffer smaller than the block
// its binding declares, such as float x[256] or float x[N] with N a
// specialization constant, a small integer packed where the kernel's
// push constants have a float) are errors with code InvalidArgument,
// naming what was wrong, and nothing runs. A block that ends in a runtime
// array (float x[]) takes any size. A failure on the GPU is returned
// here; if the device was lost it matches ErrDeviceLost. If ctx ends
// first, Run returns exactly its error and the dispatch finishes in the
// background; releasing its buffers and pipeline at once is safe.
func (d *Device) Run(ctx context.Context, p *Pipeline, groups [3]uint32, push []byte, buffers ...Binding) error {
	if d == nil || d.hal == nil {
		return errNoDevice
	}
	if p == nil {
		return status.New(status.InvalidArgument, "vkbench: Run: the pipeline is nil")
	}
	binds := make([]hal.Binding, len(buffers))
	for i, b := range buffers {
		if b != nil {
			binds[i] = b.bind()
		}
		if binds[i].Buffer == nil {
			return status.Newf(status.InvalidArgument, "vkbench: Run %q: buffer %d is nil", p.v.Name, i)
		}
		if what := p.v.tooSmall(i, binds[i].Size); what != "" {
			return status.Newf(status.InvalidArgument, "vkbench: Run %q: %s", p.v.Name, what)
		}
	}
	if what := p.v.intAsFloat(push); what != "" {
		return status.Newf(status.InvalidArgument, "vkbench: Run %q: %s", p.v.Name, what)
	}
	err := d.runOnce(ctx, func(cb hal.CommandBuffer) error {
		return cb.Dispatch(hal.Dispatch{Executable: p.exe, Bindings: binds, PushConstants: push, Groups: groups})
	})
	if err != nil { // a closed device fails before the dispatch is recorded
		return status.Annotatef(err, "vkbench: Run %q", p.v.Name)
	}
	return nil
}

// Groups returns the workgroups that cover n items when a workgroup
// covers perGroup of them: {⌈n/perGroup⌉, 1, 1}. For a kernel of workgroup
// size 64 in which each invocation handles 4 items, perGroup is 256.
func Groups(n, perGroup int) [3]uint32 {
	if n <= 0 || perGroup <= 0 {
		return [3]uint32{0, 1, 1} // Run refuses it: InvalidArgument
	}
	return [3]uint32{uint32(min((n+perGroup-1)/perGroup, math.MaxUint32)), 1, 1}
}

// Push packs push constants the way a std430 block of 32-bit members lays
// them out: each value in order, 4 bytes, little-endian. Integers (an
// untyped constant such as Push(4) is an int) are packed as 32 bits when
// they fit a uint32 or an int32, floats as float32. A value that is not a
// number, or an integer that does not fit 32 bits, is a programming
// error: Push panics naming it.
//
// Push cannot know the kernel's types, so give a float member a float:
// for "uint n; float a;", Push(n, float32(2)), not Push(n, 2), which Run
// refuses.
func Push(values ...any) []byte {
	out := make([]byte, 0, 4*len(values))
	for i, v := range values {
		w, err := pushWord(v)
		if err != nil {
			panic(fmt.Sprintf("vkbench.Push: value %d: %v", i, err))
		}
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	return out
}

// pushWord returns the 32 bits a push constant holds for v.
func pushWord(v any) (uint32, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := rv.Int(); n >= math.MinInt32 && n <= math.MaxUint32 {
			return uint32(n), nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if n := rv.Uint(); n <= math.MaxUint32 {
			return uint32(n), nil
		}
	case reflect.Float32, reflect.Float64:
		return math.Float32bits(float32(rv.Float())), nil
	default:
		return 0, fmt.Errorf("a %T is not a number", v)
	}
	return 0, fmt.Errorf("%v does not fit 32 bits", v)
}
