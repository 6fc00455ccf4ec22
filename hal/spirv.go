package hal

import (
	"encoding/binary"
	"slices"

	"github.com/vkbench/vkbench/status"
)

// SPIR-V constants used by the checker (from the SPIR-V specification).
const (
	spirvMagic          = 0x07230203
	spirvHeaderWords    = 5
	opEntryPoint        = 15
	opExecutionMode     = 16
	opDecorate          = 71
	opFunction          = 54
	opFunctionEnd       = 56
	execModelGLCompute  = 5
	execModeLocalSize   = 17
	execModeLocalSizeID = 38
	decorationSpecID    = 1
	decorationBinding   = 33
	decorationSet       = 34
	decorationArrayStr  = 6
	decorationOffset    = 35
	opTypeInt           = 21
	opTypeFloat         = 22
	opTypeVector        = 23
	opTypeArray         = 28
	opTypeStruct        = 30
	opTypePointer       = 32
	opConstant          = 43
	opVariable          = 59
	opMemberDecorate    = 72
	storagePushConstant = 9
)

// SPIRVModule is what vkbench reads from a SPIR-V module: enough to check
// it against how it is going to be used.
type SPIRVModule struct {
	// Version is the SPIR-V version as major<<8 | minor (0x0105 is 1.5).
	Version uint16
	// EntryPoints are the GLCompute entry points by name.
	EntryPoints []string
	// LocalSize is the literal workgroup size of each entry point that
	// declares one with LocalSize (not LocalSizeId), by name.
	LocalSize map[string][3]uint32
	// SpecIDs are the constant_id values of the specialization constants,
	// sorted.
	SpecIDs []uint32
	// Bindings are the (set<<16 | binding) pairs decorated in the module,
	// sorted.
	Bindings []uint32
	// PushConstantBytes is the size of the module's push-constant block:
	// the end of its last member (offset plus size), 0 when the module has
	// none, and -1 when its layout has a type this reader does not size
	// (a matrix, a bool, an array of specialized length).
	PushConstantBytes int
}

// ParseSPIRV checks the structure of a SPIR-V module and reads its entry
// points, specialization constants and bindings. It checks the magic
// number, the version, that the length is a whole number of words, and
// that every instruction's word count stays inside the module. Any problem
// is InvalidArgument and names what is wrong and where.
func ParseSPIRV(code []byte) (*SPIRVModule, error) {
	if len(code)%4 != 0 {
		return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V length %d is not a multiple of 4", len(code))
	}
	if len(code) < spirvHeaderWords*4 {
		return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V of %d bytes is shorter than its 20-byte header", len(code))
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(code[4*i:]) }
	switch magic := word(0); magic {
	case spirvMagic:
	case 0x03022307:
		return nil, status.New(status.InvalidArgument, "hal: SPIR-V module is big-endian; only little-endian modules are accepted")
	default:
		return nil, status.Newf(status.InvalidArgument, "hal: not SPIR-V: magic number 0x%08x, want 0x%08x", magic, spirvMagic)
	}
	ver := word(1)
	major, minor := ver>>16&0xff, ver>>8&0xff
	if ver&0xff0000ff != 0 || major != 1 || minor > 6 {
		return nil, status.Newf(status.InvalidArgument, "hal: unsupported SPIR-V version word 0x%08x (want 1.0 to 1.6)", ver)
	}
	bound := word(3)
	if bound == 0 {
		return nil, status.New(status.InvalidArgument, "hal: SPIR-V id bound is 0")
	}
	m := &SPIRVModule{Version: uint16(major<<8 | minor), LocalSize: map[string][3]uint32{}}
	n := len(code) / 4
	entryByID := map[uint32]string{}
	functions := map[uint32]bool{}
	open := -1 // word index of the OpFunction not yet ended
	sets := map[uint32]uint32{}
	bindings := map[uint32]uint32{}
	types := newSpirvTypes()
	for i := spirvHeaderWords; i < n; {
		w := word(i)
		count, op := int(w>>16), w&0xffff
		if count == 0 {
			return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V instruction at word %d (opcode %d) has word count 0", i, op)
		}
		if i+count > n {
			return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V instruction at word %d (opcode %d) has %d words, past the module's end at word %d", i, op, count, n)
		}
		operands := func(k int) uint32 { return word(i + 1 + k) }
		need := func(min int) error {
			if count < min {
				return status.Newf(status.InvalidArgument, "hal: SPIR-V instruction at word %d (opcode %d) has %d words, needs at least %d", i, op, count, min)
			}
			return nil
		}
		switch op {
		case opFunction:
			if err := need(5); err != nil {
				return nil, err
			}
			if open >= 0 {
				return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V OpFunction at word %d begins inside the function begun at word %d", i, open)
			}
			open = i
			functions[operands(1)] = true
		case opFunctionEnd:
			if open < 0 {
				return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V OpFunctionEnd at word %d ends no function", i)
			}
			open = -1
		case opEntryPoint:
			if err := need(4); err != nil {
				return nil, err
			}
			name, ok := spirvString(code[4*(i+3) : 4*(i+count)])
			if !ok {
				return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V OpEntryPoint at word %d has an unterminated name", i)
			}
			if operands(0) == execModelGLCompute {
				m.EntryPoints = append(m.EntryPoints, name)
				entryByID[operands(1)] = name
			}
		case opExecutionMode:
			if err := need(3); err != nil {
				return nil, err
			}
			if operands(1) == execModeLocalSize {
				if err := need(6); err != nil {
					return nil, err
				}
				if name, ok := entryByID[operands(0)]; ok {
					m.LocalSize[name] = [3]uint32{operands(2), operands(3), operands(4)}
				}
			}
		case opDecorate:
			if err := need(3); err != nil {
				return nil, err
			}
			target, dec := operands(0), operands(1)
			switch dec {
			case decorationSpecID, decorationBinding, decorationSet:
				if err := need(4); err != nil {
					return nil, err
				}
			}
			switch dec {
			case decorationSpecID:
				m.SpecIDs = append(m.SpecIDs, operands(2))
			case decorationBinding:
				bindings[target] = operands(2)
			case decorationSet:
				sets[target] = operands(2)
			case decorationArrayStr:
				if count >= 4 {
					types.strides[target] = operands(2)
				}
			}
		default:
			types.read(op, count, operands)
		}
		i += count
	}
	m.PushConstantBytes = types.pushConstantBytes()
	// A module cut short at an instruction boundary passes every check
	// above; it is caught here, where drivers would crash on it.
	if open >= 0 {
		return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V function begun at word %d has no OpFunctionEnd (truncated module?)", open)
	}
	for id, name := range entryByID {
		if !functions[id] {
			return nil, status.Newf(status.InvalidArgument, "hal: SPIR-V entry point %q names id %d, which no OpFunction defines (truncated module?)", name, id)
		}
	}
	for id, b := range bindings {
		m.Bindings = append(m.Bindings, sets[id]<<16|b)
	}
	slices.Sort(m.SpecIDs)
	m.SpecIDs = slices.Compact(m.SpecIDs)
	slices.Sort(m.Bindings)
	return m, nil
}

// spirvString decodes a nul-terminated literal string from the start of b.
func spirvString(b []byte) (string, bool) {
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), true
		}
	}
	return "", false
}

// CheckSPIRV checks that code is a well-formed SPIR-V module with a
// GLCompute entry point named entryPoint ("main" if empty). Backends call
// it before handing code to a driver, so that a bad module is an
// InvalidArgument and never a driver crash.
func CheckSPIRV(code []byte, entryPoint string) error {
	m, err := ParseSPIRV(code)
	if err != nil {
		return err
	}
	if entryPoint == "" {
		entryPoint = "main"
	}
	if !slices.Contains(m.EntryPoints, entryPoint) {
		return status.Newf(status.InvalidArgument, "hal: SPIR-V has no GLCompute entry point %q (it has %q)", entryPoint, m.EntryPoints)
	}
	return nil
}

// spirvTypes collects what sizing the push-constant block needs: the
// types, their strides and member offsets, integer constants (array
// lengths), and the PushConstant variable's pointer type.
type spirvTypes struct {
	defs      map[uint32][]uint32 // id -> opcode, then the operands after the result id
	strides   map[uint32]uint32
	offsets   map[[2]uint32]uint32 // (struct, member) -> Offset
	constants map[uint32]uint32
	push      []uint32       // pointer types of PushConstant variables
	sizes     map[uint32]int // memo of size: -1 for a type that cannot be sized
}

func newSpirvTypes() *spirvTypes {
	return &spirvTypes{defs: map[uint32][]uint32{}, strides: map[uint32]uint32{}, offsets: map[[2]uint32]uint32{},
		constants: map[uint32]uint32{}, sizes: map[uint32]int{}}
}

// read records an instruction sizing may need; operands(k) is its k-th
// operand word (after the opcode word).
func (t *spirvTypes) read(op uint32, count int, operands func(int) uint32) {
	words := func() []uint32 {
		w := []uint32{op}
		for k := 1; k < count-1; k++ {
			w = append(w, operands(k))
		}
		return w
	}
	switch op {
	case opTypeInt, opTypeFloat, opTypeVector, opTypeArray, opTypeStruct, opTypePointer:
		if count >= 2 {
			t.defs[operands(0)] = words()
		}
	case opConstant:
		if count >= 4 {
			t.constants[operands(1)] = operands(2) // the low word: lengths are small
		}
	case opMemberDecorate:
		if count >= 5 && operands(2) == decorationOffset {
			t.offsets[[2]uint32{operands(0), operands(1)}] = operands(3)
		}
	case opVariable:
		if count >= 4 && operands(2) == storagePushConstant {
			t.push = append(t.push, operands(0))
		}
	}
}

// pushConstantBytes is the size of the largest push-constant block, 0 for
// none, -1 when a type in it cannot be sized.
func (t *spirvTypes) pushConstantBytes() int {
	size := 0
	for _, ptr := range t.push {
		def := t.defs[ptr]
		if len(def) < 3 || def[0] != opTypePointer {
			return -1
		}
		n, ok := t.size(def[2], 0)
		if !ok {
			return -1
		}
		size = max(size, n)
	}
	return size
}

// size is the number of bytes a value of type id takes in an explicitly
// laid out block, as far as this reader knows. Each type is sized once, so
// that a module of structs nesting structs many times over costs no more
// than its length.
func (t *spirvTypes) size(id uint32, depth int) (int, bool) {
	if n, ok := t.sizes[id]; ok {
		return n, n >= 0
	}
	n, ok := t.sizeOf(id, depth)
	if depth <= 16 { // past that, the answer says only that the chain was long
		if !ok {
			n = -1
		}
		t.sizes[id] = n
	}
	return n, ok
}

func (t *spirvTypes) sizeOf(id uint32, depth int) (int, bool) {
	def := t.defs[id]
	if len(def) == 0 || depth > 16 {
		return 0, false
	}
	switch def[0] {
	case opTypeInt, opTypeFloat:
		if len(def) < 2 || def[1]%8 != 0 {
			return 0, false
		}
		return int(def[1] / 8), true
	case opTypeVector:
		if len(def) < 3 {
			return 0, false
		}
		n, ok := t.size(def[1], depth+1)
		return n * int(def[2]), ok
	case opTypeArray:
		length, known := t.constants[def[2]]
		stride, strided := t.strides[id]
		if len(def) < 3 || !known || !strided {
			return 0, false
		}
		return int(length) * int(stride), true
	case opTypeStruct:
		end := 0
		for m, member := range def[1:] {
			off, ok := t.offsets[[2]uint32{id, uint32(m)}]
			if !ok {
				return 0, false
			}
			n, ok := t.size(member, depth+1)
			if !ok {
				return 0, false
			}
			end = max(end, int(off)+n)
		}
		return end, true
	}
	return 0, false
}
