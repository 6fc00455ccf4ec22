package kernels

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/vkbench/vkbench/hal"
)

// This file reads, from a SPIR-V module that hal.ParseSPIRV has already
// found well formed, what a manifest needs to check against it and what
// hal.SPIRVModule does not say: the type of each specialization constant,
// how each entry point's workgroup size is set (a literal LocalSize, a
// LocalSizeId, or the WorkgroupSize built-in made of specialization
// constants, which overrides both), the kind of resource at each binding,
// the size of the push-constant block, the shared memory declared, and the
// capabilities used. Anything it cannot work out it leaves unknown, and
// the checks that need it are skipped rather than guessed.

// SPIR-V opcodes, decorations, storage classes and capabilities (from the
// SPIR-V specification).
const (
	spvOpCapability             = 17
	spvOpEntryPoint             = 15
	spvOpExecutionMode          = 16
	spvOpExecutionModeID        = 331
	spvOpDecorate               = 71
	spvOpMemberDecorate         = 72
	spvOpTypeBool               = 20
	spvOpTypeInt                = 21
	spvOpTypeFloat              = 22
	spvOpTypeVector             = 23
	spvOpTypeMatrix             = 24
	spvOpTypeArray              = 28
	spvOpTypeRuntimeArray       = 29
	spvOpTypeStruct             = 30
	spvOpTypePointer            = 32
	spvOpConstantTrue           = 41
	spvOpConstantFalse          = 42
	spvOpConstant               = 43
	spvOpConstantComposite      = 44
	spvOpSpecConstantTrue       = 48
	spvOpSpecConstantFalse      = 49
	spvOpSpecConstant           = 50
	spvOpSpecConstantComposite  = 51
	spvOpVariable               = 59
	spvExecModelGLCompute       = 5
	spvExecModeLocalSize        = 17
	spvExecModeLocalSizeID      = 38
	spvDecorationSpecID         = 1
	spvDecorationBlock          = 2
	spvDecorationBufferBlock    = 3
	spvDecorationArrayStride    = 6
	spvDecorationMatrixStride   = 7
	spvDecorationBuiltIn        = 11
	spvDecorationBinding        = 33
	spvDecorationDescriptorSet  = 34
	spvDecorationOffset         = 35
	spvBuiltInWorkgroupSize     = 25
	spvStorageUniformConstant   = 0
	spvStorageUniform           = 2
	spvStorageWorkgroup         = 4
	spvStoragePushConstant      = 9
	spvStorageStorageBuffer     = 12
	spvCapFloat16               = 9
	spvCapFloat64               = 10
	spvCapInt64                 = 11
	spvCapInt16                 = 22
	spvCapInt8                  = 39
	spvCapGroupNonUniform       = 61
	spvCapGroupNonUniformQuad   = 68
	spvCapStorageBuffer16Bit    = 4433
	spvCapUniformStorage16Bit   = 4434
	spvCapStoragePushConstant16 = 4435
	spvCapStorageBuffer8Bit     = 4448
	spvCapUniformStorage8Bit    = 4449
	spvCapStoragePushConstant8  = 4450
)

// spvType is one OpType*.
type spvType struct {
	op      uint32
	width   uint32 // int and float
	signed  bool
	elem    uint32 // vector, matrix, array, runtime array, pointer: the element or pointee
	count   uint32 // vector and matrix: a literal count; array: the id of the length
	members []uint32
	storage uint32 // pointer
}

// spvConst is a constant or specialization constant.
type spvConst struct {
	typ    uint32
	value  uint64
	spec   bool
	specID uint32 // if spec and decorated
	hasID  bool
	// parts are a composite's constituents.
	parts     []uint32
	composite bool
}

// specConstInfo describes one specialization constant by its constant_id.
type specConstInfo struct {
	kind  string // "bool", "int", "uint", "float", or "" when not a 32-bit scalar of those
	width uint32
	def   uint32 // the default value
}

// spvBinding is one descriptor a module declares.
type spvBinding struct {
	set, binding uint32
	// kind is "storage buffer", "uniform buffer" or "image or sampler".
	kind string
	var_ uint32
}

// spvEntry is one GLCompute entry point.
type spvEntry struct {
	name      string
	id        uint32
	iface     []uint32
	localSize *[3]uint32
	sizeIDs   *[3]uint32 // LocalSizeId operands
}

// spvModule is what manifests read of a module.
type spvModule struct {
	hal      *hal.SPIRVModule
	version  uint16
	caps     []uint32
	entries  map[string]*spvEntry
	types    map[uint32]*spvType
	consts   map[uint32]*spvConst
	specs    map[uint32]specConstInfo // by constant_id
	vars     map[uint32]uint32        // variable id -> pointer type id
	bindings []spvBinding
	// wgBuiltin is the id of the constant decorated WorkgroupSize, or 0.
	wgBuiltin uint32
	strides   map[uint32]uint32            // ArrayStride by type id
	offsets   map[uint32]map[uint32]uint32 // Offset by struct id and member
	mstrides  map[uint32]map[uint32]uint32 // MatrixStride by struct id and member
	blocks    map[uint32]uint32            // Block or BufferBlock by struct id
}

// reflectSPIRV reads code, which hal.ParseSPIRV accepted (so every
// instruction's word count is within the module).
func reflectSPIRV(code []byte, hm *hal.SPIRVModule) *spvModule {
	m := &spvModule{
		hal: hm, version: hm.Version, entries: map[string]*spvEntry{},
		types: map[uint32]*spvType{}, consts: map[uint32]*spvConst{}, specs: map[uint32]specConstInfo{},
		vars: map[uint32]uint32{}, strides: map[uint32]uint32{}, offsets: map[uint32]map[uint32]uint32{},
		mstrides: map[uint32]map[uint32]uint32{}, blocks: map[uint32]uint32{},
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(code[4*i:]) }
	n := len(code) / 4
	entryByID := map[uint32]*spvEntry{}
	specIDs := map[uint32]uint32{}
	sets := map[uint32]uint32{}
	binds := map[uint32]uint32{}
	type mode struct {
		entry, mode uint32
		ops         []uint32
	}
	var modes []mode
	for i := 5; i < n; {
		count, op := int(word(i)>>16), word(i)&0xffff
		if count == 0 || i+count > n {
			break // ParseSPIRV rejects this; be safe anyway
		}
		ops := make([]uint32, count-1)
		for k := range ops {
			ops[k] = word(i + 1 + k)
		}
		at := func(k int) uint32 {
			if k < len(ops) {
				return ops[k]
			}
			return 0
		}
		switch op {
		case spvOpCapability:
			m.caps = append(m.caps, at(0))
		case spvOpEntryPoint:
			if at(0) != spvExecModelGLCompute || len(ops) < 3 {
				break
			}
			name, ok := spirvName(code[4*(i+3) : 4*(i+count)])
			if !ok {
				break
			}
			words := (len(name) + 4) / 4
			e := &spvEntry{name: name, id: at(1)}
			if 2+words <= len(ops) {
				e.iface = slices.Clone(ops[2+words:])
			}
			m.entries[name] = e
			entryByID[e.id] = e
		case spvOpExecutionMode, spvOpExecutionModeID:
			if len(ops) >= 5 {
				modes = append(modes, mode{at(0), at(1), ops[2:5]})
			}
		case spvOpDecorate:
			target, dec := at(0), at(1)
			switch dec {
			case spvDecorationSpecID:
				specIDs[target] = at(2)
			case spvDecorationBinding:
				binds[target] = at(2)
			case spvDecorationDescriptorSet:
				sets[target] = at(2)
			case spvDecorationArrayStride:
				m.strides[target] = at(2)
			case spvDecorationBlock, spvDecorationBufferBlock:
				m.blocks[target] = dec
			case spvDecorationBuiltIn:
				if at(2) == spvBuiltInWorkgroupSize {
					m.wgBuiltin = target
				}
			}
		case spvOpMemberDecorate:
			s, member, dec := at(0), at(1), at(2)
			switch dec {
			case spvDecorationOffset:
				if m.offsets[s] == nil {
					m.offsets[s] = map[uint32]uint32{}
				}
				m.offsets[s][member] = at(3)
			case spvDecorationMatrixStride:
				if m.mstrides[s] == nil {
					m.mstrides[s] = map[uint32]uint32{}
				}
				m.mstrides[s][member] = at(3)
			}
		case spvOpTypeBool:
			m.types[at(0)] = &spvType{op: op}
		case spvOpTypeInt:
			m.types[at(0)] = &spvType{op: op, width: at(1), signed: at(2) != 0}
		case spvOpTypeFloat:
			m.types[at(0)] = &spvType{op: op, width: at(1)}
		case spvOpTypeVector, spvOpTypeMatrix, spvOpTypeArray:
			m.types[at(0)] = &spvType{op: op, elem: at(1), count: at(2)}
		case spvOpTypeRuntimeArray:
			m.types[at(0)] = &spvType{op: op, elem: at(1)}
		case spvOpTypeStruct:
			if len(ops) >= 1 {
				m.types[at(0)] = &spvType{op: op, members: slices.Clone(ops[1:])}
			}
		case spvOpTypePointer:
			m.types[at(0)] = &spvType{op: op, storage: at(1), elem: at(2)}
		case spvOpConstant, spvOpSpecConstant:
			v := uint64(at(2))
			if len(ops) > 3 {
				v |= uint64(at(3)) << 32
			}
			m.consts[at(1)] = &spvConst{typ: at(0), value: v, spec: op == spvOpSpecConstant}
		case spvOpConstantTrue, spvOpConstantFalse, spvOpSpecConstantTrue, spvOpSpecConstantFalse:
			v := uint64(0)
			if op == spvOpConstantTrue || op == spvOpSpecConstantTrue {
				v = 1
			}
			m.consts[at(1)] = &spvConst{typ: at(0), value: v, spec: op == spvOpSpecConstantTrue || op == spvOpSpecConstantFalse}
		case spvOpConstantComposite, spvOpSpecConstantComposite:
			if len(ops) >= 2 {
				m.consts[at(1)] = &spvConst{typ: at(0), composite: true, spec: op == spvOpSpecConstantComposite, parts: slices.Clone(ops[2:])}
			}
		case spvOpVariable:
			m.vars[at(1)] = at(0)
		}
		i += count
	}
	for _, md := range modes {
		e := entryByID[md.entry]
		if e == nil {
			continue
		}
		v := [3]uint32{md.ops[0], md.ops[1], md.ops[2]}
		switch md.mode {
		case spvExecModeLocalSize:
			e.localSize = &v
		case spvExecModeLocalSizeID:
			e.sizeIDs = &v
		}
	}
	for id, sid := range specIDs {
		c := m.consts[id]
		if c == nil || !c.spec {
			continue
		}
		c.specID, c.hasID = sid, true
		info := specConstInfo{def: uint32(c.value)}
		if t := m.types[c.typ]; t != nil {
			switch {
			case t.op == spvOpTypeBool:
				info.kind, info.width = "bool", 32
			case t.op == spvOpTypeInt && t.width == 32 && t.signed:
				info.kind, info.width = "int", 32
			case t.op == spvOpTypeInt && t.width == 32:
				info.kind, info.width = "uint", 32
			case t.op == spvOpTypeFloat && t.width == 32:
				info.kind, info.width = "float", 32
			default:
				info.width = t.width
			}
		}
		m.specs[sid] = info
	}
	for id, ptr := range m.vars {
		b, ok := binds[id]
		if !ok {
			continue
		}
		kind := "image or sampler"
		if t := m.types[ptr]; t != nil {
			switch t.storage {
			case spvStorageStorageBuffer:
				kind = "storage buffer"
			case spvStorageUniform:
				kind = "uniform buffer"
				if m.blocks[m.types[ptr].elem] == spvDecorationBufferBlock {
					kind = "storage buffer"
				}
			}
		}
		m.bindings = append(m.bindings, spvBinding{set: sets[id], binding: b, kind: kind, var_: id})
	}
	slices.SortFunc(m.bindings, func(a, b spvBinding) int {
		return int(a.set<<16|a.binding) - int(b.set<<16|b.binding)
	})
	return m
}

// spirvName decodes a nul-terminated literal string.
func spirvName(b []byte) (string, bool) {
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), true
		}
	}
	return "", false
}

// uses reports whether entry e statically uses variable id. Before SPIR-V
// 1.4 an entry point's interface lists only its inputs and outputs, so
// every variable counts as used.
func (m *spvModule) uses(e *spvEntry, id uint32) bool {
	if m.version < 0x0104 {
		return true
	}
	return slices.Contains(e.iface, id)
}

// entryBindings returns the descriptors entry e uses.
func (m *spvModule) entryBindings(e *spvEntry) []spvBinding {
	var out []spvBinding
	for _, b := range m.bindings {
		if m.uses(e, b.var_) {
			out = append(out, b)
		}
	}
	return out
}

// constValue returns the value of constant id with the specialization
// constants set as in spec (constant_id -> value), or false if it is not
// a scalar constant whose value is known without evaluating
// OpSpecConstantOp.
func (m *spvModule) constValue(id uint32, spec map[uint32]uint32) (uint64, bool) {
	c := m.consts[id]
	if c == nil || c.composite {
		return 0, false
	}
	if c.spec && c.hasID {
		if v, ok := spec[c.specID]; ok {
			return uint64(v), true
		}
	}
	return c.value, true
}

// wgSource says where one component of a workgroup size comes from.
type wgSource struct {
	value  uint32
	known  bool
	specID uint32 // when spec: the constant_id that sets it
	spec   bool
}

// workgroup returns how entry e's workgroup size is set, component by
// component, before any specialization: the WorkgroupSize built-in
// overrides LocalSizeId, which overrides LocalSize.
func (m *spvModule) workgroup(e *spvEntry) ([3]wgSource, string) {
	var out [3]wgSource
	from := func(ids []uint32) {
		for i, id := range ids[:min(3, len(ids))] {
			c := m.consts[id]
			if c == nil || c.composite {
				continue
			}
			out[i] = wgSource{value: uint32(c.value), known: true}
			if c.spec {
				out[i].spec, out[i].specID = c.hasID, c.specID
				out[i].known = c.hasID || !c.spec
			}
		}
	}
	switch {
	case m.wgBuiltin != 0:
		c := m.consts[m.wgBuiltin]
		if c != nil && c.composite {
			from(c.parts)
		}
		if c != nil && !c.spec {
			return out, "a literal local_size"
		}
		return out, "the WorkgroupSize built-in"
	case e.sizeIDs != nil:
		from(e.sizeIDs[:])
		return out, "LocalSizeId"
	case e.localSize != nil:
		for i, v := range e.localSize {
			out[i] = wgSource{value: v, known: true}
		}
		return out, "LocalSize"
	}
	return out, ""
}

// pushConstantSize returns the size in bytes of the push-constant block
// entry e uses (the end of its last member), 0 if none, and false if the
// size cannot be worked out.
func (m *spvModule) pushConstantSize(e *spvEntry) (uint64, bool) {
	for id, ptr := range m.vars {
		t := m.types[ptr]
		if t == nil || t.storage != spvStoragePushConstant || !m.uses(e, id) {
			continue
		}
		return m.explicitSize(t.elem, nil, 0)
	}
	return 0, true
}

// explicitSize returns the size of a type laid out explicitly (Offset,
// ArrayStride and MatrixStride decorations), as push-constant blocks are.
func (m *spvModule) explicitSize(id uint32, spec map[uint32]uint32, depth int) (uint64, bool) {
	t := m.types[id]
	if t == nil || depth > 16 {
		return 0, false
	}
	switch t.op {
	case spvOpTypeBool:
		return 4, true
	case spvOpTypeInt, spvOpTypeFloat:
		return uint64(t.width / 8), true
	case spvOpTypeVector:
		s, ok := m.explicitSize(t.elem, spec, depth+1)
		return s * uint64(t.count), ok
	case spvOpTypeMatrix:
		s, ok := m.explicitSize(t.elem, spec, depth+1)
		return s * uint64(t.count), ok
	case spvOpTypeArray:
		n, ok := m.constValue(t.count, spec)
		if !ok {
			return 0, false
		}
		stride := uint64(m.strides[id])
		if stride == 0 {
			var ok bool
			if stride, ok = m.explicitSize(t.elem, spec, depth+1); !ok {
				return 0, false
			}
		}
		return n * stride, true
	case spvOpTypeRuntimeArray:
		return 0, true
	case spvOpTypeStruct:
		var end uint64
		var off uint64
		for i, mt := range t.members {
			if o, ok := m.offsets[id][uint32(i)]; ok {
				off = uint64(o)
			}
			s, ok := m.explicitSize(mt, spec, depth+1)
			if !ok {
				return 0, false
			}
			if ms, ok := m.mstrides[id][uint32(i)]; ok {
				if mt := m.types[mt]; mt != nil && mt.op == spvOpTypeMatrix {
					s = uint64(ms) * uint64(mt.count)
				}
			}
			end = max(end, off+s)
			off += s
		}
		return end, true
	}
	return 0, false
}

// sharedMemory returns the bytes of workgroup memory entry e declares,
// with the specialization constants set as in spec (array lengths are
// often constants such as the workgroup size), and false if a size
// cannot be worked out.
func (m *spvModule) sharedMemory(e *spvEntry, spec map[uint32]uint32) (uint64, bool) {
	var total uint64
	for id, ptr := range m.vars {
		t := m.types[ptr]
		if t == nil || t.storage != spvStorageWorkgroup || !m.uses(e, id) {
			continue
		}
		s, ok := m.explicitSize(t.elem, spec, 0)
		if !ok {
			return 0, false
		}
		total += s
	}
	return total, true
}

// requirements returns what the module's capabilities need of a device,
// as Requirements, and the capabilities Requirements cannot express.
func (m *spvModule) requirements() (Requirements, []string) {
	var r Requirements
	var other []string
	for _, c := range m.caps {
		switch {
		case c == spvCapFloat16:
			r.Float16 = true
		case c == spvCapInt64:
			r.Int64 = true
		case spvCapGroupNonUniform <= c && c <= spvCapGroupNonUniformQuad:
			r.Subgroup |= hal.SubgroupOps(1) << (c - spvCapGroupNonUniform)
		case c == spvCapFloat64:
			other = append(other, "Float64")
		case c == spvCapInt16:
			other = append(other, "Int16")
		case c == spvCapInt8:
			other = append(other, "Int8")
		case c == spvCapStorageBuffer16Bit, c == spvCapUniformStorage16Bit, c == spvCapStoragePushConstant16:
			other = append(other, "StorageBuffer16BitAccess")
		case c == spvCapStorageBuffer8Bit, c == spvCapUniformStorage8Bit, c == spvCapStoragePushConstant8:
			other = append(other, "StorageBuffer8BitAccess")
		}
	}
	if r.Subgroup != 0 {
		r.Subgroup |= hal.SubgroupBasic
	}
	slices.Sort(other)
	return r, slices.Compact(other)
}

// missingFeature returns the first capability in caps (as requirements
// returns them) that info lacks, or "".
func missingFeature(caps []string, info hal.DeviceInfo) string {
	f := info.Features
	for _, c := range caps {
		ok := true
		switch c {
		case "Float64":
			ok = f.Float64
		case "Int16":
			ok = f.Int16
		case "Int8":
			ok = f.Int8
		case "StorageBuffer16BitAccess":
			ok = f.Storage16
		case "StorageBuffer8BitAccess":
			ok = f.Storage8
		}
		if !ok {
			return c
		}
	}
	return ""
}

func (b spvBinding) String() string {
	return fmt.Sprintf("set %d binding %d (%s)", b.set, b.binding, b.kind)
}
