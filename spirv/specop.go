package spirv

// worked is a constant's value as value worked it out: ok false when it
// cannot be.
type worked struct {
	v  uint64
	ok bool
}

// maxChain bounds how deep a chain of operations value follows: past it,
// the answer says only that the chain was long.
const maxChain = 64

// value returns the value of scalar constant id (an integer, or a bool as
// 0 or 1) with the specialization constants set as in z.spec, and false
// where it cannot be worked out (the package doc's Rules). Each constant
// is worked out once per sizer.
func (z *sizer) value(id uint32, depth int) (uint64, bool) {
	if w, ok := z.values[id]; ok {
		return w.v, w.ok
	}
	if depth > maxChain {
		return 0, false
	}
	z.values[id] = worked{} // a chain that comes back to id is a cycle
	v, ok := z.evaluate(id, depth)
	z.values[id] = worked{v, ok}
	return v, ok
}

// bits returns the width of scalar type id: that of an integer, 1 for a
// bool.
func (m *Module) bits(id uint32) (uint32, bool) {
	switch t := m.types[id]; {
	case t == nil:
	case t.op == OpTypeBool:
		return 1, true
	case t.op == OpTypeInt && t.width >= 1 && t.width <= 64:
		return t.width, true
	}
	return 0, false
}

// wrap keeps the low w bits of v.
func wrap(v uint64, w uint32) uint64 {
	if w >= 64 {
		return v
	}
	return v & (1<<w - 1)
}

// signed reads the low w bits of v as a two's complement integer.
func signed(v uint64, w uint32) int64 { return int64(v<<(64-w)) >> (64 - w) }

func (z *sizer) evaluate(id uint32, depth int) (uint64, bool) {
	m := z.m
	c := m.consts[id]
	if c == nil || c.composite {
		return 0, false
	}
	w, ok := m.bits(c.typ)
	if !ok {
		return 0, false
	}
	switch c.op {
	case 0:
		v := c.value
		if s, given := z.spec[c.specID]; c.spec && c.hasID && given {
			v = uint64(s)
		}
		if w == 1 && v != 0 {
			v = 1
		}
		return wrap(v, w), true
	case OpCompositeExtract:
		return z.extract(c.parts, depth)
	}
	arity := 2
	switch c.op {
	case OpSNegate, OpNot, OpLogicalNot, OpUConvert, OpSConvert:
		arity = 1
	case OpSelect:
		arity = 3
	}
	if len(c.parts) != arity {
		return 0, false
	}
	var x [3]uint64
	for i, p := range c.parts {
		if x[i], ok = z.value(p, depth+1); !ok {
			return 0, false
		}
	}
	// The operands' width: the first's, past a Select's condition.
	first := c.parts[0]
	if c.op == OpSelect {
		first = c.parts[1]
	}
	from, _ := m.bits(m.consts[first].typ) // value read it
	v, ok := operate(c.op, x, from)
	return wrap(v, w), ok
}

// operate applies op to operands x of width w (a Select's condition
// aside), the result not yet cut to its own width.
func operate(op Op, x [3]uint64, w uint32) (uint64, bool) {
	a, b := x[0], x[1]
	sa, sb := signed(a, w), signed(b, w)
	switch op {
	case OpUDiv, OpUMod:
		if b == 0 {
			return 0, false
		}
		if op == OpUMod {
			return a % b, true
		}
		return a / b, true
	case OpSDiv, OpSRem, OpSMod:
		if sb == 0 {
			return 0, false
		}
		r := sa % sb // Go's remainder takes the dividend's sign, as SRem
		switch {
		case op == OpSDiv:
			return uint64(sa / sb), true // the most negative / -1 wraps
		case op == OpSMod && r != 0 && r < 0 != (sb < 0):
			r += sb // SMod takes the divisor's sign
		}
		return uint64(r), true
	case OpShiftLeftLogical, OpShiftRightLogical, OpShiftRightArithmetic:
		if b >= uint64(w) {
			return 0, false // undefined in SPIR-V
		}
		switch op {
		case OpShiftLeftLogical:
			return a << b, true
		case OpShiftRightLogical:
			return a >> b, true
		}
		return uint64(sa >> b), true
	case OpSelect:
		if a != 0 {
			return b, true
		}
		return x[2], true
	}
	f, ok := operations[op]
	if !ok {
		return 0, false
	}
	return f(a, b, sa, sb), true
}

// operations are those defined for any operands, of their unsigned (a, b)
// and signed (sa, sb) values; a comparison gives a bool, 1 or 0.
var operations = map[Op]func(a, b uint64, sa, sb int64) uint64{
	OpIAdd:              func(a, b uint64, _, _ int64) uint64 { return a + b },
	OpISub:              func(a, b uint64, _, _ int64) uint64 { return a - b },
	OpIMul:              func(a, b uint64, _, _ int64) uint64 { return a * b },
	OpBitwiseOr:         func(a, b uint64, _, _ int64) uint64 { return a | b },
	OpBitwiseAnd:        func(a, b uint64, _, _ int64) uint64 { return a & b },
	OpBitwiseXor:        func(a, b uint64, _, _ int64) uint64 { return a ^ b },
	OpNot:               func(a, _ uint64, _, _ int64) uint64 { return ^a },
	OpSNegate:           func(a, _ uint64, _, _ int64) uint64 { return -a },
	OpUConvert:          func(a, _ uint64, _, _ int64) uint64 { return a },
	OpSConvert:          func(_, _ uint64, sa, _ int64) uint64 { return uint64(sa) },
	OpIEqual:            func(a, b uint64, _, _ int64) uint64 { return bit(a == b) },
	OpLogicalEqual:      func(a, b uint64, _, _ int64) uint64 { return bit(a == b) },
	OpINotEqual:         func(a, b uint64, _, _ int64) uint64 { return bit(a != b) },
	OpLogicalNotEqual:   func(a, b uint64, _, _ int64) uint64 { return bit(a != b) },
	OpLogicalAnd:        func(a, b uint64, _, _ int64) uint64 { return bit(a != 0 && b != 0) },
	OpLogicalOr:         func(a, b uint64, _, _ int64) uint64 { return bit(a != 0 || b != 0) },
	OpLogicalNot:        func(a, _ uint64, _, _ int64) uint64 { return bit(a == 0) },
	OpUGreaterThan:      func(a, b uint64, _, _ int64) uint64 { return bit(a > b) },
	OpUGreaterThanEqual: func(a, b uint64, _, _ int64) uint64 { return bit(a >= b) },
	OpULessThan:         func(a, b uint64, _, _ int64) uint64 { return bit(a < b) },
	OpULessThanEqual:    func(a, b uint64, _, _ int64) uint64 { return bit(a <= b) },
	OpSGreaterThan:      func(_, _ uint64, sa, sb int64) uint64 { return bit(sa > sb) },
	OpSGreaterThanEqual: func(_, _ uint64, sa, sb int64) uint64 { return bit(sa >= sb) },
	OpSLessThan:         func(_, _ uint64, sa, sb int64) uint64 { return bit(sa < sb) },
	OpSLessThanEqual:    func(_, _ uint64, sa, sb int64) uint64 { return bit(sa <= sb) },
}

// bit is a bool as a SPIR-V bool's value.
func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// extract works out an OpCompositeExtract of a constant composite
// (parts: the composite, then the indices).
func (z *sizer) extract(parts []uint32, depth int) (uint64, bool) {
	if len(parts) < 2 {
		return 0, false
	}
	id := parts[0]
	for _, i := range parts[1:] {
		c := z.m.consts[id]
		if c == nil || !c.composite || int64(i) >= int64(len(c.parts)) {
			return 0, false
		}
		id = c.parts[i]
	}
	return z.value(id, depth+1)
}
