package manifest

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

type opDecoder struct {
	src     *manifestSource
	dir     string
	modules map[string]*manifestModule
	op      *manifestOp
	obj     *jsonObj
	names   map[string]nameInfo
	// lets by name; candObjs are the candidates' objects.
	lets     map[string]*manifestLet
	candObjs []*jsonObj
	digest   []byte
	// gather, in compileAhead's first pass, collects by module key the
	// GLSL that the candidates need and the cache does not hold (each
	// candidate decoded as far as its first), to compile together, in
	// parallel, before the decode that counts; failed are the sources
	// that did not compile, by module key; opts are the load's.
	gather map[string]glslJob
	failed map[string]error
	opts   *Options
	// space is set in the decode of a space's configurations; current is
	// the candidate being decoded.
	space   *manifestSpace
	current *jsonObj
}

// decodeOperation decodes the operation n, its GLSL compiled ahead in
// parallel (compileAhead); space, if set, is the space whose
// configurations n's candidates are.
func decodeOperation(src *manifestSource, dir string, modules map[string]*manifestModule, n *jsonNode, opts *Options, space *manifestSpace) (*manifestOp, error) {
	load := opDecoder{src: src, dir: dir, modules: modules, failed: map[string]error{}, opts: opts, space: space}
	if err := load.compileAhead(n); err != nil {
		return nil, err
	}
	d, err := load.decoder(n)
	if err != nil {
		return nil, err
	}
	op, err := d.decode()
	switch {
	case err != nil && space != nil:
		return nil, d.spaceError(err)
	case err == nil && space != nil && space.glsl:
		op.deferConfigs(d)
	}
	return op, err
}

// decode decodes the operation step by step; in compileAhead's first
// pass it stops after the candidates with errGathered.
func (d *opDecoder) decode() (_ *manifestOp, err error) {
	defer catch[decodeError](&err)
	steps := []func() error{d.decodeName, d.decodeDims, d.decodeParams, d.decodeLets, d.decodeAsserts,
		d.decodeBuffers, d.decodeCounts, d.decodeCandidates, d.decodeVerify, d.decodeDType}
	for _, step := range steps {
		check(step())
	}
	check(d.obj.done())
	check(d.finish())
	return d.op, nil
}

// decoder is a decoder of the operation n in load's manifest: its source,
// folder, modules, the sources that did not compile, options and space.
func (load opDecoder) decoder(n *jsonNode) (*opDecoder, error) {
	obj, err := load.src.object(n, "an operation")
	if err != nil {
		return nil, err
	}
	d := &load
	d.op, d.obj, d.names, d.lets = &manifestOp{ref: -1}, obj, map[string]nameInfo{}, map[string]*manifestLet{}
	for _, r := range reservedNames {
		kind := deviceName
		switch {
		case strings.HasPrefix(r, "local_size_"):
			kind = wgName
		case r == "pass":
			kind = passName
		case r == "i":
			kind = indexName
		}
		d.names[r] = nameInfo{kind: kind, typ: intType}
	}
	return d, nil
}

func (d *opDecoder) decodeName() error {
	n, name := d.obj.needString("name", "the operation's name")
	if !opNameRE.MatchString(name) {
		return d.src.errAt(n, "%q is not an operation name (lower case letters, digits and single '-' between them)", name)
	}
	d.op.name = name
	d.op.summary = "from a manifest"
	optional(d.obj, "summary", &d.op.summary, d.src.str)
	return nil
}

// checkNewName checks that name can be defined as a what (dimension,
// param, let, a space's param).
func (src *manifestSource) checkNewName(n *jsonNode, name, what string) error {
	if !isIdent(name) {
		return src.errAt(n, "%q is not a valid %s name (letters, digits and '_', not starting with a digit)", name, what)
	}
	if _, ok := exprFuncs[name]; ok {
		return src.errAt(n, "%q is a function of the expression language and cannot name a %s", name, what)
	}
	if slices.Contains(reservedNames, name) {
		return src.errAt(n, "%q is reserved (%s) and cannot name a %s", name, strings.Join(reservedNames, ", "), what)
	}
	return nil
}

// decodeDims reads "dims": an object of dimension names to default
// extents, each a positive integer or an object {"default", "integrated",
// "discrete"} for the defaults by kind of device.
func (d *opDecoder) decodeDims() error {
	n := must(d.obj.need("dims", `the problem's dimensions, such as {"N": 1048576}`))
	must(d.src.object(n, "dimension names to default extents"))
	if len(n.keys) == 0 {
		return d.src.errAt(n, "is empty; an operation has at least one dimension")
	}
	if len(n.keys) > kernels.MaxDims {
		return d.src.errAt(n, "has %d dimensions; an operation has at most %d", len(n.keys), kernels.MaxDims)
	}
	for i, name := range n.keys {
		v := n.vals[i]
		check(d.src.checkNewName(v, name, "dimension"))
		// --size names a dimension in any case (N=512 or n=512).
		if j := slices.IndexFunc(n.keys[:i], func(k string) bool { return strings.EqualFold(k, name) }); j >= 0 {
			return d.src.errAt(v, "differs from dimension %q only in case, and --size names dimensions in any case", n.keys[j])
		}
		extent := d.src.intIn(1, 1<<31-1)
		// An extent by kernels.SizeClass, 0 where not given: "discrete"
		// defaults to "integrated", and that to "default".
		var sizes [3]int
		if v.kind != jsonObject {
			sizes[kernels.SmallDevice] = must(extent(v))
		} else {
			o, _ := d.src.object(v, "")
			sizes[kernels.SmallDevice] = must(extent(must(o.need("default", "the default extent"))))
			optional(o, "integrated", &sizes[kernels.MediumDevice], extent)
			optional(o, "discrete", &sizes[kernels.LargeDevice], extent)
			check(o.done())
		}
		for class := range sizes {
			if sizes[class] == 0 {
				sizes[class] = sizes[class-1]
			}
			d.op.sizes[class] = kernels.SizeOf(append(d.op.sizes[class].Extents(), sizes[class])...)
		}
		d.op.dims = append(d.op.dims, name)
		d.names[name] = nameInfo{kind: dimName, typ: intType, usesDims: true}
	}
	return nil
}

// decodeParams reads every candidate's params first, so that the
// operation's expressions (lets, lengths, push constants) may use them.
func (d *opDecoder) decodeParams() error {
	for _, c := range must(d.obj.needList("candidates", "the kernels that compute the operation", "an operation has at least one candidate")) {
		obj := must(d.src.object(c, "a candidate"))
		run := &manifestRun{params: map[string]int{}}
		if p := obj.get("params"); p != nil {
			must(d.src.object(p, "param names to integers"))
			for i, name := range p.keys {
				check(d.src.checkNewName(p.vals[i], name, "param"))
				if info, ok := d.names[name]; ok && info.kind == dimName {
					return d.src.errAt(p.vals[i], "%q is a dimension; a param cannot have its name", name)
				}
				run.params[name] = int(must(d.src.integer(p.vals[i], math.MinInt32, math.MaxInt32)))
				d.names[name] = nameInfo{kind: paramName, typ: intType, usesParams: true}
			}
		}
		d.candObjs = append(d.candObjs, obj)
		d.op.runs = append(d.op.runs, run)
	}
	return nil
}

// exprContext says which names an expression may use where it stands,
// and why not the others.
type exprContext struct {
	dims, params, workgroup, device, pass, index bool
	why                                          string
}

func (d *opDecoder) scope(ctx exprContext) exprScope {
	allowed := map[nameKind]bool{dimName: ctx.dims, paramName: ctx.params, wgName: ctx.workgroup, deviceName: ctx.device,
		passName: ctx.pass, indexName: ctx.index, bufferName: ctx.index, letName: true}
	return exprScope{names: d.names, forbid: func(info nameInfo) string {
		what := nameKindWhat[info.kind]
		switch {
		case info.kind == letName && info.usesDims && !ctx.dims:
			what = "is a let that depends on the dimensions"
		case info.kind == letName && info.usesParams && !ctx.params:
			what = "is a let that depends on per-candidate params"
		case allowed[info.kind]:
			return ""
		}
		return "it " + what + ", and " + ctx.why
	}}
}

// nameKindWhat says what a name of each kind is, where it may not stand.
var nameKindWhat = [...]string{dimName: "is a dimension", paramName: "is a per-candidate param", wgName: "is the dispatch's workgroup size",
	deviceName: "is a limit of the device", passName: "counts the repeats of a dispatch", indexName: "is the element index of an expected value",
	bufferName: "is a buffer, whose elements only an expected value reads", letName: ""}

func (d *opDecoder) expression(n *jsonNode, ctx exprContext) manifestExpr {
	return manifestExpr{expr: must(d.src.expression(n, d.scope(ctx))), where: d.src.where(n)}
}

// intExpression reads an expression that must be an integer.
func (d *opDecoder) intExpression(n *jsonNode, ctx exprContext, what string) (manifestExpr, error) {
	e := d.expression(n, ctx)
	if e.typ != intType {
		return e, d.src.errAt(n, "expression %q is a float; %s must be an integer (round it with ceil, floor or round)", e.src, what)
	}
	return e, nil
}

// valueExpression reads an expression of a value of type t, which must
// be an integer unless t is a float ("a u32 " + integer says so).
func (d *opDecoder) valueExpression(n *jsonNode, ctx exprContext, t scalarType, integer string) manifestExpr {
	e := d.expression(n, ctx)
	if t.kind != floatKind && e.typ != intType {
		check(d.src.errAt(n, "expression %q is a float; a %s %s (round it with ceil, floor or round)", e.src, t.name, integer))
	}
	return e
}

// intExprIn returns a reader of integer expressions in ctx (what says
// what each is), for optional.
func (d *opDecoder) intExprIn(ctx exprContext, what string) func(*jsonNode) (*manifestExpr, error) {
	return func(n *jsonNode) (*manifestExpr, error) {
		e, err := d.intExpression(n, ctx, what)
		return &e, err
	}
}

func (d *opDecoder) decodeLets() error {
	n := d.obj.get("let")
	if n == nil {
		return nil
	}
	must(d.src.object(n, "names to expressions"))
	for i, name := range n.keys {
		v := n.vals[i]
		check(d.src.checkNewName(v, name, "let"))
		if _, ok := d.names[name]; ok {
			return d.src.errAt(v, "%q is already a dimension or a param", name)
		}
		e := d.expression(v, letContext)
		l := &manifestLet{name: name, manifestExpr: e}
		for _, u := range e.names {
			switch info := d.names[u]; info.kind {
			case paramName:
				l.params = append(l.params, u)
			case letName:
				l.params = append(l.params, d.lets[u].params...)
			}
		}
		slices.Sort(l.params)
		l.params = slices.Compact(l.params)
		d.op.lets = append(d.op.lets, l)
		d.lets[name] = l
		d.names[name] = nameInfo{kind: letName, typ: e.typ, usesDims: e.usesDims, usesParams: e.usesParams}
	}
	return nil
}

// missingParam returns a param that e needs and candidate c lacks, and
// the let that needs it ("" if e needs it directly).
func (d *opDecoder) missingParam(e *expr, c int) (param, let string) {
	run := d.op.runs[c]
	for _, name := range e.names {
		switch d.names[name].kind {
		case paramName:
			if _, ok := run.params[name]; !ok {
				return name, ""
			}
		case letName:
			for _, p := range d.lets[name].params {
				if _, ok := run.params[p]; !ok {
					return p, name
				}
			}
		}
	}
	return "", ""
}

// checkParams fails if candidate c cannot evaluate one of es (nil for
// one that is absent) for want of a param.
func (d *opDecoder) checkParams(c int, es ...*manifestExpr) error {
	for _, e := range es {
		if e == nil {
			continue
		}
		p, let := d.missingParam(e.expr, c)
		if p == "" {
			continue
		}
		via := ""
		if let != "" {
			via = " (through let " + let + ")"
		}
		return status.Newf(status.InvalidArgument, "manifest: %s: expression %q uses param %s%s, which candidate %q (%s) does not define",
			e.where, e.src, p, via, d.candName(c), d.candObjs[c].n.path)
	}
	return nil
}

func (d *opDecoder) candName(c int) string {
	if n := d.candObjs[c].n.member("name"); n != nil && n.kind == jsonString {
		return n.s
	}
	return strconv.Itoa(c)
}

func (d *opDecoder) decodeAsserts() error {
	d.op.asserts = d.asserts(d.obj, opAssertContext)
	return nil
}

func (d *opDecoder) asserts(obj *jsonObj, ctx exprContext) []manifestExpr {
	var out []manifestExpr
	if n := obj.get("assert"); n != nil {
		for _, a := range must(d.src.array(n, "conditions on the size")) {
			out = append(out, must(d.intExpression(a, ctx, "a condition")))
		}
	}
	return out
}

func (d *opDecoder) decodeCounts() error {
	count := func(n *jsonNode) (*manifestExpr, error) {
		e := d.expression(n, countContext)
		return &e, nil
	}
	optional(d.obj, "bytes", &d.op.bytes, count)
	optional(d.obj, "flops", &d.op.flops, count)
	return nil
}

func (d *opDecoder) decodeVerify() error {
	n := must(d.obj.need("verify", `{"reference": "candidate name"} to compare every candidate's outputs with one candidate's, {} to check the buffers' "expect" only, or "none"`))
	if n.kind == jsonString {
		if n.s != "none" {
			return d.src.errAt(n, `%q: want "none" or {"reference": "candidate name"}`, n.s)
		}
		for _, b := range d.op.bufs {
			if b.expects() {
				return d.src.errAt(b.expectNode, "\"verify\" is \"none\", which checks nothing; drop the \"expect\" or \"verify\": \"none\"")
			}
			b.check = false
		}
		return nil
	}
	o := must(d.src.object(n, `{"reference": "candidate name"} or "none"`))
	if r := o.get("reference"); r != nil {
		name, names := must(d.src.str(r)), par.Map(d.op.cands, func(c kernels.Candidate) string { return c.Name })
		if d.op.ref = slices.Index(names, name); d.op.ref < 0 {
			return d.src.errAt(r, "no candidate %q (candidates: %s)", name, strings.Join(names, ", "))
		}
	}
	if t := o.get("tolerance"); t != nil {
		tol := must(d.tolerance(t))
		for _, b := range d.op.bufs {
			if b.tol.rel < 0 && b.typ.kind == floatKind {
				b.tol = tol
			}
		}
	}
	noExpect := slices.IndexFunc(d.op.bufs, func(b *manifestBuffer) bool { return b.checked() && !b.expects() })
	if d.op.ref < 0 && noExpect >= 0 {
		return d.src.errAt(n, "names no reference candidate, and buffer %q has no \"expect\" to check it against: name a \"reference\", or give the buffer an \"expect\" or \"check\": false", d.op.bufs[noExpect].name)
	}
	return o.done()
}

func (d *opDecoder) decodeDType() error {
	if n := d.obj.get("dtype"); n != nil {
		s := must(d.src.str(n))
		dt, err := kernels.ParseDType(s)
		if err != nil {
			return d.src.errAt(n, "%s", status.Message(err))
		}
		d.op.dtype = dt
		return nil
	}
	i := slices.IndexFunc(d.op.bufs, func(b *manifestBuffer) bool { return b.role == roleOutput || b.role == roleInOut })
	if i < 0 {
		return d.src.errMissing(d.obj.n, "dtype", "no output buffer gives the operation's element type (f32, f16, bf16, i32 or u32)")
	}
	if d.op.dtype = d.op.bufs[i].typ.dtype(); d.op.dtype == 0 {
		return d.src.errMissing(d.obj.n, "dtype", "the first output's type "+d.op.bufs[i].typ.name+" is not one of f32, f16, bf16, i32, u32; name the operation's element type")
	}
	return nil
}

// finish checks what needs the whole operation: defaults for tolerances,
// buffers nobody binds, the names each candidate needs, and a dry run of
// every expression at the default size; then it fills in the digest.
func (d *opDecoder) finish() error {
	op := d.op
	for _, b := range op.bufs {
		if b.tol.rel < 0 {
			b.tol = defaultTolerances[b.typ.name] // none for integers, compared exactly
		}
		if !slices.Contains(b.users, true) {
			return status.Newf(status.InvalidArgument, "manifest: %s: buffer %q is bound by no dispatch of any candidate (give it a \"binding\", or name it in a candidate's \"bindings\")",
				b.where, b.name)
		}
		for c, uses := range b.users {
			if !uses {
				continue
			}
			check(d.checkParams(c, &b.len, b.first, b.count, b.expect))
		}
	}
	for c := range op.runs {
		check(d.checkParams(c, op.bytes, op.flops))
	}
	check(op.dryRun())
	d.digest = append(canonicalJSON(d.digest, d.obj.n), op.npy...)
	if d.space != nil && d.space.glsl {
		d.digest = append(d.digest, d.sourcesDigest()...)
	}
	h := sha256.Sum256(d.digest)
	for i := range op.cands {
		op.cands[i].Params["#manifest"] = int(binary.LittleEndian.Uint64(h[:]) >> 1)
	}
	return nil
}

// dryRun evaluates every expression at the default size of the smallest
// class, on any device, where any that cannot be evaluated says so now,
// not on a GPU runner later. A candidate may refuse the size with an
// assert.
func (op *manifestOp) dryRun() error {
	size := op.sizes[kernels.SmallDevice]
	lay, err := op.layout(size, nil)
	if err != nil {
		return status.Annotatef(err, "at the default size %s", size)
	}
	op.planAll(size, lay, nil)
	for c := range op.runs {
		if err := lay.errs[c]; err != nil && err != kernels.ErrDeferred {
			if isAssertFailure(err) {
				continue
			}
			return err
		}
		for i, b := range op.bufs {
			if b.expect == nil || !b.users[c] || lay.checks[c][i][1] == 0 {
				continue
			}
			env := maps.Clone(lay.envs[c])
			// No contents yet: zeros of the inputs' lengths.
			for k, in := range op.bufs {
				if in.read {
					env[in.name] = exprValue{arr: &hostArray{typ: in.typ, n: lay.lens[k]}}
				}
			}
			// At the first element checked and at the last: x[i + 1]
			// reads past the end only there.
			first, count := lay.checks[c][i][0], lay.checks[c][i][1]
			for _, idx := range []int64{first, first + count - 1} {
				if _, err := b.expected(idx, env); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

var (
	// Buffer lengths and the range of a buffer that is checked: before
	// any dispatch, and before a device is chosen (DefaultSize needs them).
	lengthContext   = exprContext{dims: true, params: true, why: "buffers are sized outside any dispatch, whatever the device"}
	assertContext   = exprContext{dims: true, params: true, device: true, why: "asserts are checked outside any dispatch"}
	opAssertContext = exprContext{dims: true, device: true, why: "the operation's asserts are the same for every candidate, outside any dispatch (use a candidate's assert for per-candidate conditions)"}
	// bytes and flops may differ between candidates (a candidate's unroll
	// factor, say), not between devices.
	countContext = exprContext{dims: true, params: true, why: "bytes and flops are counted outside any dispatch, whatever the device"}
	// Constants and workgroup sizes are fixed when a pipeline is built:
	// one for each distinct set of values, at each size and pass.
	pipelineContext = exprContext{dims: true, params: true, device: true, pass: true, why: "constants and the workgroup are what set it"}
	dispatchContext = exprContext{dims: true, params: true, workgroup: true, device: true, pass: true, why: "only an expected value has one"}
	repeatContext   = exprContext{dims: true, params: true, workgroup: true, device: true, why: "the count is worked out before the passes"}
	defineContext   = exprContext{params: true, why: "a GLSL source is compiled once per candidate, whatever the size or the device"}
	subgroupContext = exprContext{params: true, why: "a required subgroup size is fixed per candidate, whatever the size or the device"}
	letContext      = exprContext{dims: true, params: true, why: "lets are evaluated outside any dispatch, whatever the device"}
	initContext     = exprContext{dims: true, why: "a buffer's initial contents are the same for every candidate, whatever the device"}
	expectContext   = exprContext{dims: true, params: true, index: true, why: "expected values are worked out outside any dispatch, whatever the device"}
)
