package glslc

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// BFloat16Directive is the line by which a source asks for its 16-bit
// floats to be bfloat16: it is written with float16_t (which no compiler
// pinned here can write as bfloat16: glslang learnt GL_EXT_bfloat16 after
// Debian 13's 15.1), compiled as usual, and then every float16 type of
// the module is made bfloat16 (ToBFloat16).
const BFloat16Directive = "// retype: float16 bfloat16"

// SPIR-V words the retype reads and writes.
const (
	spvMagic          = 0x07230203
	opExtension       = 10
	opExtInst         = 12
	opExtInstImport   = 11
	opMemoryModel     = 14
	opCapability      = 17
	opTypeFloat       = 22
	opTypeVector      = 23
	opFNegate         = 127
	opFAdd            = 129
	opFSub            = 131
	opFMul            = 133
	opFDiv            = 136
	opFRem            = 140
	opFMod            = 141
	opVectorTimesScal = 142
	opDot             = 148
	opFunction        = 54
	opConstantFirst   = 41 // OpConstantTrue
	opConstantLast    = 52 // OpSpecConstantOp
	opTypeFirst       = 19 // OpTypeVoid
	opTypeLast        = 39 // OpTypeForwardPointer
	opIsNan           = 156
	opUnordered       = 163 // the last of the tests of a float: OpIsNan to OpUnordered
	opFOrdEqual       = 180
	opFUnordGreaterEq = 191 // the last of the float comparisons

	opTypeCooperativeMatrix = 4456

	capCooperativeMatrixKHR     = 6022
	capBFloat16TypeKHR          = 5116
	capBFloat16CoopMatrixKHR    = 5118
	fpEncodingBFloat16KHR       = 0
	extBFloat16                 = "SPV_KHR_bfloat16"
	spvHeaderWords              = 5
	bfloat16ArithmeticForbidden = "SPV_KHR_bfloat16 allows bfloat16 values in no arithmetic and no comparison but dot products (BFloat16DotProductKHR, which the retype does not declare) and cooperative matrices' multiply-adds"
)

// ToBFloat16 returns the module code with its float16 type made bfloat16
// (SPV_KHR_bfloat16): OpTypeFloat 16 gains the BFloat16KHR encoding, and
// the module declares the BFloat16TypeKHR capability (with
// BFloat16CooperativeMatrixKHR if it has KHR cooperative matrices) and
// the extension. That is sound for a module that only moves its 16-bit
// floats: loads and stores, composites, selects, bit casts, conversions
// to and from float32 (the device rounds those to bfloat16) and
// cooperative matrices, whose multiply-adds then take bfloat16. A module
// with float16 arithmetic (a negation, sum, product, quotient, dot product
// or GLSL.std.450 function with a float16 result, or a comparison or test
// of float16 values) is refused, as is one without a float16 type or with
// bfloat16 already.
func ToBFloat16(code []byte) ([]byte, error) {
	words, err := spvWords(code)
	if err != nil {
		return nil, err
	}
	half := map[uint32]bool{}      // float16 scalar and vector types
	types := map[uint32]bool{}     // every type's id
	valueOf := map[uint32]uint32{} // the type of each value, in functions
	inFunctions := false
	var caps []uint32
	coopmat := false
	for ins := range instructions(words) {
		op := ins[0] & 0xffff
		if op >= opTypeFirst && op <= opTypeLast || op == opTypeCooperativeMatrix {
			types[ins[1]] = true
		}
		inFunctions = inFunctions || op == opFunction
		// Ids are unique, so an instruction of a function whose first
		// operand is a type has a result type and its result next, as
		// the constants have. (Elsewhere out of functions, decorations
		// name types and then literals.)
		if (inFunctions || op >= opConstantFirst && op <= opConstantLast) && len(ins) >= 3 && types[ins[1]] {
			valueOf[ins[2]] = ins[1]
		}
		switch {
		case op == opCapability && len(ins) == 2:
			caps = append(caps, ins[1])
			coopmat = coopmat || ins[1] == capCooperativeMatrixKHR
		case op == opTypeFloat && len(ins) >= 3 && ins[2] == 16:
			if len(ins) > 3 {
				return nil, fmt.Errorf("glslc: the module's 16-bit float type already has an encoding (%d)", ins[3])
			}
			half[ins[1]] = true
		case op == opTypeVector && len(ins) == 4 && half[ins[2]]:
			half[ins[1]] = true
		case isFloatArithmetic(op) && len(ins) >= 3 && half[ins[1]]:
			return nil, fmt.Errorf("glslc: cannot make the module's float16 bfloat16: it computes with float16 (opcode %d), and %s", op, bfloat16ArithmeticForbidden)
		case isFloatTest(op) && len(ins) >= 4 && (half[valueOf[ins[3]]] || len(ins) >= 5 && half[valueOf[ins[4]]]):
			return nil, fmt.Errorf("glslc: cannot make the module's float16 bfloat16: it compares or classifies float16 values (opcode %d), and %s", op, bfloat16ArithmeticForbidden)
		}
	}
	if len(half) == 0 {
		return nil, fmt.Errorf("glslc: the module has no float16 type to make bfloat16")
	}
	if slices.Contains(caps, capBFloat16TypeKHR) {
		return nil, fmt.Errorf("glslc: the module already declares BFloat16TypeKHR")
	}
	add := []uint32{capBFloat16TypeKHR}
	if coopmat {
		add = append(add, capBFloat16CoopMatrixKHR)
	}
	out := slices.Clone(words[:spvHeaderWords])
	lastCap, extDone := false, false
	for ins := range instructions(words) {
		op := ins[0] & 0xffff
		if lastCap && op != opCapability {
			for _, c := range add {
				out = append(out, 2<<16|opCapability, c)
			}
			lastCap = false
		}
		if !extDone && (op == opExtInstImport || op == opMemoryModel) {
			out = append(out, stringInstruction(opExtension, extBFloat16)...)
			extDone = true
		}
		if op == opTypeFloat && len(ins) == 3 && ins[2] == 16 {
			out = append(out, 4<<16|opTypeFloat, ins[1], 16, fpEncodingBFloat16KHR)
			continue
		}
		out = append(out, ins...)
		lastCap = lastCap || op == opCapability
	}
	return spvBytes(out), nil
}

// FromBFloat16 undoes ToBFloat16: the module code with its bfloat16 type
// made float16 and the capabilities and extension ToBFloat16 adds
// removed, the module the compiler made. spirv-val (SPIRV-Tools 2025.1,
// the newest pinned here) does not know SPV_KHR_bfloat16, so Validate
// checks that module. ok is false for a module without bfloat16.
func FromBFloat16(code []byte) (out []byte, ok bool, err error) {
	words, err := spvWords(code)
	if err != nil {
		return nil, false, err
	}
	res := slices.Clone(words[:spvHeaderWords])
	for ins := range instructions(words) {
		switch op := ins[0] & 0xffff; {
		case op == opCapability && len(ins) == 2 && (ins[1] == capBFloat16TypeKHR || ins[1] == capBFloat16CoopMatrixKHR):
			ok = true
			continue
		case op == opExtension && extensionName(ins) == extBFloat16:
			continue
		case op == opTypeFloat && len(ins) == 4 && ins[2] == 16 && ins[3] == fpEncodingBFloat16KHR:
			res = append(res, 3<<16|opTypeFloat, ins[1], 16)
			continue
		}
		res = append(res, ins...)
	}
	if !ok {
		return code, false, nil
	}
	return spvBytes(res), true, nil
}

// isFloatTest is whether op compares floats or tests one (OpIsNan to
// OpUnordered, OpFOrdEqual to OpFUnordGreaterThanEqual): a bool from
// float operands, which bfloat16 does not allow either.
func isFloatTest(op uint32) bool {
	return op >= opIsNan && op <= opUnordered || op >= opFOrdEqual && op <= opFUnordGreaterEq
}

func isFloatArithmetic(op uint32) bool {
	switch op {
	case opFNegate, opFAdd, opFSub, opFMul, opFDiv, opFRem, opFMod, opVectorTimesScal, opDot, opExtInst:
		return true
	}
	return false
}

// spvWords returns code as words, checking the magic number and that it
// splits into whole instructions.
func spvWords(code []byte) ([]uint32, error) {
	if len(code)%4 != 0 || len(code) < 4*spvHeaderWords {
		return nil, fmt.Errorf("glslc: %d bytes are not a SPIR-V module", len(code))
	}
	words := make([]uint32, len(code)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(code[4*i:])
	}
	if words[0] != spvMagic {
		return nil, fmt.Errorf("glslc: not a SPIR-V module (magic %#x)", words[0])
	}
	for i := spvHeaderWords; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 || i+n > len(words) {
			return nil, fmt.Errorf("glslc: the SPIR-V module's instruction at word %d runs past its end", i)
		}
		i += n
	}
	return words, nil
}

// instructions yields the module's instructions after the header (words
// checked by spvWords).
func instructions(words []uint32) func(func([]uint32) bool) {
	return func(yield func([]uint32) bool) {
		for i := spvHeaderWords; i < len(words); {
			n := int(words[i] >> 16)
			if !yield(words[i : i+n]) {
				return
			}
			i += n
		}
	}
}

// stringInstruction is the instruction op with one literal string.
func stringInstruction(op uint32, s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	ins := []uint32{uint32(1+len(b)/4)<<16 | op}
	for i := 0; i < len(b); i += 4 {
		ins = append(ins, binary.LittleEndian.Uint32(b[i:]))
	}
	return ins
}

// extensionName is the string of an OpExtension.
func extensionName(ins []uint32) string {
	var b []byte
	for _, w := range ins[1:] {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	name, _, _ := strings.Cut(string(b), "\x00")
	return name
}

func spvBytes(words []uint32) []byte {
	b := make([]byte, 0, 4*len(words))
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// wantsBFloat16 reports whether a line of src is BFloat16Directive.
func wantsBFloat16(src string) bool {
	return hasLine(src, BFloat16Directive)
}
