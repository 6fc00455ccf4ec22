package glslc

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/vkbench/vkbench/spirv"
)

// BFloat16Directive is the line by which a source asks for its 16-bit
// floats to be bfloat16: it is written with float16_t (which no compiler
// pinned here can write as bfloat16: glslang learnt GL_EXT_bfloat16 after
// Debian 13's 15.1), compiled as usual, and then every float16 type of
// the module is made bfloat16 (ToBFloat16).
const BFloat16Directive = "// retype: float16 bfloat16"

// What the retype writes that package spirv does not name.
const (
	fpEncodingBFloat16KHR       = 0
	extBFloat16                 = "SPV_KHR_bfloat16"
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
	words, err := spirv.Words(code)
	if err != nil {
		return nil, err
	}
	half := map[uint32]bool{}      // float16 scalar and vector types
	types := map[uint32]bool{}     // every type's id
	valueOf := map[uint32]uint32{} // the type of each value, in functions
	inFunctions := false
	var caps []uint32
	coopmat := false
	for _, ins := range spirv.Instructions(words) {
		op := spirv.Opcode(ins)
		if op >= spirv.OpTypeVoid && op <= spirv.OpTypeForwardPointer || op == spirv.OpTypeCooperativeMatrixKHR {
			types[ins[1]] = true
		}
		inFunctions = inFunctions || op == spirv.OpFunction
		// Ids are unique, so an instruction of a function whose first
		// operand is a type has a result type and its result next, as
		// the constants have. (Elsewhere out of functions, decorations
		// name types and then literals.)
		if (inFunctions || op >= spirv.OpConstantTrue && op <= spirv.OpSpecConstantOp) && len(ins) >= 3 && types[ins[1]] {
			valueOf[ins[2]] = ins[1]
		}
		switch {
		case op == spirv.OpCapability && len(ins) == 2:
			caps = append(caps, ins[1])
			coopmat = coopmat || ins[1] == spirv.CapCooperativeMatrixKHR
		case op == spirv.OpTypeFloat && len(ins) >= 3 && ins[2] == 16:
			if len(ins) > 3 {
				return nil, fmt.Errorf("glslc: the module's 16-bit float type already has an encoding (%d)", ins[3])
			}
			half[ins[1]] = true
		case op == spirv.OpTypeVector && len(ins) == 4 && half[ins[2]]:
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
	if slices.Contains(caps, spirv.CapBFloat16TypeKHR) {
		return nil, fmt.Errorf("glslc: the module already declares BFloat16TypeKHR")
	}
	add := []uint32{spirv.CapBFloat16TypeKHR}
	if coopmat {
		add = append(add, spirv.CapBFloat16CooperativeMatrixKHR)
	}
	out := slices.Clone(spirv.Header(words))
	lastCap, extDone := false, false
	for _, ins := range spirv.Instructions(words) {
		op := spirv.Opcode(ins)
		if lastCap && op != spirv.OpCapability {
			for _, c := range add {
				out = append(out, spirv.Instruction(spirv.OpCapability, c)...)
			}
			lastCap = false
		}
		if !extDone && (op == spirv.OpExtInstImport || op == spirv.OpMemoryModel) {
			out = append(out, spirv.Instruction(spirv.OpExtension, spirv.StringOperand(extBFloat16)...)...)
			extDone = true
		}
		if op == spirv.OpTypeFloat && len(ins) == 3 && ins[2] == 16 {
			out = append(out, spirv.Instruction(spirv.OpTypeFloat, ins[1], 16, fpEncodingBFloat16KHR)...)
			continue
		}
		out = append(out, ins...)
		lastCap = lastCap || op == spirv.OpCapability
	}
	return spirv.Bytes(out), nil
}

// FromBFloat16 undoes ToBFloat16: the module code with its bfloat16 type
// made float16 and the capabilities and extension ToBFloat16 adds
// removed, the module the compiler made. spirv-val (SPIRV-Tools 2025.1,
// the newest pinned here) does not know SPV_KHR_bfloat16, so Validate
// checks that module. ok is false for a module without bfloat16.
func FromBFloat16(code []byte) (out []byte, ok bool, err error) {
	words, err := spirv.Words(code)
	if err != nil {
		return nil, false, err
	}
	res := slices.Clone(spirv.Header(words))
	for _, ins := range spirv.Instructions(words) {
		switch op := spirv.Opcode(ins); {
		case op == spirv.OpCapability && len(ins) == 2 && (ins[1] == spirv.CapBFloat16TypeKHR || ins[1] == spirv.CapBFloat16CooperativeMatrixKHR):
			ok = true
			continue
		case op == spirv.OpExtension && extensionName(ins) == extBFloat16:
			continue
		case op == spirv.OpTypeFloat && len(ins) == 4 && ins[2] == 16 && ins[3] == fpEncodingBFloat16KHR:
			res = append(res, spirv.Instruction(spirv.OpTypeFloat, ins[1], 16)...)
			continue
		}
		res = append(res, ins...)
	}
	if !ok {
		return code, false, nil
	}
	return spirv.Bytes(res), true, nil
}

// isFloatTest is whether op compares floats or tests one (OpIsNan to
// OpUnordered, OpFOrdEqual to OpFUnordGreaterThanEqual): a bool from
// float operands, which bfloat16 does not allow either.
func isFloatTest(op spirv.Op) bool {
	return op >= spirv.OpIsNan && op <= spirv.OpUnordered || op >= spirv.OpFOrdEqual && op <= spirv.OpFUnordGreaterThanEqual
}

func isFloatArithmetic(op spirv.Op) bool {
	return slices.Contains([]spirv.Op{spirv.OpFNegate, spirv.OpFAdd, spirv.OpFSub, spirv.OpFMul, spirv.OpFDiv, spirv.OpFRem, spirv.OpFMod, spirv.OpVectorTimesScalar, spirv.OpDot, spirv.OpExtInst}, op)
}

// extensionName is the string of an OpExtension.
func extensionName(ins []uint32) string {
	name, _, _ := spirv.LiteralString(ins[1:])
	return name
}

// wantsBFloat16 reports whether a line of src is BFloat16Directive
// (trailing white space, a carriage return among it, aside).
func wantsBFloat16(src string) bool { return bfloat16Line.MatchString(src) }

var bfloat16Line = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(BFloat16Directive) + `[ \t\r]*$`)
