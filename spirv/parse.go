package spirv

import (
	"bytes"
	"slices"
	"sync"

	"github.com/vkbench/vkbench/status"
)

// Parse checks the structure of a SPIR-V module and reads it: Words'
// checks, the version (1.0 to 1.6), functions that nest and end, entry
// points that name functions. Any problem is InvalidArgument and names
// what is wrong and where. The Module is shared: callers must not modify
// it, nor code after the call.
func Parse(code []byte) (*Module, error) {
	modules.mu.Lock()
	m, ok := modules.byCode[string(code)]
	modules.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := parse(code)
	if err != nil {
		return nil, err
	}
	modules.mu.Lock()
	defer modules.mu.Unlock()
	if modules.byCode == nil || len(modules.byCode) >= memoSize {
		modules.byCode = map[string]*Module{}
	}
	modules.byCode[string(code)] = m // a copy of code: callers may reuse their slices
	return m, nil
}

// modules are the modules Parse remembers, by their code: up to
// memoSize, past which it starts over rather than grow without end.
var modules struct {
	mu     sync.Mutex
	byCode map[string]*Module
}

const memoSize = 512

func parse(code []byte) (*Module, error) {
	words, err := Words(code)
	if err != nil {
		return nil, err
	}
	ver := words[1]
	major, minor := ver>>16&0xff, ver>>8&0xff
	if ver&0xff0000ff != 0 || major != 1 || minor > 6 {
		return nil, status.Newf(status.InvalidArgument, "spirv: unsupported version word 0x%08x (want 1.0 to 1.6)", ver)
	}
	if words[3] == 0 {
		return nil, status.New(status.InvalidArgument, "spirv: id bound is 0")
	}
	r := &reader{
		m: &Module{
			Version: uint16(major<<8 | minor), byName: map[string]*Entry{}, types: map[uint32]*typ{}, consts: map[uint32]*constant{},
			vars: map[uint32]uint32{}, decorations: map[[3]uint32]uint32{}, specs: map[uint32]SpecConstant{},
		},
		open: -1, functions: map[uint32]bool{},
	}
	for i, ins := range Instructions(words) {
		if err := r.instruction(i, Opcode(ins), ins[1:]); err != nil {
			return nil, err
		}
	}
	return r.finish()
}

// reader is the state of one pass over a module.
type reader struct {
	m *Module
	// open is the word index of the OpFunction not yet ended, or -1.
	open      int
	functions map[uint32]bool
	modes     []execMode
}

type execMode struct {
	entry, mode uint32
	ops         [3]uint32
}

// need checks that the instruction at word i has at least min operands.
func need(i int, op Op, ops []uint32, min int) error {
	if len(ops) < min {
		return status.Newf(status.InvalidArgument, "spirv: instruction at word %d (opcode %d) has %d words, needs at least %d", i, op, len(ops)+1, min+1)
	}
	return nil
}

// minOperands are the operands an instruction must have for the reader to
// take it (decorations are checked where they are read).
var minOperands = map[Op]int{OpFunction: 4, OpEntryPoint: 3, OpExecutionMode: 2, OpExecutionModeID: 2, OpCapability: 1}

// instruction reads one instruction at word i: what checks the structure,
// then what the queries need.
func (r *reader) instruction(i int, op Op, ops []uint32) error {
	m := r.m
	if err := need(i, op, ops, minOperands[op]); err != nil {
		return err
	}
	switch op {
	case OpFunction:
		if r.open >= 0 {
			return status.Newf(status.InvalidArgument, "spirv: OpFunction at word %d begins inside the function begun at word %d", i, r.open)
		}
		r.open = i
		r.functions[ops[1]] = true
	case OpFunctionEnd:
		if r.open < 0 {
			return status.Newf(status.InvalidArgument, "spirv: OpFunctionEnd at word %d ends no function", i)
		}
		r.open = -1
	case OpEntryPoint:
		return r.entryPoint(i, ops)
	case OpExecutionMode, OpExecutionModeID:
		if mode := ops[1]; mode == execModeLocalSize || mode == execModeLocalSizeID {
			if err := need(i, op, ops, 5); err != nil {
				return err
			}
			r.modes = append(r.modes, execMode{ops[0], mode, [3]uint32{ops[2], ops[3], ops[4]}})
		}
	case OpCapability:
		m.Capabilities = append(m.Capabilities, ops[0])
	case OpDecorate, OpMemberDecorate:
		return r.decorate(i, op, ops)
	case OpVariable:
		if len(ops) >= 3 {
			m.vars[ops[1]] = ops[0]
		}
	default:
		r.typeOrConstant(op, ops)
	}
	return nil
}

func (r *reader) entryPoint(i int, ops []uint32) error {
	name, words, ok := LiteralString(ops[2:])
	if !ok {
		return status.Newf(status.InvalidArgument, "spirv: OpEntryPoint at word %d has an unterminated name", i)
	}
	if ops[0] != execModelGLCompute {
		return nil
	}
	e := &Entry{Name: name, id: ops[1], iface: slices.Clone(ops[2+words:])}
	r.m.entries = append(r.m.entries, e)
	r.m.byName[name] = e
	return nil
}

// decorate records an OpDecorate (target, decoration, operands) or an
// OpMemberDecorate (target, member, decoration, operands).
func (r *reader) decorate(i int, op Op, ops []uint32) error {
	head, key := 2, [3]uint32{0, noMember, 0}
	if op == OpMemberDecorate {
		head = 3
	}
	if err := need(i, op, ops, head); err != nil {
		return err
	}
	key[0], key[2] = ops[0], ops[head-1]
	if op == OpMemberDecorate {
		key[1] = ops[1]
	}
	switch key[2] {
	case decorationSpecID, decorationBinding, decorationDescriptorSet, decorationArrayStride, decorationBuiltIn:
		if err := need(i, op, ops, head+1); err != nil {
			return err
		}
	}
	v := uint32(0)
	if len(ops) > head {
		v = ops[head]
	}
	r.m.decorations[key] = v
	if key[1] == noMember && key[2] == decorationBuiltIn && v == builtInWorkgroupSize {
		r.m.wgBuiltin = key[0]
	}
	return nil
}

// typeOrConstant reads the types and constants sizes are made of; other
// instructions are skipped.
func (r *reader) typeOrConstant(op Op, ops []uint32) {
	at := func(k int) uint32 {
		if k < len(ops) {
			return ops[k]
		}
		return 0
	}
	m := r.m
	switch op {
	case OpTypeBool, OpTypeSampler:
		m.types[at(0)] = &typ{op: op}
	case OpTypeInt, OpTypeFloat:
		m.types[at(0)] = &typ{op: op, width: at(1), signed: op == OpTypeInt && at(2) != 0}
	case OpTypeVector, OpTypeMatrix, OpTypeArray:
		m.types[at(0)] = &typ{op: op, elem: at(1), count: at(2)}
	case OpTypeRuntimeArray, OpTypeSampledImage:
		m.types[at(0)] = &typ{op: op, elem: at(1)}
	case OpTypeStruct:
		if len(ops) >= 1 {
			m.types[at(0)] = &typ{op: op, members: slices.Clone(ops[1:])}
		}
	case OpTypePointer:
		m.types[at(0)] = &typ{op: op, storage: at(1), elem: at(2)}
	case OpTypeImage:
		// Sampled type, Dim, Depth, Arrayed, MS, Sampled, Image Format.
		m.types[at(0)] = &typ{op: op, elem: at(1), image: &Image{Dim: ImageDim(at(2)), Arrayed: at(4) != 0,
			Multisampled: at(5) != 0, Format: ImageFormat(at(7))}, sampled: at(6)}
	case OpConstant, OpSpecConstant:
		v := uint64(at(2))
		if len(ops) > 3 {
			v |= uint64(at(3)) << 32
		}
		m.consts[at(1)] = &constant{typ: at(0), value: v, spec: op == OpSpecConstant}
	case OpConstantTrue, OpConstantFalse, OpSpecConstantTrue, OpSpecConstantFalse:
		v := uint64(0)
		if op == OpConstantTrue || op == OpSpecConstantTrue {
			v = 1
		}
		m.consts[at(1)] = &constant{typ: at(0), value: v, spec: op == OpSpecConstantTrue || op == OpSpecConstantFalse}
	case OpSpecConstantOp:
		if len(ops) >= 3 {
			m.consts[at(1)] = &constant{typ: at(0), spec: true, op: Op(at(2)), parts: slices.Clone(ops[3:])}
		}
	case OpConstantComposite, OpSpecConstantComposite:
		if len(ops) >= 2 {
			m.consts[at(1)] = &constant{typ: at(0), composite: true, spec: op == OpSpecConstantComposite, parts: slices.Clone(ops[2:])}
		}
	}
}

// finish checks what needs the whole module and ties together what was
// read in pieces.
func (r *reader) finish() (*Module, error) {
	m := r.m
	// A module cut short at an instruction boundary passes every check
	// above; it is caught here, where drivers would crash on it.
	if r.open >= 0 {
		return nil, status.Newf(status.InvalidArgument, "spirv: the function begun at word %d has no OpFunctionEnd (truncated module?)", r.open)
	}
	for _, e := range m.entries {
		if !r.functions[e.id] {
			return nil, status.Newf(status.InvalidArgument, "spirv: entry point %q names id %d, which no OpFunction defines (truncated module?)", e.Name, e.id)
		}
	}
	for _, md := range r.modes {
		for _, e := range m.entries {
			if e.id != md.entry {
				continue
			}
			v := md.ops
			if md.mode == execModeLocalSize {
				e.localSize = &v
			} else {
				e.sizeIDs = &v
			}
		}
	}
	r.specConstants()
	r.bindings()
	slices.Sort(m.Capabilities)
	m.Capabilities = slices.Compact(m.Capabilities)
	return m, nil
}

// specConstants describes every specialization constant by its
// constant_id.
func (r *reader) specConstants() {
	m := r.m
	for id, c := range m.consts {
		sid, ok := m.decoration(id, noMember, decorationSpecID)
		if !ok || !c.spec || c.op != 0 {
			continue
		}
		c.specID, c.hasID = sid, true
		info := SpecConstant{Default: uint32(c.value)}
		if t := m.types[c.typ]; t != nil {
			info.Width = t.width
			switch {
			case t.op == OpTypeBool:
				info.Kind, info.Width = "bool", 32
			case t.width == 32:
				info.Kind = t.scalar().Kind
			}
		}
		m.specs[sid] = info
	}
}

// bindings lists the descriptors the module declares, sorted by set and
// binding.
func (r *reader) bindings() {
	m := r.m
	for id, ptr := range m.vars {
		b, ok := m.decoration(id, noMember, decorationBinding)
		if !ok {
			continue
		}
		set, _ := m.decoration(id, noMember, decorationDescriptorSet)
		kind, img, elem := OtherDescriptor, Image{}, Scalar{}
		if t := m.types[ptr]; t != nil {
			switch t.storage {
			case storageStorageBuffer:
				kind = StorageBuffer
			case storageUniform:
				kind = UniformBuffer
				if _, ok := m.decoration(t.elem, noMember, decorationBufferBlock); ok {
					kind = StorageBuffer
				}
			case storageUniformConstant:
				kind, img = m.imageKind(t.elem)
			}
			if kind == StorageBuffer {
				elem = m.bufferElement(t.elem)
			}
		}
		m.bindings = append(m.bindings, Binding{Set: set, Binding: b, Kind: kind, Image: img, Element: elem, variable: id})
	}
	slices.SortFunc(m.bindings, func(a, b Binding) int {
		return int(a.Set<<16|a.Binding) - int(b.Set<<16|b.Binding)
	})
}

// LiteralString decodes a nul-terminated literal string from words, and
// says how many words it took.
func LiteralString(words []uint32) (string, int, bool) {
	b := Bytes(words)
	n := bytes.IndexByte(b, 0)
	if n < 0 {
		return "", 0, false
	}
	return string(b[:n]), n/4 + 1, true
}
