package spirv_test

import (
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// TestSharedMemoryOfGEMM sizes the catalogue's register-blocked GEMM,
// whose shared arrays glslang sizes by chains of OpSpecConstantOp of its
// tiling constants: 2 BK (BM / 4 + 1 - SWZ) vec4s of A and 2 BK BN / 4
// of B.
func TestSharedMemoryOfGEMM(t *testing.T) {
	code, err := os.ReadFile("../shaders/gemm_regblock.spv")
	if err != nil {
		t.Fatal(err)
	}
	m, e, err := spirv.Check(code, "main")
	if err != nil {
		t.Fatal(err)
	}
	formula := func(bm, bn, bk, swz uint64) uint64 { return 2*bk*(bm/4+1-swz)*16 + 2*bk*(bn/4)*16 }
	for _, c := range []struct {
		spec map[uint32]uint32
		want uint64
	}{
		{map[uint32]uint32{2: 256, 3: 128, 4: 16, 5: 2, 6: 1, 7: 1}, 49152},
		{map[uint32]uint32{2: 128, 3: 128, 4: 8, 5: 1, 6: 0, 7: 1}, formula(128, 128, 8, 0)},
		{nil, formula(128, 128, 8, 0)}, // the defaults
	} {
		if n, ok := m.SharedMemory(e, c.spec); !ok || n != c.want {
			t.Errorf("SharedMemory(%v) = %d, %v; want %d", c.spec, n, ok, c.want)
		}
	}
}

// asm assembles a module by hand: an entry point "main" (id 1) whose one
// workgroup variable is an array of uints, of a length made of the
// constants a test writes.
type asm struct {
	ins  [][]uint32
	last uint32
	wide map[uint32]bool // 64-bit types

	void, uint, int, ulong, bool uint32
	// noSize leaves out the LocalSize execution mode.
	noSize bool
}

func newAsm() *asm {
	a := &asm{last: 1, wide: map[uint32]bool{}}
	a.void = a.typ(spirv.OpTypeVoid)
	a.uint, a.int = a.typ(spirv.OpTypeInt, 32, 0), a.typ(spirv.OpTypeInt, 32, 1)
	a.ulong, a.bool = a.typ(spirv.OpTypeInt, 64, 0), a.typ(spirv.OpTypeBool)
	a.wide[a.ulong] = true
	return a
}

func (a *asm) typ(op spirv.Op, operands ...uint32) uint32 {
	a.last++
	a.ins = append(a.ins, spirv.Instruction(op, append([]uint32{a.last}, operands...)...))
	return a.last
}

// def writes an instruction of result type typ and returns its result.
func (a *asm) def(op spirv.Op, typ uint32, operands ...uint32) uint32 {
	a.last++
	a.ins = append(a.ins, spirv.Instruction(op, append([]uint32{typ, a.last}, operands...)...))
	return a.last
}

func (a *asm) k(typ uint32, v uint64) uint32 {
	if a.wide[typ] {
		return a.def(spirv.OpConstant, typ, uint32(v), uint32(v>>32))
	}
	return a.def(spirv.OpConstant, typ, uint32(v))
}

func (a *asm) spec(typ, id, v uint32) uint32 {
	c := a.def(spirv.OpSpecConstant, typ, v)
	a.ins = append(a.ins, spirv.Instruction(spirv.OpDecorate, c, 1, id)) // SpecId
	return c
}

func (a *asm) op(typ uint32, op spirv.Op, operands ...uint32) uint32 {
	return a.def(spirv.OpSpecConstantOp, typ, append([]uint32{uint32(op)}, operands...)...)
}

// shared returns the module's shared memory in uints (4 bytes each) with
// the constants in spec, its array's length being constant n.
func (a *asm) shared(t *testing.T, n uint32, spec map[uint32]uint32) (uint64, bool) {
	t.Helper()
	m, e := a.module(t, n)
	bytes, ok := m.SharedMemory(e, spec)
	return bytes / 4, ok
}

// module reads the module, its array's length being constant n.
func (a *asm) module(t *testing.T, n uint32) (*spirv.Module, *spirv.Entry) {
	t.Helper()
	arr := a.typ(spirv.OpTypeArray, a.uint, n)
	ptr := a.typ(spirv.OpTypePointer, 4, arr) // Workgroup
	a.def(spirv.OpVariable, ptr, 4)
	fn := a.typ(spirv.Op(33), a.void) // OpTypeFunction
	words := []uint32{0x07230203, 0x00010000, 0, a.last + 1, 0}
	words = append(words, spirv.Instruction(spirv.OpCapability, 1)...) // Shader
	words = append(words, spirv.Instruction(spirv.OpCapability, spirv.CapInt64)...)
	words = append(words, spirv.Instruction(spirv.OpMemoryModel, 0, 1)...)
	words = append(words, spirv.Instruction(spirv.OpEntryPoint, append([]uint32{5, 1}, spirv.StringOperand("main")...)...)...)
	if !a.noSize {
		words = append(words, spirv.Instruction(spirv.OpExecutionMode, 1, 17, 1, 1, 1)...) // LocalSize
	}
	for _, ins := range a.ins {
		words = append(words, ins...)
	}
	words = append(words, spirv.Instruction(spirv.OpFunction, a.void, 1, 0, fn)...)
	words = append(words, spirv.Instruction(spirv.OpFunctionEnd)...)
	m, e, err := spirv.Check(spirv.Bytes(words), "main")
	if err != nil {
		t.Fatal(err)
	}
	return m, e
}

// TestSpecConstantOp works out array lengths made of OpSpecConstantOp,
// operation by operation, at the operands' width; what cannot be worked
// out (a division by zero, a shift past the width, a cycle, a float, an
// operation Vulkan does not allow there) is unknown.
func TestSpecConstantOp(t *testing.T) {
	const unknown = ^uint64(0)
	// Comparisons and logic come to 1 (true) or 2 (false) through a
	// Select.
	pick := func(a *asm, cond uint32) uint32 {
		return a.op(a.uint, spirv.OpSelect, cond, a.k(a.uint, 1), a.k(a.uint, 2))
	}
	neg := func(a *asm, v uint32) uint32 { return a.op(a.int, spirv.OpSNegate, v) }
	for _, tc := range []struct {
		name  string
		build func(a *asm) uint32
		want  uint64
	}{
		{"IAdd wraps at 32 bits", func(a *asm) uint32 { return a.op(a.uint, spirv.OpIAdd, a.k(a.uint, 0xffffffff), a.k(a.uint, 3)) }, 2},
		{"IMul wraps at 32 bits", func(a *asm) uint32 {
			return a.op(a.uint, spirv.OpIAdd, a.op(a.uint, spirv.OpIMul, a.k(a.uint, 0x80000000), a.k(a.uint, 2)), a.k(a.uint, 5))
		}, 5},
		{"64 bits do not wrap at 32", func(a *asm) uint32 {
			sum := a.op(a.ulong, spirv.OpIAdd, a.k(a.ulong, 0xffffffff), a.k(a.ulong, 3))
			return a.op(a.uint, spirv.OpUConvert, a.op(a.ulong, spirv.OpShiftRightLogical, sum, a.k(a.ulong, 1)))
		}, 0x80000001},
		{"ISub", func(a *asm) uint32 { return a.op(a.uint, spirv.OpISub, a.k(a.uint, 7), a.k(a.uint, 2)) }, 5},
		{"UDiv", func(a *asm) uint32 { return a.op(a.uint, spirv.OpUDiv, a.k(a.uint, 7), a.k(a.uint, 2)) }, 3},
		{"UMod", func(a *asm) uint32 { return a.op(a.uint, spirv.OpUMod, a.k(a.uint, 7), a.k(a.uint, 3)) }, 1},
		{"SDiv truncates", func(a *asm) uint32 { return neg(a, a.op(a.int, spirv.OpSDiv, a.k(a.int, 0xfffffff9), a.k(a.int, 2))) }, 3},
		{"SRem takes the dividend's sign", func(a *asm) uint32 { return neg(a, a.op(a.int, spirv.OpSRem, a.k(a.int, 0xfffffff9), a.k(a.int, 2))) }, 1},
		{"SMod takes the divisor's sign", func(a *asm) uint32 { return a.op(a.int, spirv.OpSMod, a.k(a.int, 0xfffffff9), a.k(a.int, 2)) }, 1},
		{"SMod of a negative divisor", func(a *asm) uint32 { return neg(a, a.op(a.int, spirv.OpSMod, a.k(a.int, 7), a.k(a.int, 0xfffffffe))) }, 1},
		{"ShiftLeftLogical", func(a *asm) uint32 { return a.op(a.uint, spirv.OpShiftLeftLogical, a.k(a.uint, 1), a.k(a.uint, 4)) }, 16},
		{"ShiftRightLogical", func(a *asm) uint32 {
			return a.op(a.uint, spirv.OpShiftRightLogical, a.k(a.uint, 0xfffffff0), a.k(a.uint, 28))
		}, 15},
		{"ShiftRightArithmetic", func(a *asm) uint32 {
			return neg(a, a.op(a.int, spirv.OpShiftRightArithmetic, a.k(a.int, 0xfffffff0), a.k(a.uint, 2)))
		}, 4},
		{"BitwiseOr", func(a *asm) uint32 { return a.op(a.uint, spirv.OpBitwiseOr, a.k(a.uint, 4), a.k(a.uint, 1)) }, 5},
		{"BitwiseAnd", func(a *asm) uint32 { return a.op(a.uint, spirv.OpBitwiseAnd, a.k(a.uint, 6), a.k(a.uint, 3)) }, 2},
		{"BitwiseXor", func(a *asm) uint32 { return a.op(a.uint, spirv.OpBitwiseXor, a.k(a.uint, 6), a.k(a.uint, 3)) }, 5},
		{"Not", func(a *asm) uint32 { return a.op(a.uint, spirv.OpNot, a.k(a.uint, 0xfffffff8)) }, 7},
		{"SConvert extends the sign", func(a *asm) uint32 {
			wide := a.op(a.ulong, spirv.OpSConvert, a.k(a.int, 0xfffffffe))
			return a.op(a.uint, spirv.OpUConvert, a.op(a.ulong, spirv.OpShiftRightLogical, wide, a.k(a.ulong, 33)))
		}, 0x7fffffff},
		{"UConvert does not", func(a *asm) uint32 {
			wide := a.op(a.ulong, spirv.OpUConvert, a.k(a.uint, 0xfffffffe))
			return a.op(a.uint, spirv.OpUConvert, a.op(a.ulong, spirv.OpShiftRightLogical, wide, a.k(a.ulong, 31)))
		}, 1},
		{"IEqual", func(a *asm) uint32 { return pick(a, a.op(a.bool, spirv.OpIEqual, a.k(a.uint, 3), a.k(a.uint, 3))) }, 1},
		{"INotEqual", func(a *asm) uint32 { return pick(a, a.op(a.bool, spirv.OpINotEqual, a.k(a.uint, 3), a.k(a.uint, 3))) }, 2},
		{"ULessThan is unsigned", func(a *asm) uint32 {
			return pick(a, a.op(a.bool, spirv.OpULessThan, a.k(a.uint, 0xffffffff), a.k(a.uint, 1)))
		}, 2},
		{"SLessThan is signed", func(a *asm) uint32 {
			return pick(a, a.op(a.bool, spirv.OpSLessThan, a.k(a.int, 0xffffffff), a.k(a.int, 1)))
		}, 1},
		{"SGreaterThanEqual", func(a *asm) uint32 {
			return pick(a, a.op(a.bool, spirv.OpSGreaterThanEqual, a.k(a.int, 1), a.k(a.int, 1)))
		}, 1},
		{"UGreaterThan", func(a *asm) uint32 {
			return pick(a, a.op(a.bool, spirv.OpUGreaterThan, a.k(a.uint, 1), a.k(a.uint, 1)))
		}, 2},
		{"LogicalAnd", func(a *asm) uint32 {
			return pick(a, a.op(a.bool, spirv.OpLogicalAnd, a.def(spirv.OpConstantTrue, a.bool), a.def(spirv.OpConstantFalse, a.bool)))
		}, 2},
		{"LogicalOr of a spec constant", func(a *asm) uint32 {
			return pick(a, a.op(a.bool, spirv.OpLogicalOr, a.def(spirv.OpSpecConstantFalse, a.bool), a.def(spirv.OpConstantFalse, a.bool)))
		}, 2},
		{"LogicalNot", func(a *asm) uint32 {
			return pick(a, a.op(a.bool, spirv.OpLogicalNot, a.def(spirv.OpConstantFalse, a.bool)))
		}, 1},
		{"CompositeExtract", func(a *asm) uint32 {
			v3 := a.typ(spirv.OpTypeVector, a.uint, 3)
			wg := a.def(spirv.OpSpecConstantComposite, v3, a.k(a.uint, 4), a.spec(a.uint, 0, 9), a.k(a.uint, 1))
			return a.op(a.uint, spirv.OpCompositeExtract, wg, 1)
		}, 9},
		{"UDiv by zero", func(a *asm) uint32 { return a.op(a.uint, spirv.OpUDiv, a.k(a.uint, 7), a.k(a.uint, 0)) }, unknown},
		{"SDiv by zero", func(a *asm) uint32 { return a.op(a.int, spirv.OpSDiv, a.k(a.int, 7), a.k(a.int, 0)) }, unknown},
		{"UMod by zero", func(a *asm) uint32 { return a.op(a.uint, spirv.OpUMod, a.k(a.uint, 7), a.k(a.uint, 0)) }, unknown},
		{"SMod by zero", func(a *asm) uint32 { return a.op(a.int, spirv.OpSMod, a.k(a.int, 7), a.k(a.int, 0)) }, unknown},
		{"a shift by the width", func(a *asm) uint32 { return a.op(a.uint, spirv.OpShiftLeftLogical, a.k(a.uint, 1), a.k(a.uint, 32)) }, unknown},
		{"a cycle", func(a *asm) uint32 {
			// %x = IAdd %y 1; %y = IAdd %x 1, ids written by hand.
			one := a.k(a.uint, 1)
			x, y := a.last+1, a.last+2
			a.op(a.uint, spirv.OpIAdd, y, one)
			a.op(a.uint, spirv.OpIAdd, x, one)
			return x
		}, unknown},
		{"a float operation", func(a *asm) uint32 {
			f := a.typ(spirv.OpTypeFloat, 32)
			return a.op(a.uint, spirv.OpFAdd, a.k(f, 0x3f800000), a.k(f, 0x3f800000))
		}, unknown},
		{"too few operands", func(a *asm) uint32 { return a.op(a.uint, spirv.OpIAdd, a.k(a.uint, 1)) }, unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAsm()
			got, ok := a.shared(t, tc.build(a), nil)
			if !ok {
				got = unknown
			}
			if got != tc.want {
				t.Errorf("length = %#x, want %#x (%#x: unknown)", got, tc.want, unknown)
			}
		})
	}
}

// TestSpecConstantOpSpecialized: an expression of a specialization
// constant takes the value given, else the default, and a long chain of
// operations is unknown rather than followed without end.
func TestSpecConstantOpSpecialized(t *testing.T) {
	for _, c := range []struct {
		spec map[uint32]uint32
		want uint64
	}{{nil, 64}, {map[uint32]uint32{3: 5}, 20}, {map[uint32]uint32{4: 5}, 64}} {
		a := newAsm()
		n := a.op(a.uint, spirv.OpIMul, a.spec(a.uint, 3, 16), a.k(a.uint, 4))
		if got, ok := a.shared(t, n, c.spec); !ok || got != c.want {
			t.Errorf("with %v: length = %d, %v; want %d", c.spec, got, ok, c.want)
		}
	}
	long := newAsm()
	n := long.k(long.uint, 1)
	for range 10000 {
		n = long.op(long.uint, spirv.OpIAdd, n, n)
	}
	if got, ok := long.shared(t, n, nil); ok {
		t.Errorf("a chain of 10000 additions: length %d, want unknown", got)
	}
}

// TestWorkgroupOfSpecConstantOp: a WorkgroupSize built-in with a
// component computed from a specialization constant is worked out with
// the constant set; Workgroup says the component is computed (not Known)
// and what it comes to with the defaults.
func TestWorkgroupOfSpecConstantOp(t *testing.T) {
	a := newAsm()
	x := a.op(a.uint, spirv.OpIMul, a.spec(a.uint, 0, 32), a.k(a.uint, 2))
	v3 := a.typ(spirv.OpTypeVector, a.uint, 3)
	wg := a.def(spirv.OpSpecConstantComposite, v3, x, a.spec(a.uint, 1, 4), a.k(a.uint, 1))
	a.ins = append(a.ins, spirv.Instruction(spirv.OpDecorate, wg, 11, 25)) // BuiltIn WorkgroupSize
	m, e := a.module(t, a.k(a.uint, 1))
	dims, how := m.Workgroup(e)
	want := [3]spirv.Dim{{Value: 64}, {Value: 4, Known: true, Spec: true, SpecID: 1}, {Value: 1, Known: true}}
	if dims != want || how != "the WorkgroupSize built-in" {
		t.Errorf("Workgroup = %+v, %q; want %+v, the built-in", dims, how, want)
	}
	for _, c := range []struct {
		spec map[uint32]uint32
		want [3]uint32
	}{{nil, [3]uint32{64, 4, 1}}, {map[uint32]uint32{0: 8, 1: 2}, [3]uint32{16, 2, 1}}} {
		if got, ok := m.WorkgroupSize(e, c.spec); !ok || got != c.want {
			t.Errorf("WorkgroupSize(%v) = %v, %v; want %v", c.spec, got, ok, c.want)
		}
	}
}

// TestSpecializeWorkgroup: the one rule for a pipeline's workgroup size,
// which the root package's Kernel and a manifest's dispatch both ask. Where
// their own copies disagreed, the rule is the one Vulkan's is: a component
// computed from other constants is worked out (a manifest refused it), a
// module must declare a size and no component may be 0 (the root package
// took a size given for a module without one, and passed a constant of 0
// on to the driver).
func TestSpecializeWorkgroup(t *testing.T) {
	// x is constant 0 times 2, y constant 1, z 1.
	a := newAsm()
	x := a.op(a.uint, spirv.OpIMul, a.spec(a.uint, 0, 32), a.k(a.uint, 2))
	v3 := a.typ(spirv.OpTypeVector, a.uint, 3)
	wg := a.def(spirv.OpSpecConstantComposite, v3, x, a.spec(a.uint, 1, 4), a.k(a.uint, 1))
	a.ins = append(a.ins, spirv.Instruction(spirv.OpDecorate, wg, 11, 25)) // BuiltIn WorkgroupSize
	built, builtIn := a.module(t, a.k(a.uint, 1))
	lit := newAsm()
	literal, literalIn := lit.module(t, lit.k(lit.uint, 1))
	none := newAsm()
	none.noSize = true
	noSize, noSizeIn := none.module(t, none.k(none.uint, 1))
	for _, c := range []struct {
		name     string
		m        *spirv.Module
		e        *spirv.Entry
		given    [3]uint32
		spec     map[uint32]uint32
		want     [3]uint32
		wantSpec map[uint32]uint32
		err      string
	}{
		{name: "the defaults", m: built, e: builtIn, want: [3]uint32{64, 4, 1}},
		{name: "computed", m: built, e: builtIn, spec: map[uint32]uint32{0: 8}, want: [3]uint32{16, 4, 1}},
		{name: "a constant of 0", m: built, e: builtIn, spec: map[uint32]uint32{1: 0}, err: `local_size_y of "main" is 0`},
		{name: "given", m: built, e: builtIn, given: [3]uint32{5, 8, 1}, want: [3]uint32{5, 8, 1}, wantSpec: map[uint32]uint32{1: 8}},
		{name: "given as the constants", m: built, e: builtIn, given: [3]uint32{5, 2, 1}, spec: map[uint32]uint32{1: 2}, want: [3]uint32{5, 2, 1}},
		{name: "given against the constants", m: built, e: builtIn, given: [3]uint32{5, 8, 1}, spec: map[uint32]uint32{1: 2},
			err: `local_size_y of "main" is constant_id 1, which the constants set to 2, not 8`},
		{name: "given against the built-in", m: built, e: builtIn, given: [3]uint32{5, 4, 2},
			err: `the module fixes local_size_z of "main" at 1 (the WorkgroupSize built-in), not 2`},
		{name: "given with a zero", m: built, e: builtIn, given: [3]uint32{5, 0, 1}, err: "workgroup size [5 0 1] has a zero"},
		{name: "literal", m: literal, e: literalIn, want: [3]uint32{1, 1, 1}},
		{name: "given against the literal", m: literal, e: literalIn, given: [3]uint32{2, 1, 1},
			err: `the module fixes local_size_x of "main" at 1 (a literal local_size), not 2`},
		{name: "no size", m: noSize, e: noSizeIn, err: `entry point "main" declares no workgroup size`},
		{name: "no size, given", m: noSize, e: noSizeIn, given: [3]uint32{64, 1, 1}, err: `entry point "main" declares no workgroup size`},
	} {
		spec := map[uint32]uint32{}
		maps.Copy(spec, c.spec)
		got, err := c.m.SpecializeWorkgroup(c.e, c.given, spec)
		switch {
		case c.err != "":
			if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want InvalidArgument saying %q", c.name, err, c.err)
			}
		case err != nil || got != c.want:
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		case c.wantSpec != nil && !maps.Equal(spec, c.wantSpec):
			t.Errorf("%s: the constants are %v, want %v", c.name, spec, c.wantSpec)
		}
	}
}
