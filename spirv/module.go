package spirv

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/vkbench/vkbench/internal/enum"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/status"
)

// Module is what vkbench reads of a SPIR-V module. Its methods answer
// about one entry point at a time; it is safe for concurrent use.
type Module struct {
	// Version is the SPIR-V version as major<<8 | minor (0x0105 is 1.5).
	Version uint16
	// Capabilities are the capabilities the module declares, sorted.
	Capabilities []uint32

	entries  []*Entry // GLCompute entry points, in the module's order
	byName   map[string]*Entry
	types    map[uint32]*typ
	consts   map[uint32]*constant
	specs    map[uint32]SpecConstant // by constant_id
	vars     map[uint32]uint32       // variable id -> pointer type id
	bindings []Binding
	// wgBuiltin is the id of the constant decorated WorkgroupSize, or 0.
	wgBuiltin uint32
	// decorations are what OpDecorate and OpMemberDecorate say, by id,
	// member (noMember for the id itself) and decoration: the first
	// operand, 0 for none.
	decorations map[[3]uint32]uint32
}

// noMember is the member of an id's own decorations.
const noMember = ^uint32(0)

// decoration returns the operand of decoration dec of id (member noMember)
// or of one of its members, and whether it is decorated so.
func (m *Module) decoration(id, member, dec uint32) (uint32, bool) {
	v, ok := m.decorations[[3]uint32{id, member, dec}]
	return v, ok
}

// Entry is a GLCompute entry point of a Module.
type Entry struct {
	Name      string
	id        uint32
	iface     []uint32
	localSize *[3]uint32
	sizeIDs   *[3]uint32 // LocalSizeId operands
}

// typ is one OpType*.
type typ struct {
	op      Op
	width   uint32 // int and float
	signed  bool
	elem    uint32 // vector, matrix, array, runtime array, pointer: the element or pointee
	count   uint32 // vector and matrix: a literal count; array: the id of the length
	members []uint32
	storage uint32 // pointer
	image   *Image // image: elem is the sampled type
	sampled uint32 // image: 1 sampled, 2 storage, 0 known only at run time
}

// constant is a constant or a specialization constant.
type constant struct {
	typ       uint32
	value     uint64
	spec      bool
	specID    uint32 // if spec and decorated
	hasID     bool
	composite bool
	parts     []uint32 // a composite's constituents, an operation's operands
	// op is an OpSpecConstantOp's operation, 0 for other constants.
	op Op
}

// SpecConstant describes one specialization constant.
type SpecConstant struct {
	// Kind is "bool", "int", "uint" or "float" for the 32-bit scalars a
	// caller can set, "" for others.
	Kind string
	// Width is the constant's width in bits.
	Width uint32
	// Default is the module's value (its low 32 bits).
	Default uint32
}

// DescriptorKind is what a binding holds.
type DescriptorKind uint8

const (
	// StorageBuffer is a buffer block in the StorageBuffer storage class
	// (or, before SPIR-V 1.3, a BufferBlock in Uniform).
	StorageBuffer DescriptorKind = iota
	// UniformBuffer is a Block in the Uniform storage class.
	UniformBuffer
	// OtherDescriptor is a separate image or sampler, an array of
	// descriptors, or anything else that is neither a buffer nor one of
	// the images below.
	OtherDescriptor
	// StorageImage is an image read and written by coordinates (GLSL
	// image2D and friends: Sampled 2).
	StorageImage
	// SampledImage is an image combined with its sampler (GLSL sampler2D
	// and friends: OpTypeSampledImage).
	SampledImage
)

// String returns "storage buffer", "uniform buffer", "storage image",
// "sampled image" or "other descriptor".
func (k DescriptorKind) String() string {
	return enum.Name(k, kindNames[:], kindNames[OtherDescriptor])
}

var kindNames = [...]string{StorageBuffer: "storage buffer", UniformBuffer: "uniform buffer", StorageImage: "storage image",
	SampledImage: "sampled image", OtherDescriptor: "other descriptor (a separate image or sampler, or an array)"}

// ImageDim is an image's dimensionality, SPIR-V's Dim.
type ImageDim uint32

// The dimensionalities.
const (
	Dim1D ImageDim = iota
	Dim2D
	Dim3D
	DimCube
	DimRect
	DimBuffer
	DimSubpassData
)

var dimNames = []string{"1D", "2D", "3D", "Cube", "Rect", "Buffer", "SubpassData"}

// String returns "1D", "2D", "3D", "Cube", "Rect", "Buffer" or
// "SubpassData".
func (d ImageDim) String() string { return enum.Name(d, dimNames, "Dim(%d)") }

// ImageFormat is the format an image type declares, SPIR-V's Image
// Format; Unknown for sampled images and storage images without one.
type ImageFormat uint32

// Unknown is the format of an image that declares none.
const Unknown ImageFormat = 0

// formatNames are GLSL's layout qualifiers of SPIR-V's image formats, in
// the order of their values (Rgba32f is 1, R32ui 33).
var formatNames = []string{"unknown", "rgba32f", "rgba16f", "r32f", "rgba8", "rgba8_snorm", "rg32f", "rg16f",
	"r11f_g11f_b10f", "r16f", "rgba16", "rgb10_a2", "rg16", "rg8", "r16", "r8", "rgba16_snorm", "rg16_snorm",
	"rg8_snorm", "r16_snorm", "r8_snorm", "rgba32i", "rgba16i", "rgba8i", "r32i", "rg32i", "rg16i", "rg8i", "r16i",
	"r8i", "rgba32ui", "rgba16ui", "rgba8ui", "r32ui", "rgb10_a2ui", "rg32ui", "rg16ui", "rg8ui", "r16ui", "r8ui",
	"r64ui", "r64i"}

// String returns the format as GLSL's layout qualifier names it
// ("rgba8", "r32ui"), or "unknown".
func (f ImageFormat) String() string { return enum.Name(f, formatNames, "format(%d)") }

// Image is what an image binding declares.
type Image struct {
	Dim          ImageDim
	Arrayed      bool
	Multisampled bool
	// Format is the declared format: a storage image's layout qualifier,
	// Unknown for a sampled image.
	Format ImageFormat
	// Component is the kind of the sampled type: "float", "int" or
	// "uint" (GLSL's image2D, iimage2D, uimage2D).
	Component string
}

// Binding is one descriptor a module declares.
type Binding struct {
	Set, Binding uint32
	Kind         DescriptorKind
	// Image describes a StorageImage or SampledImage; it is zero for
	// the other kinds.
	Image Image
	// Element is, for a storage buffer whose block ends in a runtime
	// array, the scalar type of the array's elements, through vectors and
	// arrays ("float" of 32 bits for a vec4[]); zero where the elements
	// are structs or the block has no runtime array.
	Element  Scalar
	variable uint32
}

// Scalar is a numeric type of a module: "float", "int" or "uint", of
// Bits bits. The zero Scalar is none.
type Scalar struct {
	Kind string
	Bits uint32
}

// String is the kind and width, as "float32", or "none".
func (s Scalar) String() string {
	if s.Kind == "" {
		return "none"
	}
	return fmt.Sprintf("%s%d", s.Kind, s.Bits)
}

// bufferElement returns the scalar type of the runtime array that ends
// the block of type id (a struct), through vectors and fixed arrays.
func (m *Module) bufferElement(id uint32) Scalar {
	t := m.types[id]
	if t == nil || t.op != OpTypeStruct || len(t.members) == 0 {
		return Scalar{}
	}
	t = m.types[t.members[len(t.members)-1]]
	if t == nil || t.op != OpTypeRuntimeArray {
		return Scalar{}
	}
	for t = m.types[t.elem]; t != nil && (t.op == OpTypeVector || t.op == OpTypeArray); t = m.types[t.elem] {
	}
	return t.scalar()
}

// scalar returns the numeric type t is, or none; t may be nil.
func (t *typ) scalar() Scalar {
	switch {
	case t == nil:
	case t.op == OpTypeFloat:
		return Scalar{"float", t.width}
	case t.op == OpTypeInt && t.signed:
		return Scalar{"int", t.width}
	case t.op == OpTypeInt:
		return Scalar{"uint", t.width}
	}
	return Scalar{}
}

// String says where the binding is and what it holds, as
// "set 0 binding 1 (storage buffer)" or
// "set 0 binding 2 (storage image 2D rgba8)".
func (b Binding) String() string {
	dim := b.Image.Dim.String()
	if b.Image.Arrayed {
		dim += " array"
	}
	if b.Image.Multisampled {
		dim += " multisampled"
	}
	switch b.Kind {
	case StorageImage:
		return fmt.Sprintf("set %d binding %d (%s %s %s)", b.Set, b.Binding, b.Kind, dim, b.Image.Format)
	case SampledImage:
		return fmt.Sprintf("set %d binding %d (%s %s)", b.Set, b.Binding, b.Kind, dim)
	}
	return fmt.Sprintf("set %d binding %d (%s)", b.Set, b.Binding, b.Kind)
}

// imageKind returns the kind of a UniformConstant variable of type id,
// and its image if it is one: a storage image (Sampled 2), or a sampled
// image of a sampled one (Sampled 1). Arrays of them are other
// descriptors: vkbench binds one descriptor per binding.
func (m *Module) imageKind(id uint32) (DescriptorKind, Image) {
	t := m.types[id]
	if t == nil {
		return OtherDescriptor, Image{}
	}
	kind := StorageImage
	if t.op == OpTypeSampledImage {
		kind, t = SampledImage, m.types[t.elem]
	}
	if t == nil || t.op != OpTypeImage || kind == StorageImage && t.sampled != 2 || kind == SampledImage && t.sampled == 2 {
		return OtherDescriptor, Image{}
	}
	img := *t.image
	img.Component = m.types[t.elem].scalar().Kind
	return kind, img
}

// EntryPoints returns the names of the GLCompute entry points, in the
// module's order.
func (m *Module) EntryPoints() []string {
	return par.Map(m.entries, func(e *Entry) string { return e.Name })
}

// Entry returns the GLCompute entry point name ("main" if empty); one the
// module lacks is InvalidArgument, naming those it has.
func (m *Module) Entry(name string) (*Entry, error) {
	name = cmp.Or(name, "main")
	if e, ok := m.byName[name]; ok {
		return e, nil
	}
	return nil, status.Newf(status.InvalidArgument, "spirv: no GLCompute entry point %q (the module has %q)", name, m.EntryPoints())
}

// Check parses code and checks that it has the GLCompute entry point
// entry ("main" if empty): what a backend asks before a driver sees the
// module.
func Check(code []byte, entry string) (*Module, *Entry, error) {
	m, err := Parse(code)
	if err != nil {
		return nil, nil, err
	}
	e, err := m.Entry(entry)
	if err != nil {
		return nil, nil, err
	}
	return m, e, nil
}

// SpecConstant returns the specialization constant with constant_id id.
func (m *Module) SpecConstant(id uint32) (SpecConstant, bool) {
	s, ok := m.specs[id]
	return s, ok
}

// SpecIDs returns the constant_id of every specialization constant, sorted.
func (m *Module) SpecIDs() []uint32 { return slices.Sorted(maps.Keys(m.specs)) }

// uses reports whether entry e statically uses variable id. Before SPIR-V
// 1.4 an entry point's interface lists only its inputs and outputs, so
// every variable counts as used.
func (m *Module) uses(e *Entry, id uint32) bool {
	if m.Version < 0x0104 {
		return true
	}
	return slices.Contains(e.iface, id)
}

// blocks returns the types of the variables of storage class storage that
// entry e uses.
func (m *Module) blocks(e *Entry, storage uint32) []uint32 {
	var out []uint32
	for id, ptr := range m.vars {
		if t := m.types[ptr]; t != nil && t.op == OpTypePointer && t.storage == storage && m.uses(e, id) {
			out = append(out, t.elem)
		}
	}
	return out
}

// Bindings returns the descriptors entry e uses, sorted by set and
// binding.
func (m *Module) Bindings(e *Entry) []Binding {
	return slices.DeleteFunc(slices.Clone(m.bindings), func(b Binding) bool { return !m.uses(e, b.variable) })
}

// Dim says where one component of a workgroup size comes from.
type Dim struct {
	// Value is the component before specialization.
	Value uint32
	// Known is false when the component is computed from other constants
	// (OpSpecConstantOp): Value is then what it comes to with their
	// defaults (0 if that cannot be worked out).
	Known bool
	// Spec is set when a specialization constant, SpecID, sets it.
	Spec   bool
	SpecID uint32
}

// Workgroup returns how entry e's workgroup size is set, component by
// component, before any specialization (the package doc's Rules), and
// from what: "the WorkgroupSize built-in" (of specialization constants),
// "LocalSizeId", "a literal local_size", or "" when the module sets none.
func (m *Module) Workgroup(e *Entry) ([3]Dim, string) {
	var out [3]Dim
	ids, how := m.workgroupIDs(e)
	if ids == nil && how != "" {
		for i, v := range e.localSize {
			out[i] = Dim{Value: v, Known: true}
		}
	}
	z := m.sizer(nil)
	for i, id := range ids[:min(3, len(ids))] {
		c := m.consts[id]
		if c == nil || c.composite {
			continue
		}
		v, _ := z.value(id, 0)
		out[i] = Dim{Value: uint32(v), Known: c.op == 0 && (!c.spec || c.hasID), Spec: c.spec && c.hasID, SpecID: c.specID}
	}
	return out, how
}

// workgroupIDs returns the constants that set entry e's workgroup size
// (nil for a literal LocalSize) and how it is set, as Workgroup says.
func (m *Module) workgroupIDs(e *Entry) ([]uint32, string) {
	switch {
	case m.wgBuiltin != 0:
		c := m.consts[m.wgBuiltin]
		var parts []uint32
		if c != nil && c.composite {
			parts = c.parts
		}
		if c != nil && !c.spec {
			return parts, "a literal local_size"
		}
		return parts, "the WorkgroupSize built-in"
	case e.sizeIDs != nil:
		return e.sizeIDs[:], "LocalSizeId"
	case e.localSize != nil:
		return nil, "a literal local_size"
	}
	return nil, ""
}

// WorkgroupSize returns entry e's workgroup size with the specialization
// constants set as in spec (constant_id -> value), and false when the
// module sets none or a component cannot be worked out.
func (m *Module) WorkgroupSize(e *Entry, spec map[uint32]uint32) ([3]uint32, bool) {
	var wg [3]uint32
	ids, how := m.workgroupIDs(e)
	switch {
	case how == "":
		return wg, false
	case ids == nil:
		return *e.localSize, true
	case len(ids) < 3:
		return wg, false
	}
	z := m.sizer(spec)
	for i := range wg {
		v, ok := z.value(ids[i], 0)
		if !ok {
			return wg, false
		}
		wg[i] = uint32(v)
	}
	return wg, true
}

// SpecializeWorkgroup is the one rule for the workgroup size of a
// pipeline of entry e, whoever builds it (the package doc's Rules):
// without a size given (zero), the module's with the constants in spec
// (WorkgroupSize); a size given sets in spec (which must not then be nil)
// the constants of the components spec does not. Every failure of the
// rule is InvalidArgument.
func (m *Module) SpecializeWorkgroup(e *Entry, given [3]uint32, spec map[uint32]uint32) ([3]uint32, error) {
	dims, how := m.Workgroup(e)
	if how == "" {
		return given, status.Newf(status.InvalidArgument, "spirv: entry point %q declares no workgroup size", e.Name)
	}
	if given == [3]uint32{} {
		wg, ok := m.WorkgroupSize(e, spec)
		if !ok {
			return wg, status.Newf(status.InvalidArgument, "spirv: the workgroup size of %q (%s) cannot be worked out with these constants: state it", e.Name, how)
		}
		if i := slices.Index(wg[:], 0); i >= 0 {
			return wg, status.Newf(status.InvalidArgument, "spirv: local_size_%c of %q is 0", "xyz"[i], e.Name)
		}
		return wg, nil
	}
	for i, d := range dims {
		axis := "xyz"[i]
		switch {
		case given[i] == 0:
			return given, status.Newf(status.InvalidArgument, "spirv: workgroup size %v has a zero", given)
		case d.Spec:
			if v, ok := spec[d.SpecID]; ok && v != given[i] {
				return given, status.Newf(status.InvalidArgument, "spirv: local_size_%c of %q is constant_id %d, which the constants set to %d, not %d", axis, e.Name, d.SpecID, v, given[i])
			}
			spec[d.SpecID] = given[i]
		case d.Known && d.Value != given[i]:
			return given, status.Newf(status.InvalidArgument, "spirv: the module fixes local_size_%c of %q at %d (%s), not %d", axis, e.Name, d.Value, how, given[i])
		}
	}
	return given, nil
}

// PushConstantBytes returns the size of the push-constant block entry e
// uses (the end of its last member), 0 if it uses none, and false if the
// size cannot be worked out.
func (m *Module) PushConstantBytes(e *Entry, spec map[uint32]uint32) (int, bool) {
	blocks := m.blocks(e, storagePushConstant) // one at most
	if len(blocks) == 0 {
		return 0, true
	}
	n, ok := m.sizer(spec).size(blocks[0], 0)
	if !ok || n > 1<<31 {
		return 0, false
	}
	return int(n), true
}

// BufferBytes returns the bytes that b, one of m's buffer Bindings, takes
// at least, with the specialization constants set as in spec (the package
// doc's Rules); false where b is not a buffer, is an array of them, or a
// size cannot be worked out.
func (m *Module) BufferBytes(b Binding, spec map[uint32]uint32) (uint64, bool) {
	t := m.types[m.vars[b.variable]]
	if b.Kind != StorageBuffer && b.Kind != UniformBuffer || t == nil || t.op != OpTypePointer {
		return 0, false
	}
	if block := m.types[t.elem]; block == nil || block.op != OpTypeStruct {
		return 0, false
	}
	return m.sizer(spec).size(t.elem, 0)
}

// SharedMemory returns the bytes of workgroup memory entry e declares,
// with the specialization constants set as in spec, and false if a size
// cannot be worked out.
func (m *Module) SharedMemory(e *Entry, spec map[uint32]uint32) (uint64, bool) {
	var total uint64
	z := m.sizer(spec)
	for _, block := range m.blocks(e, storageWorkgroup) {
		s, ok := z.size(block, 0)
		if !ok {
			return 0, false
		}
		total += s
	}
	return total, true
}

// sizer sizes types laid out explicitly (Offset, ArrayStride and
// MatrixStride decorations), as push-constant blocks are; workgroup
// memory, which has no layout, is sized the same way, tightly. Each type
// is sized once, so that a module of structs nesting structs many times
// over costs no more than its length.
type sizer struct {
	m    *Module
	spec map[uint32]uint32
	memo map[uint32]uint64 // bytes by type id; sizeUnknown when unknown
	// values are the scalar constants worked out so far (value).
	values map[uint32]worked
}

const sizeUnknown = ^uint64(0)

func (m *Module) sizer(spec map[uint32]uint32) *sizer {
	return &sizer{m: m, spec: spec, memo: map[uint32]uint64{}, values: map[uint32]worked{}}
}

// size returns the size of type id, and false if it cannot be worked out.
func (z *sizer) size(id uint32, depth int) (uint64, bool) {
	if n, ok := z.memo[id]; ok {
		return n, n != sizeUnknown
	}
	n, ok := z.sizeOf(id, depth)
	if depth <= 16 { // past that, the answer says only that the chain was long
		if !ok {
			n = sizeUnknown
		}
		z.memo[id] = n
	}
	return n, ok
}

func (z *sizer) sizeOf(id uint32, depth int) (uint64, bool) {
	m := z.m
	t := m.types[id]
	if t == nil || depth > 16 {
		return 0, false
	}
	switch t.op {
	case OpTypeBool:
		return 4, true
	case OpTypeInt, OpTypeFloat:
		if t.width%8 != 0 {
			return 0, false
		}
		return uint64(t.width / 8), true
	case OpTypeVector, OpTypeMatrix:
		s, ok := z.size(t.elem, depth+1)
		return s * uint64(t.count), ok
	case OpTypeArray:
		// The length, a scalar constant, with the specialization
		// constants set as in spec.
		n, ok := z.value(t.count, 0)
		if !ok {
			return 0, false
		}
		if stride, _ := m.decoration(id, noMember, decorationArrayStride); stride != 0 {
			return n * uint64(stride), true
		}
		s, ok := z.size(t.elem, depth+1)
		return n * s, ok
	case OpTypeRuntimeArray:
		return 0, true
	case OpTypeStruct:
		return z.structSize(id, t, depth)
	}
	return 0, false
}

// structSize sizes a struct: the end of its furthest member. A member
// without an Offset follows the one before it.
func (z *sizer) structSize(id uint32, t *typ, depth int) (uint64, bool) {
	m := z.m
	var end, off uint64
	for i, mt := range t.members {
		if o, ok := m.decoration(id, uint32(i), decorationOffset); ok {
			off = uint64(o)
		}
		s, ok := z.size(mt, depth+1)
		if !ok {
			return 0, false
		}
		if ms, ok := m.decoration(id, uint32(i), decorationMatrixStride); ok {
			if mtt := m.types[mt]; mtt != nil && mtt.op == OpTypeMatrix {
				// Column-major: a stride per column; row-major: per row,
				// as many as the column vectors have components.
				lines := uint64(mtt.count)
				_, rowMajor := m.decoration(id, uint32(i), decorationRowMajor)
				if col := m.types[mtt.elem]; rowMajor && col != nil {
					lines = uint64(col.count)
				}
				s = uint64(ms) * lines
			}
		}
		end = max(end, off+s)
		off += s
	}
	return end, true
}
