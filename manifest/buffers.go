package manifest

import (
	"math"
	"regexp"
	"slices"
)

func (d *opDecoder) decodeBuffers() error {
	elems := must(d.obj.needList("buffers", "the buffers the kernels bind", "an operation has at least one buffer"))
	bindings := map[[2]int]string{}
	for _, b := range elems {
		buf := must(d.decodeBuffer(b))
		if slices.ContainsFunc(d.op.bufs, func(prev *manifestBuffer) bool { return prev.name == buf.name }) {
			return d.src.errAt(b.member("name"), "buffer %q is described twice", buf.name)
		}
		if buf.binding >= 0 {
			at := [2]int{buf.set, buf.binding}
			if other, ok := bindings[at]; ok && buf.set == 0 {
				return d.src.errAt(b.member("binding"), "binding %d is already buffer %q's", buf.binding, other)
			} else if ok {
				return d.src.errAt(b.member("binding"), "binding %d of set %d is already buffer %q's", buf.binding, buf.set, other)
			}
			bindings[at] = buf.name
		}
		buf.users = make([]bool, len(d.op.runs))
		d.op.bufs = append(d.op.bufs, buf)
	}
	return d.decodeExpects()
}

// maxSets bounds a buffer's "set": more than any device binds (32 on the
// most generous), fewer than would make its layouts a burden.
const maxSets = 64

func (d *opDecoder) decodeBuffer(n *jsonNode) (*manifestBuffer, error) {
	o := must(d.src.object(n, "a buffer"))
	nameNode, name := o.needString("name", "the buffer's name")
	b := &manifestBuffer{name: name, binding: -1, check: true, where: d.src.where(n)}
	if !bufNameRE.MatchString(b.name) {
		return nil, d.src.errAt(nameNode, "%q is not a buffer name (letters, digits, '_', '.', '-')", b.name)
	}
	if in := o.get("image"); in != nil {
		check(d.decodeImage(o, in, b))
	} else {
		check(d.decodeElements(o, b))
	}
	if n := o.get("role"); n != nil {
		b.role = bufferRole(must(d.src.choice(n, "role", roleNames, ", ")))
	}
	optional(o, "binding", &b.binding, d.src.intIn(0, 1<<16-1))
	optional(o, "set", &b.set, d.src.intIn(0, maxSets-1))
	if n := o.get("set"); n != nil && b.binding < 0 {
		return nil, d.src.errAt(n, "a buffer's \"set\" needs its \"binding\" in that set")
	}
	b.init = bufferInit{kind: "random"}
	if in := o.get("init"); in != nil {
		if b.role == roleOutput || b.role == roleScratch {
			return nil, d.src.errAt(in, "a buffer of role %q is not initialised (its contents are poisoned before each verified run); use role \"inout\" for a buffer that starts with data and is written", roleNames[b.role])
		}
		b.init = must(d.decodeInit(in, b))
	} else {
		defaultRange(&b.init, b.typ)
	}
	check(d.decodeCheck(o, b))
	b.tol = tolerance{rel: -1}
	if t := o.get("tolerance"); t != nil {
		if b.typ.kind != floatKind {
			return nil, d.src.errAt(t, "a %s buffer is compared exactly; only float buffers take a tolerance", b.typ.name)
		}
		b.tol = must(d.tolerance(t))
	}
	return b, o.done()
}

// decodeElements reads a plain buffer's "type" and "len".
func (d *opDecoder) decodeElements(o *jsonObj, b *manifestBuffer) error {
	if sn := o.get("sampler"); sn != nil {
		return d.src.errAt(sn, "only an image has a sampler")
	}
	typeNode := must(o.need("type", "the element type: "+scalarTypeNames()+` (or "image": {...} for an image)`))
	b.typ = must(d.scalarType(typeNode))
	lenNode := must(o.need("len", `the number of elements, an expression such as "N" or "M*K"`))
	b.len = must(d.intExpression(lenNode, lengthContext, "a length"))
	return nil
}

// decodeCheck reads what of an output or inout buffer is checked:
// "check" (false for nothing, or {"first": a, "count": n} for part of
// it) and "expect", the value each element checked must have, as an
// expression of its index i, in place of the reference candidate's.
func (d *opDecoder) decodeCheck(o *jsonObj, b *manifestBuffer) error {
	c, x := o.get("check"), o.get("expect")
	for _, n := range []*jsonNode{c, x} {
		if n != nil && b.role != roleOutput && b.role != roleInOut {
			return d.src.errAt(n, "only output and inout buffers are checked")
		}
	}
	switch {
	case c != nil && c.kind == jsonObject:
		co, _ := d.src.object(c, "")
		optional(co, "first", &b.first, d.intExprIn(lengthContext, "the first element checked"))
		optional(co, "count", &b.count, d.intExprIn(lengthContext, "the number of elements checked"))
		check(co.done())
	case c != nil:
		var err error
		if b.check, err = d.src.boolean(c); err != nil {
			return d.src.errAt(c, "is %s; want true, false or {\"first\": a, \"count\": n}", c.kind)
		}
	}
	if x != nil && !b.check {
		return d.src.errAt(x, "the buffer is not checked (\"check\": false)")
	}
	b.expectNode = x
	return nil
}

// decodeExpects reads the buffers' "expect": an expression of the
// element index i, the dims, params and lets, and the initial elements
// of the input and inout buffers, or {"npy": path}, the values of a .npy
// file.
func (d *opDecoder) decodeExpects() error {
	for _, b := range d.op.bufs {
		_, taken := d.names[b.name]
		if (b.role == roleInput || b.role == roleInOut) && isIdent(b.name) && !taken {
			typ := intType
			if b.typ.kind == floatKind {
				typ = floatType
			}
			d.names[b.name] = nameInfo{kind: bufferName, typ: typ, usesDims: true}
		}
	}
	for _, b := range d.op.bufs {
		x := b.expectNode
		if x == nil {
			continue
		}
		if x.kind == jsonObject {
			o, _ := d.src.object(x, "")
			pn := must(o.need("npy", `the path of a .npy file of the expected values, such as {"npy": "y.npy"}`))
			b.expectNpy = must(d.npy(pn, b))
			check(o.done())
			continue
		}
		e := d.valueExpression(x, expectContext, b.typ, "buffer holds integers")
		b.expect = &e
		for _, name := range e.names {
			if d.names[name].kind == bufferName {
				i := slices.IndexFunc(d.op.bufs, func(b *manifestBuffer) bool { return b.name == name })
				d.op.bufs[i].read = true
			}
		}
	}
	return nil
}

func (d *opDecoder) scalarType(n *jsonNode) (scalarType, error) {
	s := must(d.src.str(n))
	t, ok := lookupScalarType(s)
	if !ok {
		return t, d.src.errAt(n, "unknown type %q (want one of %s)", s, scalarTypeNames())
	}
	return t, nil
}

// decodeInit reads "zeros", "iota", "random", {"fill": v},
// {"iota": {"start", "step"}}, {"random": {"seed", "min", "max"}} or
// {"npy": path}. Values are numbers or expressions of the dims and lets
// ("0 - HALF"), worked out at each size.
func (d *opDecoder) decodeInit(n *jsonNode, b *manifestBuffer) (bufferInit, error) {
	t := b.typ
	in := bufferInit{}
	kinds := `"zeros", "iota", "random", {"fill": value}, {"iota": {"start": a, "step": b}}, {"random": {"seed": s, "min": a, "max": b}} or {"npy": "file.npy"}`
	var body *jsonNode
	switch n.kind {
	case jsonString:
		in.kind = n.s
	case jsonObject:
		if len(n.keys) != 1 {
			return in, d.src.errAt(n, "want exactly one of fill, iota, random (%s)", kinds)
		}
		in.kind, body = n.keys[0], n.vals[0]
	default:
		return in, d.src.errAt(n, "is %s; want %s", n.kind, kinds)
	}
	// value reads the value of slot (initValue, initStep, initLo,
	// initHi): a number now, or an expression for later.
	value := func(slot int) func(v *jsonNode) (exprValue, error) {
		return func(v *jsonNode) (exprValue, error) {
			if v.kind != jsonString {
				return d.initValue(v, t)
			}
			e := d.valueExpression(v, initContext, t, "buffer holds integers")
			in.exprs[slot] = &e
			return exprValue{typ: e.typ}, nil
		}
	}
	switch in.kind {
	case "npy":
		if body == nil {
			return in, d.src.errAt(n, `npy needs a path: {"npy": "x.npy"}`)
		}
		in.arr = must(d.npy(body, b))
	case "zeros":
		if body != nil {
			return in, d.src.errAt(body, "zeros takes nothing; write \"zeros\"")
		}
	case "fill":
		if body == nil {
			return in, d.src.errAt(n, `fill needs a value: {"fill": 1.5}`)
		}
		in.value = must(value(initValue)(body))
	case "iota":
		in.value, in.step = intValue(0), intValue(1)
		if t.kind == floatKind {
			in.value, in.step = floatValue(0), floatValue(1)
		}
		if body != nil {
			o := must(d.src.object(body, `{"start": a, "step": b}`))
			optional(o, "start", &in.value, value(initValue))
			optional(o, "step", &in.step, value(initStep))
			check(o.done())
		}
	case "random":
		defaultRange(&in, t)
		if body == nil {
			break
		}
		o := must(d.src.object(body, `{"seed": s, "min": a, "max": b}`))
		if s := o.get("seed"); s != nil {
			in.seed, in.hasSeed = uint64(must(d.src.integer(s, 0, math.MaxInt64))), true
		}
		optional(o, "min", &in.lo, value(initLo))
		optional(o, "max", &in.hi, value(initHi))
		check(o.done())
		if in.exprs[initLo] == nil && in.exprs[initHi] == nil && compare(in.lo, in.hi) > 0 {
			return in, d.src.errAt(body, "min %s is above max %s", in.lo, in.hi)
		}
	default:
		return in, d.src.errAt(n, "unknown init %q; want %s", in.kind, kinds)
	}
	return in, nil
}

// initValue reads a value of an init: a number a buffer of type t holds.
func (d *opDecoder) initValue(v *jsonNode, t scalarType) (exprValue, error) {
	f := must(d.src.number(v))
	if t.kind == floatKind {
		if err := t.encode(make([]byte, 8), floatValue(f)); err != nil { // unorm8's range
			return exprValue{}, d.src.errAt(v, "%v", err)
		}
		return floatValue(f), nil
	}
	i, err := d.src.integer(v, math.MinInt64, math.MaxInt64)
	if err != nil {
		return exprValue{}, d.src.errAt(v, "%s is not an integer; a %s buffer holds integers", v.s, t.name)
	}
	if err := t.encode(make([]byte, 8), intValue(i)); err != nil {
		return exprValue{}, d.src.errAt(v, "%v", err)
	}
	return intValue(i), nil
}

// defaultRange sets the range of random contents when the manifest gives
// none: [-1, 1) for floats ([0, 1] for an image's unorm8 texels), and small integers ([-100, 100] signed, [0,
// 255] unsigned) that sums of many do not overflow.
func defaultRange(in *bufferInit, t scalarType) {
	switch {
	case t == unorm8:
		in.lo, in.hi = floatValue(0), floatValue(1)
	case t.kind == floatKind:
		in.lo, in.hi = floatValue(-1), floatValue(1)
	case t.kind == intKind:
		in.lo, in.hi = intValue(-100), intValue(100)
	default:
		in.lo, in.hi = intValue(0), intValue(255)
	}
}

func (d *opDecoder) tolerance(n *jsonNode) (tolerance, error) {
	o := must(d.src.object(n, `{"rel": r, "abs": a}`))
	bound := func(n *jsonNode) (float64, error) {
		v, err := d.src.number(n)
		if err == nil && v < 0 {
			err = d.src.errAt(n, "is negative")
		}
		return v, err
	}
	var t tolerance
	optional(o, "rel", &t.rel, bound)
	optional(o, "abs", &t.abs, bound)
	return t, o.done()
}

var bufNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)
