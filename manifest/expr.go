package manifest

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
)

// This file is the expression language of manifests: a small, statically
// typed recursive-descent parser and a tree evaluator. Expressions are
// short (a dispatch grid, a buffer length) and evaluated a few times per
// Prepare, never per run, so clarity beats speed here.

// exprType is the static type of an expression: every name (dimension,
// param, let) and integer literal is an integer; a float literal, or an
// operation on a float, is a float.
type exprType uint8

const (
	intType exprType = iota
	floatType
)

// exprValue is the value of an expression: an int64 or a float64.
type exprValue struct {
	typ exprType
	i   int64
	f   float64
	// arr is set, and i and f unused, for a buffer whose elements an
	// expression reads by index (x[i]).
	arr *hostArray
}

func intValue(i int64) exprValue     { return exprValue{typ: intType, i: i} }
func floatValue(f float64) exprValue { return exprValue{typ: floatType, f: f} }

func (v exprValue) float() float64 {
	if v.typ == floatType {
		return v.f
	}
	return float64(v.i)
}

// truth is whether v is not 0 (NaN included): no integer but 0 is 0 as a float.
func (v exprValue) truth() bool { return v.float() != 0 }

func (v exprValue) String() string {
	if v.typ == floatType {
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	}
	return strconv.FormatInt(v.i, 10)
}

// nameKind says where a name comes from, which decides where it may be used.
type nameKind uint8

const (
	dimName    nameKind = iota // a dimension of the problem's size
	paramName                  // a candidate's param
	letName                    // a derived value of the operation
	wgName                     // local_size_x/y/z of the dispatch
	deviceName                 // a limit of the device: max_groups_x, subgroup_size, ...
	passName                   // "pass", the index of a repeated dispatch
	indexName                  // "i", the index of an element an expected value is for
	bufferName                 // a buffer whose initial elements an expected value reads: x[i]
)

// nameInfo describes a name an expression may use.
type nameInfo struct {
	kind nameKind
	typ  exprType
	// usesDims and usesParams say whether a let depends, directly or
	// through other lets, on dimensions or on per-candidate values
	// (params, workgroup sizes, the pass index).
	usesDims, usesParams bool
}

// exprScope is the set of names an expression may use, and why some known
// names may not be used where it stands.
type exprScope struct {
	names map[string]nameInfo
	// forbid, if set, returns why a name of that kind may not be used
	// here, or "" if it may.
	forbid func(info nameInfo) string
}

type expr struct {
	src  string
	root exprNode
	typ  exprType
	// names are the names it uses, in order of first use.
	names []string
	// usesDims and usesParams: as in nameInfo. usesDevice and usesPass
	// say whether it uses the device's limits and the pass index, which
	// are known only when a problem is prepared and a dispatch repeated.
	usesDims, usesParams, usesDevice, usesPass bool
}

// exprError is an error in an expression at a byte position (0-based);
// its message reads "at column N: what".
type exprError struct {
	pos int
	msg string
}

func (e *exprError) Error() string { return fmt.Sprintf("at column %d: %s", e.pos+1, e.msg) }
func (e *exprError) cause() error  { return e }

// exprNode is a node of a parsed expression. Its eval panics with an
// *exprError where the expression has no value (expr.eval catches it).
type exprNode interface {
	eval(env exprEnv) exprValue
}

type exprEnv map[string]exprValue

// intEnv is the environment of the integers in each of ms, such as a
// candidate's params.
func intEnv(ms ...map[string]int) exprEnv {
	env := exprEnv{}
	for _, m := range ms {
		for k, v := range m {
			env[k] = intValue(int64(v))
		}
	}
	return env
}

// exprFuncs are the functions of the language.
var exprFuncs = map[string]struct{ minArgs, maxArgs int }{
	"min": {2, -1}, "max": {2, -1}, "clamp": {3, 3},
	"ceil": {1, 1}, "floor": {1, 1}, "round": {1, 1}, "abs": {1, 1},
	"div_up": {2, 2}, "round_up": {2, 2}, "log2": {1, 1}, "pow": {2, 2},
	"select": {3, 3},
	"exp":    {1, 1}, "log": {1, 1}, "sqrt": {1, 1}, "sin": {1, 1}, "cos": {1, 1}, "tanh": {1, 1},
}

// floatFuncs are the functions of a float, whatever their argument.
var floatFuncs = map[string]func(float64) float64{
	"exp": math.Exp, "log": math.Log, "sqrt": math.Sqrt, "sin": math.Sin, "cos": math.Cos, "tanh": math.Tanh,
}

// reservedNames may not name dimensions, params or lets: the dispatch's
// workgroup size, the device's limits (kernels.DeviceLimits), the pass index and
// the element index.
var reservedNames = append(append([]string{"local_size_x", "local_size_y", "local_size_z"}, par.Map(kernels.DeviceLimits, func(l kernels.DeviceLimit) string { return l.Name })...), "pass", "i")

// parseExpr parses src in scope. Errors are *exprError: the parser
// panics with the first, which parseExpr recovers (as the decoder does
// with its errors).
func parseExpr(src string, scope exprScope) (_ *expr, err error) {
	defer catch[*exprError](&err)
	p := &exprParser{src: src, scope: scope, e: &expr{src: src}}
	if strings.TrimSpace(src) == "" {
		return nil, &exprError{0, "empty expression"}
	}
	root := p.parseOr()
	p.skipSpace()
	if p.pos < len(src) {
		return nil, p.errf(p.pos, "unexpected %q", p.rest())
	}
	p.e.root = root.n
	p.e.typ = root.typ
	return p.e, nil
}

// literalExpr is an expression for a plain number, for JSON numbers that
// stand where an expression may.
func literalExpr(v exprValue) *expr {
	return &expr{src: v.String(), root: constNode{v}, typ: v.typ}
}

// eval evaluates e in env; errors are *exprError.
func (e *expr) eval(env exprEnv) (_ exprValue, err error) {
	defer catch[*exprError](&err)
	return e.root.eval(env), nil
}

func (e *expr) evalInt(env exprEnv) (int64, error) {
	v, err := e.eval(env)
	if err != nil {
		return 0, err
	}
	if v.typ != intType {
		return 0, &exprError{0, "is a float, want an integer"}
	}
	return v.i, nil
}

type typedNode struct {
	n   exprNode
	typ exprType
	pos int
}

type exprParser struct {
	src   string
	pos   int
	scope exprScope
	e     *expr
	depth int
}

func (p *exprParser) errf(pos int, format string, args ...any) error {
	return &exprError{pos, fmt.Sprintf(format, args...)}
}

func (p *exprParser) rest() string {
	r := p.src[p.pos:]
	if len(r) > 12 {
		r = r[:12] + "…"
	}
	return r
}

func (p *exprParser) skipSpace() {
	p.pos = len(p.src) - len(strings.TrimLeft(p.src[p.pos:], " \t\n\r"))
}

// accept consumes op if it comes next (and is not the start of a longer
// operator in longer).
func (p *exprParser) accept(op string, longer ...string) bool {
	p.skipSpace()
	rest := p.src[p.pos:]
	if !strings.HasPrefix(rest, op) || slices.ContainsFunc(longer, func(l string) bool { return strings.HasPrefix(rest, l) }) {
		return false
	}
	p.pos += len(op)
	return true
}

type binaryOp struct {
	op  string
	not []string // longer operators that start with op
}

// binaryLevels are the binary operators by precedence, loosest first.
var binaryLevels = [][]binaryOp{
	{{op: "||"}},
	{{op: "&&"}},
	{{op: "=="}, {op: "!="}, {op: "<="}, {op: ">="}, {op: "<", not: []string{"<<"}}, {op: ">", not: []string{">>"}}},
	{{op: "<<"}, {op: ">>"}},
	{{op: "+"}, {op: "-"}},
	{{op: "*"}, {op: "/"}, {op: "%"}},
}

// parseOr parses a whole expression, from its loosest operator.
func (p *exprParser) parseOr() typedNode { return p.parseBinary(0) }

// parseBinary parses the operators of binaryLevels[level] and those that
// bind tighter, left to right.
func (p *exprParser) parseBinary(level int) typedNode {
	if level == len(binaryLevels) {
		return p.parseUnary()
	}
	left := p.parseBinary(level + 1)
	for {
		p.skipSpace()
		pos := p.pos
		// The first operator of the level that comes next, consumed.
		i := slices.IndexFunc(binaryLevels[level], func(o binaryOp) bool { return p.accept(o.op, o.not...) })
		if i < 0 {
			return left
		}
		left = p.binary(binaryLevels[level][i].op, pos, left, p.parseBinary(level+1))
	}
}

// maxExprDepth bounds the nesting of parentheses, calls and unary
// operators.
const maxExprDepth = 200

// nested parses with parse one level of nesting deeper, refusing an
// expression nested past maxExprDepth at pos.
func (p *exprParser) nested(pos int, parse func() typedNode) typedNode {
	if p.depth >= maxExprDepth {
		panic(p.errf(pos, "expression nested too deeply"))
	}
	p.depth++
	defer func() { p.depth-- }()
	return parse()
}

func (p *exprParser) parseUnary() typedNode {
	p.skipSpace()
	pos := p.pos
	for _, op := range []string{"-", "+", "!"} {
		if p.accept(op, "!=") {
			x := p.nested(pos, p.parseUnary)
			if op == "+" {
				return x
			}
			if op == "!" {
				x.typ = intType
			}
			return typedNode{unaryNode{op: op, pos: pos, x: x.n}, x.typ, pos}
		}
	}
	return p.parsePrimary()
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || '0' <= c && c <= '9' }

// isIdent reports whether s is a name the language can use: an
// isIdentStart, then isIdentChars.
func isIdent(s string) bool { return identRE.MatchString(s) }

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (p *exprParser) parsePrimary() typedNode {
	p.skipSpace()
	pos := p.pos
	if p.pos >= len(p.src) {
		panic(p.errf(pos, "expression ends where a value should be"))
	}
	c := p.src[p.pos]
	switch {
	case c == '(':
		p.pos++
		x := p.nested(pos, p.parseOr)
		if !p.accept(")") {
			panic(p.errf(p.pos, "missing ')' to close the '(' at column %d", pos+1))
		}
		return x
	case '0' <= c && c <= '9' || c == '.':
		return p.parseNumber()
	case isIdentStart(c):
		for p.pos < len(p.src) && isIdentChar(p.src[p.pos]) {
			p.pos++
		}
		name := p.src[pos:p.pos]
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == '(' {
			return p.parseCall(name, pos)
		}
		if p.pos < len(p.src) && p.src[p.pos] == '[' {
			return p.parseIndex(name, pos)
		}
		if info, ok := p.scope.names[name]; ok && info.kind == bufferName {
			panic(p.errf(pos, "%s is a buffer: read an element of it as %s[index]", name, name))
		}
		return p.name(name, pos)
	}
	panic(p.errf(pos, "unexpected %q", p.rest()))
}

// numberRE is a number's text: hexadecimal digits after 0x, else digits,
// points and exponents (with their sign), which make it a float.
var numberRE = regexp.MustCompile(`^(?:0[xX][0-9a-fA-F]*|[0-9.](?:[0-9.]|[eE][+-]?)*)`)

func (p *exprParser) parseNumber() typedNode {
	pos := p.pos
	text := numberRE.FindString(p.src[pos:])
	p.pos += len(text)
	if p.pos < len(p.src) && isIdentChar(p.src[p.pos]) {
		panic(p.errf(pos, "malformed number %q", text+string(p.src[p.pos])))
	}
	hex := strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X")
	if !hex && strings.ContainsAny(text, ".eE") {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) {
			panic(p.errf(pos, "malformed number %q", text))
		}
		return typedNode{constNode{floatValue(f)}, floatType, pos}
	}
	i, err := strconv.ParseInt(text, 0, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			panic(p.errf(pos, "integer %s does not fit 64 bits", text))
		}
		panic(p.errf(pos, "malformed number %q", text))
	}
	return typedNode{constNode{intValue(i)}, intType, pos}
}

func (p *exprParser) name(name string, pos int) typedNode {
	if _, ok := exprFuncs[name]; ok {
		panic(p.errf(pos, "%s is a function: call it as %s(…)", name, name))
	}
	info, ok := p.scope.names[name]
	if !ok {
		known := slices.DeleteFunc(slices.Sorted(maps.Keys(p.scope.names)), func(n string) bool {
			return p.scope.forbid != nil && p.scope.forbid(p.scope.names[n]) != ""
		})
		msg := unknown("name", name, known)
		if len(known) > 0 {
			msg += " (known here: " + strings.Join(known, ", ") + ")"
		} else {
			msg += " (no names can be used here)"
		}
		panic(&exprError{pos, msg})
	}
	if p.scope.forbid != nil {
		if why := p.scope.forbid(info); why != "" {
			panic(p.errf(pos, "%s cannot be used here: %s", name, why))
		}
	}
	if !slices.Contains(p.e.names, name) {
		p.e.names = append(p.e.names, name)
	}
	switch info.kind {
	case dimName:
		p.e.usesDims = true
	case paramName, wgName:
		p.e.usesParams = true
	case passName:
		p.e.usesParams, p.e.usesPass = true, true
	case deviceName:
		p.e.usesDevice = true
	case letName:
		p.e.usesDims = p.e.usesDims || info.usesDims
		p.e.usesParams = p.e.usesParams || info.usesParams
	}
	return typedNode{nameNode{name: name, pos: pos}, info.typ, pos}
}

// parseIndex parses name[index], an element of a buffer's initial
// contents.
func (p *exprParser) parseIndex(name string, pos int) typedNode {
	if info, ok := p.scope.names[name]; ok && info.kind != bufferName {
		panic(p.errf(pos, "%s is not a buffer, and only buffers are indexed", name))
	}
	base := p.name(name, pos)
	p.pos++ // '['
	idx := p.nested(pos, p.parseOr)
	if !p.accept("]") {
		panic(p.errf(p.pos, "missing ']' to close the '[' of %s at column %d", name, pos+1))
	}
	if idx.typ != intType {
		panic(p.errf(idx.pos, "the index of %s is a float; round it with ceil, floor or round", name))
	}
	return typedNode{indexNode{name: name, pos: pos, index: idx.n}, base.typ, pos}
}

func (p *exprParser) parseCall(name string, pos int) typedNode {
	f, ok := exprFuncs[name]
	if !ok {
		known := slices.Sorted(maps.Keys(exprFuncs))
		panic(&exprError{pos, unknown("function", name, known) + " (functions: " + strings.Join(known, ", ") + ")"})
	}
	p.pos++ // '('
	var args []typedNode
	if !p.accept(")") {
		for {
			args = append(args, p.nested(pos, p.parseOr))
			if p.accept(")") {
				break
			}
			if !p.accept(",") {
				panic(p.errf(p.pos, "missing ')' to close the call of %s at column %d", name, pos+1))
			}
		}
	}
	if len(args) < f.minArgs || f.maxArgs >= 0 && len(args) > f.maxArgs {
		want := strconv.Itoa(f.minArgs) // a function takes that many, or (maxArgs -1) at least that many
		if f.maxArgs < 0 {
			want = "at least " + want
		}
		panic(p.errf(pos, "%s takes %s arguments, got %d", name, want, len(args)))
	}
	return p.call(name, pos, args)
}

func (p *exprParser) call(name string, pos int, args []typedNode) typedNode {
	nodes := par.Map(args, func(a typedNode) exprNode { return a.n })
	anyFloat := slices.ContainsFunc(args, func(a typedNode) bool { return a.typ == floatType })
	typ := intType
	switch name {
	case "min", "max", "clamp", "abs", "pow":
		// Of integers, an integer (exactly); of a float, a float.
		if anyFloat {
			typ = floatType
		}
	case "ceil", "floor", "round":
		if args[0].typ == intType {
			hint := ""
			if strings.Contains(p.src[args[0].pos:p.pos], "/") {
				hint = "; '/' between integers truncates, so use div_up(a, b) to round a quotient up"
			}
			panic(p.errf(pos, "%s of an integer does nothing%s", name, hint))
		}
	case "exp", "log", "sqrt", "sin", "cos", "tanh":
		typ = floatType
	case "div_up", "round_up", "log2":
		for i, a := range args {
			if a.typ != intType {
				panic(p.errf(a.pos, "argument %d of %s is a float; %s takes integers", i+1, name, name))
			}
		}
	case "select":
		typ = max(args[1].typ, args[2].typ) // a float if either is
	}
	return typedNode{callNode{name: name, pos: pos, args: nodes, typ: typ}, typ, pos}
}

func (p *exprParser) binary(op string, pos int, l, r typedNode) typedNode {
	typ := intType
	switch op {
	case "+", "-", "*", "/":
		typ = max(l.typ, r.typ) // a float if either is
	case "%", "<<", ">>":
		if l.typ != intType || r.typ != intType {
			panic(p.errf(pos, "%s takes integers, not floats", op))
		}
	}
	return typedNode{binaryNode{op: op, pos: pos, l: l.n, r: r.n, typ: typ}, typ, l.pos}
}

// unknown says that name is no known what, and which of known it may be
// a typo of.
func unknown(what, name string, known []string) string {
	msg := fmt.Sprintf("unknown %s %q", what, name)
	if s := suggest(name, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return msg
}

// suggest returns the name in known closest to name, if one is close
// enough to be a likely typo.
func suggest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if d < bestD || d == bestD && best == "" {
			best, bestD = k, d
		}
	}
	if bestD > max(1, len(name)/3) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b)) // long names are not typos worth the quadratic time
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
