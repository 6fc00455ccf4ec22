package manifest

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/vkbench/vkbench/internal/par"
)

type constNode struct{ v exprValue }

func (n constNode) eval(exprEnv) exprValue { return n.v }

type nameNode struct {
	name string
	pos  int
}

func (n nameNode) eval(env exprEnv) exprValue {
	v, ok := env[n.name]
	if !ok {
		panic(&exprError{n.pos, fmt.Sprintf("%s has no value here", n.name)})
	}
	return v
}

type unaryNode struct {
	op  string
	pos int
	x   exprNode
}

func (n unaryNode) eval(env exprEnv) exprValue {
	x := n.x.eval(env)
	if n.op == "!" {
		return boolValue(!x.truth())
	}
	if x.typ == floatType {
		return floatValue(-x.f)
	}
	if x.i == math.MinInt64 {
		panic(&exprError{n.pos, "integer overflow"})
	}
	return intValue(-x.i)
}

func boolValue(b bool) exprValue {
	if b {
		return intValue(1)
	}
	return intValue(0)
}

type binaryNode struct {
	op   string
	pos  int
	l, r exprNode
	typ  exprType
}

func (n binaryNode) eval(env exprEnv) exprValue {
	l := n.l.eval(env)
	// && and || evaluate their right side only when it matters, so that
	// "K > 0 && N / K > 4" is safe.
	switch n.op {
	case "&&":
		if !l.truth() {
			return intValue(0)
		}
	case "||":
		if l.truth() {
			return intValue(1)
		}
	}
	r := n.r.eval(env)
	switch n.op {
	case "&&", "||":
		return boolValue(r.truth())
	case "==", "!=", "<", "<=", ">", ">=":
		return boolValue(compared(n.op, compare(l, r)))
	}
	if n.typ == floatType {
		return n.floatArith(l, r)
	}
	return n.intArith(l, r)
}

// compared says whether a comparison op holds for the sign c of compare.
func compared(op string, c int) bool {
	holds := map[int][]string{-1: {"<", "<=", "!="}, 0: {"==", "<=", ">="}, 1: {">", ">=", "!="}}
	return slices.Contains(holds[c], op)
}

func (n binaryNode) floatArith(l, r exprValue) exprValue {
	a, b := l.float(), r.float()
	switch n.op {
	case "+":
		return floatValue(a + b)
	case "-":
		return floatValue(a - b)
	case "*":
		return floatValue(a * b)
	}
	if b == 0 { // "/", the parser's last float operator
		panic(&exprError{n.pos, fmt.Sprintf("division by zero in %s / %s", l, r)})
	}
	return floatValue(a / b)
}

// intArith does integer arithmetic, refusing what overflows 64 bits.
func (n binaryNode) intArith(l, r exprValue) exprValue {
	a, b := l.i, r.i
	var v int64
	ok := true
	switch n.op {
	case "+":
		v = a + b
		ok = (v > a) == (b > 0)
	case "-":
		v = a - b
		ok = (v < a) == (b > 0)
	case "*":
		v, ok = mulInt(a, b)
	case "/", "%":
		if b == 0 {
			panic(&exprError{n.pos, fmt.Sprintf("division by zero in %s %s %s", l, n.op, r)})
		}
		ok = a != math.MinInt64 || b != -1
		if v = a / b; n.op == "%" {
			v = a % b
		}
	default: // "<<" or ">>", the parser's last integer operators
		if b < 0 || b > 62 {
			panic(&exprError{n.pos, fmt.Sprintf("shift by %d is outside [0, 62]", b)})
		}
		if v = a >> b; n.op == "<<" {
			v = a << b
			ok = v>>b == a
		}
	}
	if !ok {
		panic(&exprError{n.pos, fmt.Sprintf("integer overflow in %s %s %s", l, n.op, r)})
	}
	return intValue(v)
}

func compare(a, b exprValue) int {
	if a.typ == intType && b.typ == intType {
		return cmp.Compare(a.i, b.i)
	}
	// Not cmp.Compare: a NaN is neither below nor above anything here.
	x, y := a.float(), b.float()
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// mulInt returns a*b, and false where it overflows 64 bits: then the
// quotient does not give b back, or (the one case where it does) a is -1
// and b the least int64.
func mulInt(a, b int64) (int64, bool) {
	v := a * b
	return v, a == 0 || v/a == b && (a != -1 || b != math.MinInt64)
}

type callNode struct {
	name string
	pos  int
	args []exprNode
	typ  exprType
}

func (n callNode) eval(env exprEnv) exprValue {
	if n.name == "select" {
		// Only the chosen branch is evaluated.
		branch := n.args[2]
		if n.args[0].eval(env).truth() {
			branch = n.args[1]
		}
		return promote(branch.eval(env), n.typ)
	}
	args := par.Map(n.args, func(a exprNode) exprValue { return a.eval(env) })
	switch n.name {
	case "min", "max", "clamp", "abs":
		return n.ordering(args)
	case "ceil", "floor", "round":
		return n.rounding(args[0].f)
	case "pow":
		if n.typ == floatType {
			return n.finite(math.Pow(args[0].float(), args[1].float()))
		}
		return n.integer(args[0].i, args[1].i)
	case "div_up", "round_up", "log2":
		return n.integer(args[0].i, args[len(args)-1].i)
	}
	return n.finite(floatFuncs[n.name](args[0].float())) // the parser knows no other
}

// finite returns f, and fails where it is not a number (the square root
// or the logarithm of a negative number): an expected value that no
// result can match.
func (n callNode) finite(f float64) exprValue {
	if math.IsNaN(f) {
		panic(n.fail("not a number"))
	}
	return floatValue(f)
}

// indexNode reads element index of a buffer's initial contents.
type indexNode struct {
	name  string
	pos   int
	index exprNode
}

func (n indexNode) eval(env exprEnv) exprValue {
	v, ok := env[n.name]
	if !ok || v.arr == nil {
		panic(&exprError{n.pos, fmt.Sprintf("%s has no contents here", n.name)})
	}
	i := n.index.eval(env)
	if i.i < 0 || i.i >= v.arr.n {
		panic(&exprError{n.pos, fmt.Sprintf("%s[%d] is outside the buffer's %d elements", n.name, i.i, v.arr.n)})
	}
	return v.arr.at(i.i)
}

// fail is an error of the call, to panic with.
func (n callNode) fail(format string, a ...any) *exprError {
	return &exprError{n.pos, n.name + ": " + fmt.Sprintf(format, a...)}
}

// ordering evaluates min, max, clamp and abs, of integers or floats.
func (n callNode) ordering(args []exprValue) exprValue {
	switch n.name {
	case "min":
		return promote(slices.MinFunc(args, compare), n.typ)
	case "max":
		return promote(slices.MaxFunc(args, compare), n.typ)
	case "clamp":
		x, lo, hi := args[0], args[1], args[2]
		if compare(lo, hi) > 0 {
			panic(n.fail("low bound %s is above high bound %s", lo, hi))
		}
		if compare(x, lo) < 0 {
			x = lo
		}
		if compare(x, hi) > 0 {
			x = hi
		}
		return promote(x, n.typ)
	}
	if args[0].typ == floatType {
		return floatValue(math.Abs(args[0].f))
	}
	if args[0].i == math.MinInt64 {
		panic(n.fail("integer overflow"))
	}
	return intValue(max(args[0].i, -args[0].i))
}

// rounding evaluates ceil, floor and round, which make integers of floats.
func (n callNode) rounding(f float64) exprValue {
	f = map[string]func(float64) float64{"ceil": math.Ceil, "floor": math.Floor, "round": math.Round}[n.name](f)
	if math.IsNaN(f) || f >= 0x1p63 || f < -0x1p63 {
		panic(n.fail("%g does not fit a 64-bit integer", f))
	}
	return intValue(int64(f))
}

// integer evaluates div_up, round_up, pow (of a and b) and log2 (of a).
func (n callNode) integer(a, b int64) exprValue {
	switch n.name {
	case "div_up", "round_up":
		if b <= 0 {
			panic(n.fail("divisor %d is not positive", b))
		}
		if a < 0 {
			panic(n.fail("%d is negative", a))
		}
		q := a / b
		if a%b != 0 {
			q++
		}
		if n.name == "div_up" {
			return intValue(q)
		}
		v, ok := mulInt(q, b)
		if !ok {
			panic(n.fail("integer overflow"))
		}
		return intValue(v)
	case "log2":
		if a <= 0 {
			panic(n.fail("%d is not positive", a))
		}
		return intValue(int64(bits.Len64(uint64(a)) - 1))
	}
	if b < 0 {
		panic(n.fail("negative exponent %d", b))
	}
	// By squaring: a square that overflows would be a factor of the power.
	v, ok := int64(1), true
	for ; b > 0 && ok; b >>= 1 {
		if b&1 == 1 {
			v, ok = mulInt(v, a)
		}
		if b > 1 && ok {
			a, ok = mulInt(a, a)
		}
	}
	if !ok {
		panic(n.fail("integer overflow"))
	}
	return intValue(v)
}

func promote(v exprValue, typ exprType) exprValue {
	if typ == floatType && v.typ == intType {
		return floatValue(float64(v.i))
	}
	return v
}
