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
			}
		}
		i += count
	}
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
