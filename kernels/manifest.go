package kernels

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// ManifestSchema is the schema a manifest names in its "schema" field.
// Later versions of the format get a new name; a manifest of another
// version is refused, not guessed at.
const ManifestSchema = "vkbench.manifest/v1"

// LoadManifest reads the manifest file at path and returns its
// operations, which the tuner measures as it does the built-in ones. Paths
// in the manifest are relative to the manifest's folder.
//
// A manifest is JSON, decoded strictly: an unknown field is an error that
// names it (and suggests the field it was probably meant to be). Every
// object may have a "comment" string. In short (testdata/manifests/README.md
// has the whole format, with examples):
//
//	{"schema": "vkbench.manifest/v1", "operations": [{
//	  "name": "saxpy",                      // lower case, digits, '-'
//	  "summary": "y = a*x + y",
//	  "dtype": "f32",                       // default: the first output's type
//	  "dims": {"N": 1048576},               // ordered; default extents
//	  "let": {"G": "div_up(N, 256)"},       // derived values, in order
//	  "assert": ["N % 4 == 0"],             // sizes the operation accepts
//	  "buffers": [
//	    {"name": "x", "type": "f32", "len": "N", "binding": 0,
//	     "init": {"random": {"seed": 7, "min": -1, "max": 1}}},
//	    {"name": "y", "type": "f32", "len": "N", "binding": 1,
//	     "role": "inout", "init": "zeros"}],
//	  "push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
//	  "bytes": "12*N", "flops": "2*N",      // default bytes: inputs + outputs
//	  "verify": {"reference": "scalar", "tolerance": {"rel": 1e-6, "abs": 1e-6}},
//	  "candidates": [
//	    {"name": "scalar", "spirv": "saxpy.spv", "workgroup": [256],
//	     "groups": ["div_up(N, local_size_x)"]},
//	    {"name": "vec4", "spirv": "saxpy_vec4.spv", "entry": "main",
//	     "constants": {"0": "WG"}, "params": {"WG": 64},
//	     "groups": ["div_up(N, 4*WG)", 1, 1]}]}]}
//
// Expressions are strings (or plain JSON numbers) in a small language:
// integer and float literals, + - * / % (integer division truncates, as
// in GLSL), << >>, comparisons and && || ! (1 or 0), parentheses, and
// min, max, clamp, abs, ceil, floor, round, div_up (ceiling division),
// round_up (to a multiple), log2, pow and select(cond, a, b). They use the
// dimensions, the candidate's params, the operation's lets, and, in a
// dispatch's groups, push constants and repeat, local_size_x/y/z (the
// dispatch's workgroup size), max_groups_x/y/z (the device's limits on
// workgroups, to fold a large grid into y) and pass (the index of a
// repeated dispatch). Names and
// integer literals are integers and a float literal makes a float;
// types are checked when the manifest is read, so ceil(N/256), which
// rounds nothing, is an error that points to div_up.
//
// A candidate with "dispatches" runs several dispatches, with a barrier
// between each, every one with its own module, entry point, constants,
// workgroup, groups, push constants, bindings, and "repeat" count. A
// buffer's "role" is input (the default: filled by "init", only read),
// output (written; poisoned before each verified run), inout (filled by
// "init", written, and restored before every run: the problem is a
// Resetter) or scratch (intermediate, never checked). Buffers are bound
// at their "binding", or as a dispatch's "bindings" list (buffer names by
// binding number) says.
//
// Verification runs the "reference" candidate once on the same inputs
// when a problem is prepared, and compares every output and inout buffer
// of a candidate with its results: integers exactly, floats within
// abs + rel·|want| (per buffer "tolerance", else the operation's, else
// a default for the type). "verify": "none" checks nothing.
//
// Everything is checked when the manifest is read: each SPIR-V file
// exists and parses (hal.ParseSPIRV); the entry point exists; every
// binding the entry point uses is a storage buffer in set 0 and has a
// buffer; every constant_id exists in the module, with a value that fits
// its type; a given workgroup agrees with the module's (a literal
// LocalSize, or local_size_x_id and friends, which "workgroup" then sets);
// the push constants cover the module's block; every expression parses,
// uses only names it may, and evaluates at the default size. Each problem
// is an error with code InvalidArgument (NotFound for a missing file) that
// names the file, line and column, the field's path
// (operations[0].candidates[1].groups[0]) and, in an expression, the
// column.
func LoadManifest(path string) ([]Operation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileError(err, "kernels: manifest %s", path)
	}
	return parseManifest(&manifestSource{name: path, data: data}, filepath.Dir(path))
}

// ParseManifest reads a manifest from data, resolving the paths it names
// relative to dir. Errors name the manifest "manifest".
func ParseManifest(data []byte, dir string) ([]Operation, error) {
	return parseManifest(&manifestSource{name: "manifest", data: data}, dir)
}

// fileError gives an error reading a file code NotFound if the file does
// not exist, InvalidArgument otherwise (it is the manifest's to fix).
func fileError(err error, format string, args ...any) error {
	code := status.InvalidArgument
	if errors.Is(err, fs.ErrNotExist) {
		code = status.NotFound
	}
	return status.Wrapf(err, code, format, args...)
}

var opNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
var candNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

func parseManifest(src *manifestSource, dir string) ([]Operation, error) {
	root, err := src.parseJSON()
	if err != nil {
		return nil, err
	}
	top, err := src.object(root, "a manifest")
	if err != nil {
		return nil, err
	}
	schema, err := top.need("schema", `"`+ManifestSchema+`"`)
	if err != nil {
		return nil, err
	}
	s, err := src.str(schema)
	if err != nil {
		return nil, err
	}
	if s != ManifestSchema {
		if strings.HasPrefix(s, "vkbench.manifest/") {
			return nil, src.errAt(schema, "unsupported version %q (this vkbench reads %q)", s, ManifestSchema)
		}
		return nil, src.errAt(schema, "%q is not a vkbench manifest schema (want %q)", s, ManifestSchema)
	}
	opsNode, err := top.need("operations", "the list of operations")
	if err != nil {
		return nil, err
	}
	if err := top.done(); err != nil {
		return nil, err
	}
	elems, err := src.array(opsNode, "the list of operations")
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, src.errAt(opsNode, "is empty; a manifest describes at least one operation")
	}
	modules := map[string]*manifestModule{}
	var ops []Operation
	for _, n := range elems {
		op, err := decodeOperation(src, dir, modules, n)
		if err != nil {
			return nil, err
		}
		for _, prev := range ops {
			if prev.Name() == op.name {
				return nil, src.errAt(n.member("name"), "operation %q is described twice", op.name)
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// manifestOp is an Operation described by a manifest.
type manifestOp struct {
	name, summary string
	dtype         DType
	dims          []string
	sizes         [3]Size // default sizes by sizeClass
	lets          []*manifestLet
	asserts       []manifestExpr
	bufs          []*manifestBuffer
	bytes, flops  *manifestExpr
	ref           int // the reference candidate; -1 when nothing is verified
	cands         []Candidate
	runs          []*manifestRun
}

// manifestExpr is an expression and where it was written, for errors.
type manifestExpr struct {
	*expr
	where string // "file:line:col: json.path"
}

// errorf returns an error about the expression with code, such as an
// evaluation error.
func (m manifestExpr) errorf(code status.Code, err error) error {
	return status.Newf(code, "kernels: manifest %s: expression %q %v", m.where, m.src, err)
}

type manifestLet struct {
	name string
	manifestExpr
	info nameInfo
	// params are the params it needs, directly or through other lets.
	params []string
}

type bufferRole uint8

const (
	roleInput bufferRole = iota
	roleOutput
	roleInOut
	roleScratch
)

var roleNames = []string{"input", "output", "inout", "scratch"}

type manifestBuffer struct {
	where   string
	name    string
	typ     scalarType
	len     manifestExpr
	role    bufferRole
	init    bufferInit
	check   bool
	tol     tolerance
	binding int // -1: none
	// users[c] says whether candidate c binds the buffer.
	users []bool
}

// manifestRun is how a candidate runs.
type manifestRun struct {
	params     map[string]int
	lets       []bool // lets[i]: the candidate has every param let i needs
	asserts    []manifestExpr
	dispatches []*manifestDispatch
	// needs are module capabilities Requirements cannot express, checked
	// against the device when a problem is prepared.
	needs []string
}

type manifestDispatch struct {
	where    string
	desc     hal.ExecutableDesc
	key      string // identifies the pipeline: equal keys, same pipeline
	wg       [3]uint32
	bindings []int // buffer index by binding number
	push     []pushField
	pushSize int
	groups   [3]manifestExpr
	repeat   *manifestExpr
}

type pushField struct {
	typ    scalarType
	offset int
	value  manifestExpr
}

// opDecoder decodes one operation.
type opDecoder struct {
	src     *manifestSource
	dir     string
	modules map[string]*manifestModule
	op      *manifestOp
	obj     *jsonObj
	names   map[string]nameInfo
	// lets by name; cands are the candidates' objects.
	lets      map[string]*manifestLet
	candObjs  []*jsonObj
	candNodes []*jsonNode
	// pushNode is the operation's push_constants, or nil.
	pushNode *jsonNode
	digest   []byte
}

// where returns "file:line:col: path" of n.
func (d *opDecoder) where(n *jsonNode) string {
	return d.src.position(n.off) + ": " + n.path
}

func decodeOperation(src *manifestSource, dir string, modules map[string]*manifestModule, n *jsonNode) (*manifestOp, error) {
	obj, err := src.object(n, "an operation")
	if err != nil {
		return nil, err
	}
	d := &opDecoder{src: src, dir: dir, modules: modules, op: &manifestOp{ref: -1}, obj: obj,
		names: map[string]nameInfo{}, lets: map[string]*manifestLet{}}
	for _, r := range reservedNames {
		kind := wgName
		if r == "pass" {
			kind = passName
		}
		d.names[r] = nameInfo{kind: kind, typ: intType}
	}
	steps := []func() error{d.decodeName, d.decodeDims, d.decodeParams, d.decodeLets, d.decodeAsserts,
		d.decodeBuffers, d.decodeCounts, d.decodeCandidates, d.decodeVerify, d.decodeDType}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if err := obj.done(); err != nil {
		return nil, err
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	return d.op, nil
}

func (d *opDecoder) decodeName() error {
	n, err := d.obj.need("name", "the operation's name")
	if err != nil {
		return err
	}
	name, err := d.src.str(n)
	if err != nil {
		return err
	}
	if !opNameRE.MatchString(name) {
		return d.src.errAt(n, "%q is not an operation name (lower case letters, digits and single '-' between them)", name)
	}
	for _, b := range builtins {
		if b.Name() == name {
			return d.src.errAt(n, "%q is the name of a built-in operation; choose another", name)
		}
	}
	d.op.name = name
	d.op.summary = "from a manifest"
	if s := d.obj.get("summary"); s != nil {
		if d.op.summary, err = d.src.str(s); err != nil {
			return err
		}
	}
	return nil
}

// checkNewName checks that name can be defined as a what (dimension,
// param, let).
func (d *opDecoder) checkNewName(n *jsonNode, name, what string) error {
	if !isIdent(name) {
		return d.src.errAt(n, "%q is not a valid %s name (letters, digits and '_', not starting with a digit)", name, what)
	}
	if _, ok := exprFuncs[name]; ok {
		return d.src.errAt(n, "%q is a function of the expression language and cannot name a %s", name, what)
	}
	if slices.Contains(reservedNames, name) {
		return d.src.errAt(n, "%q is reserved (%s) and cannot name a %s", name, strings.Join(reservedNames, ", "), what)
	}
	return nil
}

// decodeDims reads "dims": an object of dimension names to default
// extents, each a positive integer or an object {"default", "integrated",
// "discrete"} for the defaults by kind of device.
func (d *opDecoder) decodeDims() error {
	n, err := d.obj.need("dims", `the problem's dimensions, such as {"N": 1048576}`)
	if err != nil {
		return err
	}
	if _, err := d.src.object(n, "dimension names to default extents"); err != nil {
		return err
	}
	if len(n.keys) == 0 {
		return d.src.errAt(n, "is empty; an operation has at least one dimension")
	}
	for i := range d.op.sizes {
		d.op.sizes[i] = make(Size, len(n.keys))
	}
	for i, name := range n.keys {
		v := n.vals[i]
		if err := d.checkNewName(v, name, "dimension"); err != nil {
			return err
		}
		extent := func(v *jsonNode) (int, error) {
			x, err := d.src.integer(v, 1, 1<<31-1)
			return int(x), err
		}
		if v.kind == jsonObject {
			o, _ := d.src.object(v, "")
			def, err := o.need("default", "the default extent")
			if err != nil {
				return err
			}
			x, err := extent(def)
			if err != nil {
				return err
			}
			sizes := [3]int{x, x, x}
			for class, key := range map[sizeClass]string{mediumDevice: "integrated", largeDevice: "discrete"} {
				if k := o.get(key); k != nil {
					if sizes[class], err = extent(k); err != nil {
						return err
					}
				}
			}
			if k := o.get("integrated"); k != nil && o.get("discrete") == nil {
				sizes[largeDevice] = sizes[mediumDevice]
			}
			if err := o.done(); err != nil {
				return err
			}
			for class := range sizes {
				d.op.sizes[class][i] = sizes[class]
			}
		} else {
			x, err := extent(v)
			if err != nil {
				return err
			}
			for class := range d.op.sizes {
				d.op.sizes[class][i] = x
			}
		}
		d.op.dims = append(d.op.dims, name)
		d.names[name] = nameInfo{kind: dimName, typ: intType, usesDims: true}
	}
	return nil
}

// decodeParams reads every candidate's params first, so that the
// operation's expressions (lets, lengths, push constants) may use them.
func (d *opDecoder) decodeParams() error {
	n, err := d.obj.need("candidates", "the kernels that compute the operation")
	if err != nil {
		return err
	}
	elems, err := d.src.array(n, "the kernels that compute the operation")
	if err != nil {
		return err
	}
	if len(elems) == 0 {
		return d.src.errAt(n, "is empty; an operation has at least one candidate")
	}
	for _, c := range elems {
		obj, err := d.src.object(c, "a candidate")
		if err != nil {
			return err
		}
		run := &manifestRun{params: map[string]int{}}
		if p := obj.get("params"); p != nil {
			if _, err := d.src.object(p, "param names to integers"); err != nil {
				return err
			}
			for i, name := range p.keys {
				if err := d.checkNewName(p.vals[i], name, "param"); err != nil {
					return err
				}
				if info, ok := d.names[name]; ok && info.kind == dimName {
					return d.src.errAt(p.vals[i], "%q is a dimension; a param cannot have its name", name)
				}
				v, err := d.src.integer(p.vals[i], math.MinInt32, math.MaxInt32)
				if err != nil {
					return err
				}
				run.params[name] = int(v)
				d.names[name] = nameInfo{kind: paramName, typ: intType, usesParams: true}
			}
		}
		d.candObjs = append(d.candObjs, obj)
		d.candNodes = append(d.candNodes, c)
		d.op.runs = append(d.op.runs, run)
	}
	return nil
}

// exprContext says which names an expression may use where it stands,
// and why not the others.
type exprContext struct {
	dims, params, dispatch, pass bool
	why                          string
}

var (
	// Buffer lengths and candidates' asserts: no dispatch yet.
	lengthContext = exprContext{dims: true, params: true, why: "it is known before any dispatch"}
	// bytes, flops and the operation's asserts are the same for every
	// candidate.
	countContext = exprContext{dims: true, why: "it is the same for every candidate (use a candidate's assert for per-candidate conditions)"}
	// Constants and workgroups are fixed when the pipeline is built,
	// before any size.
	pipelineContext = exprContext{params: true, why: "pipelines are built once per candidate, before any size is known (pass sizes as push constants)"}
	dispatchContext = exprContext{dims: true, params: true, dispatch: true, pass: true}
	repeatContext   = exprContext{dims: true, params: true, dispatch: true, why: "pass counts the repeats"}
	// Lets are evaluated per candidate, outside any dispatch.
	letContext = exprContext{dims: true, params: true, why: "lets are evaluated outside any dispatch"}
)

func (d *opDecoder) scope(ctx exprContext) exprScope {
	return exprScope{names: d.names, forbid: func(name string, info nameInfo) string {
		switch {
		case info.kind == dimName && !ctx.dims:
			return "it is a dimension, and " + ctx.why
		case info.kind == paramName && !ctx.params:
			return "it is a per-candidate param, and " + ctx.why
		case info.kind == wgName && !ctx.dispatch, info.kind == passName && !ctx.pass:
			return "it belongs to a dispatch, and " + ctx.why
		case info.kind == letName && info.usesDims && !ctx.dims:
			return "it is a let that depends on the dimensions, and " + ctx.why
		case info.kind == letName && info.usesParams && !ctx.params:
			return "it is a let that depends on per-candidate params, and " + ctx.why
		}
		return ""
	}}
}

// expression reads an expression field and remembers where it is.
func (d *opDecoder) expression(n *jsonNode, ctx exprContext) (manifestExpr, error) {
	e, err := d.src.expression(n, d.scope(ctx))
	if err != nil {
		return manifestExpr{}, err
	}
	return manifestExpr{expr: e, where: d.where(n)}, nil
}

// intExpression reads an expression that must be an integer.
func (d *opDecoder) intExpression(n *jsonNode, ctx exprContext, what string) (manifestExpr, error) {
	e, err := d.expression(n, ctx)
	if err != nil {
		return e, err
	}
	if e.typ != intType {
		return e, d.src.errAt(n, "expression %q is a float; %s must be an integer (round it with ceil, floor or round)", e.src, what)
	}
	return e, nil
}

func (d *opDecoder) decodeLets() error {
	n := d.obj.get("let")
	if n == nil {
		return nil
	}
	if _, err := d.src.object(n, "names to expressions"); err != nil {
		return err
	}
	for i, name := range n.keys {
		v := n.vals[i]
		if err := d.checkNewName(v, name, "let"); err != nil {
			return err
		}
		if _, ok := d.names[name]; ok {
			return d.src.errAt(v, "%q is already a dimension or a param", name)
		}
		e, err := d.expression(v, letContext)
		if err != nil {
			return err
		}
		l := &manifestLet{name: name, manifestExpr: e,
			info: nameInfo{kind: letName, typ: e.typ, usesDims: e.usesDims, usesParams: e.usesParams}}
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
		d.names[name] = l.info
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

// checkParams fails if candidate c cannot evaluate e for want of a param.
func (d *opDecoder) checkParams(e manifestExpr, c int) error {
	p, let := d.missingParam(e.expr, c)
	if p == "" {
		return nil
	}
	via := ""
	if let != "" {
		via = " (through let " + let + ")"
	}
	return status.Newf(status.InvalidArgument, "kernels: manifest %s: expression %q uses param %s%s, which candidate %q (%s) does not define",
		e.where, e.src, p, via, d.candName(c), d.candNodes[c].path)
}

func (d *opDecoder) candName(c int) string {
	if c < len(d.op.cands) {
		return d.op.cands[c].Name
	}
	if n := d.candNodes[c].member("name"); n != nil && n.kind == jsonString {
		return n.s
	}
	return strconv.Itoa(c)
}

func (d *opDecoder) decodeAsserts() error {
	var err error
	d.op.asserts, err = d.asserts(d.obj, countContext)
	return err
}

func (d *opDecoder) asserts(obj *jsonObj, ctx exprContext) ([]manifestExpr, error) {
	n := obj.get("assert")
	if n == nil {
		return nil, nil
	}
	elems, err := d.src.array(n, "conditions on the size")
	if err != nil {
		return nil, err
	}
	var out []manifestExpr
	for _, a := range elems {
		e, err := d.intExpression(a, ctx, "a condition")
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (d *opDecoder) decodeBuffers() error {
	n, err := d.obj.need("buffers", "the buffers the kernels bind")
	if err != nil {
		return err
	}
	elems, err := d.src.array(n, "the buffers the kernels bind")
	if err != nil {
		return err
	}
	if len(elems) == 0 {
		return d.src.errAt(n, "is empty; an operation has at least one buffer")
	}
	bindings := map[int]string{}
	for _, b := range elems {
		buf, err := d.decodeBuffer(b)
		if err != nil {
			return err
		}
		for _, prev := range d.op.bufs {
			if prev.name == buf.name {
				return d.src.errAt(b.member("name"), "buffer %q is described twice", buf.name)
			}
		}
		if buf.binding >= 0 {
			if other, ok := bindings[buf.binding]; ok {
				return d.src.errAt(b.member("binding"), "binding %d is already buffer %q's", buf.binding, other)
			}
			bindings[buf.binding] = buf.name
		}
		buf.users = make([]bool, len(d.op.runs))
		d.op.bufs = append(d.op.bufs, buf)
	}
	return nil
}

var bufNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

func (d *opDecoder) decodeBuffer(n *jsonNode) (*manifestBuffer, error) {
	o, err := d.src.object(n, "a buffer")
	if err != nil {
		return nil, err
	}
	b := &manifestBuffer{binding: -1, check: true, where: d.where(n)}
	nameNode, err := o.need("name", "the buffer's name")
	if err != nil {
		return nil, err
	}
	if b.name, err = d.src.str(nameNode); err != nil {
		return nil, err
	}
	if !bufNameRE.MatchString(b.name) {
		return nil, d.src.errAt(nameNode, "%q is not a buffer name (letters, digits, '_', '.', '-')", b.name)
	}
	typeNode, err := o.need("type", "the element type: "+scalarTypeNames())
	if err != nil {
		return nil, err
	}
	if b.typ, err = d.scalarType(typeNode); err != nil {
		return nil, err
	}
	lenNode, err := o.need("len", `the number of elements, an expression such as "N" or "M*K"`)
	if err != nil {
		return nil, err
	}
	if b.len, err = d.intExpression(lenNode, lengthContext, "a length"); err != nil {
		return nil, err
	}
	if r := o.get("role"); r != nil {
		s, err := d.src.str(r)
		if err != nil {
			return nil, err
		}
		i := slices.Index(roleNames, s)
		if i < 0 {
			return nil, d.src.errAt(r, "unknown role %q (want %s)", s, strings.Join(roleNames, ", "))
		}
		b.role = bufferRole(i)
	}
	if bn := o.get("binding"); bn != nil {
		v, err := d.src.integer(bn, 0, 1<<16-1)
		if err != nil {
			return nil, err
		}
		b.binding = int(v)
	}
	b.init = bufferInit{kind: "random"}
	if in := o.get("init"); in != nil {
		if b.role == roleOutput || b.role == roleScratch {
			return nil, d.src.errAt(in, "a %s buffer is not initialised (its contents are poisoned before each verified run); use role \"inout\" for a buffer that starts with data and is written", roleNames[b.role])
		}
		if b.init, err = d.decodeInit(in, b.typ); err != nil {
			return nil, err
		}
	} else if err := d.defaultRange(&b.init, b.typ); err != nil {
		return nil, err
	}
	if c := o.get("check"); c != nil {
		if b.role != roleOutput && b.role != roleInOut {
			return nil, d.src.errAt(c, "only output and inout buffers are checked")
		}
		if b.check, err = d.src.boolean(c); err != nil {
			return nil, err
		}
	}
	b.tol = tolerance{rel: -1}
	if t := o.get("tolerance"); t != nil {
		if b.typ.kind != floatKind {
			return nil, d.src.errAt(t, "a %s buffer is compared exactly; only float buffers take a tolerance", b.typ.name)
		}
		if b.tol, err = d.tolerance(t); err != nil {
			return nil, err
		}
	}
	return b, o.done()
}

func (d *opDecoder) scalarType(n *jsonNode) (scalarType, error) {
	s, err := d.src.str(n)
	if err != nil {
		return scalarType{}, err
	}
	t, ok := lookupScalarType(s)
	if !ok {
		return t, d.src.errAt(n, "unknown type %q (want one of %s)", s, scalarTypeNames())
	}
	return t, nil
}

// decodeInit reads "zeros", "iota", "random", {"fill": v},
// {"iota": {"start", "step"}} or {"random": {"seed", "min", "max"}}.
func (d *opDecoder) decodeInit(n *jsonNode, t scalarType) (bufferInit, error) {
	in := bufferInit{}
	kinds := `"zeros", "iota", "random", {"fill": value}, {"iota": {"start": a, "step": b}} or {"random": {"seed": s, "min": a, "max": b}}`
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
	value := func(v *jsonNode) (exprValue, error) {
		f, err := d.src.number(v)
		if err != nil {
			return exprValue{}, err
		}
		if t.kind == floatKind {
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
	switch in.kind {
	case "zeros":
		if body != nil {
			return in, d.src.errAt(body, "zeros takes nothing; write \"zeros\"")
		}
	case "fill":
		if body == nil {
			return in, d.src.errAt(n, `fill needs a value: {"fill": 1.5}`)
		}
		v, err := value(body)
		if err != nil {
			return in, err
		}
		in.value = v
	case "iota":
		in.value, in.step = promote(intValue(0), typeOfKind(t)), promote(intValue(1), typeOfKind(t))
		if body != nil {
			o, err := d.src.object(body, `{"start": a, "step": b}`)
			if err != nil {
				return in, err
			}
			if s := o.get("start"); s != nil {
				if in.value, err = value(s); err != nil {
					return in, err
				}
			}
			if s := o.get("step"); s != nil {
				if in.step, err = value(s); err != nil {
					return in, err
				}
			}
			if err := o.done(); err != nil {
				return in, err
			}
		}
	case "random":
		if err := d.defaultRange(&in, t); err != nil {
			return in, err
		}
		if body != nil {
			o, err := d.src.object(body, `{"seed": s, "min": a, "max": b}`)
			if err != nil {
				return in, err
			}
			if s := o.get("seed"); s != nil {
				v, err := d.src.integer(s, 0, math.MaxInt64)
				if err != nil {
					return in, err
				}
				in.seed, in.hasSeed = uint64(v), true
			}
			if s := o.get("min"); s != nil {
				if in.lo, err = value(s); err != nil {
					return in, err
				}
			}
			if s := o.get("max"); s != nil {
				if in.hi, err = value(s); err != nil {
					return in, err
				}
			}
			if err := o.done(); err != nil {
				return in, err
			}
			if compare(in.lo, in.hi) > 0 {
				return in, d.src.errAt(body, "min %s is above max %s", in.lo, in.hi)
			}
		}
	default:
		return in, d.src.errAt(n, "unknown init %q; want %s", in.kind, kinds)
	}
	return in, nil
}

func typeOfKind(t scalarType) exprType {
	if t.kind == floatKind {
		return floatType
	}
	return intType
}

// defaultRange sets the range of random contents when the manifest gives
// none: [-1, 1) for floats, and small integers ([-100, 100] signed, [0,
// 255] unsigned) that sums of many do not overflow.
func (d *opDecoder) defaultRange(in *bufferInit, t scalarType) error {
	switch t.kind {
	case floatKind:
		in.lo, in.hi = floatValue(-1), floatValue(1)
	case intKind:
		in.lo, in.hi = intValue(-100), intValue(100)
	default:
		in.lo, in.hi = intValue(0), intValue(255)
	}
	return nil
}

func (d *opDecoder) tolerance(n *jsonNode) (tolerance, error) {
	o, err := d.src.object(n, `{"rel": r, "abs": a}`)
	if err != nil {
		return tolerance{}, err
	}
	var t tolerance
	for _, f := range []struct {
		key string
		dst *float64
	}{{"rel", &t.rel}, {"abs", &t.abs}} {
		if v := o.get(f.key); v != nil {
			if *f.dst, err = d.src.number(v); err != nil {
				return t, err
			}
			if *f.dst < 0 {
				return t, d.src.errAt(v, "is negative")
			}
		}
	}
	return t, o.done()
}

// decodeCounts reads "bytes" and "flops".
func (d *opDecoder) decodeCounts() error {
	for _, f := range []struct {
		key string
		dst **manifestExpr
	}{{"bytes", &d.op.bytes}, {"flops", &d.op.flops}} {
		if n := d.obj.get(f.key); n != nil {
			e, err := d.expression(n, countContext)
			if err != nil {
				return err
			}
			*f.dst = &e
		}
	}
	return nil
}

func (d *opDecoder) decodeVerify() error {
	n, err := d.obj.need("verify", `{"reference": "candidate name"} to compare every candidate's outputs with one candidate's, or "none"`)
	if err != nil {
		return err
	}
	if n.kind == jsonString {
		if n.s != "none" {
			return d.src.errAt(n, `%q: want "none" or {"reference": "candidate name"}`, n.s)
		}
		return nil
	}
	o, err := d.src.object(n, `{"reference": "candidate name"} or "none"`)
	if err != nil {
		return err
	}
	r, err := o.need("reference", "the name of the candidate whose results are the reference")
	if err != nil {
		return err
	}
	name, err := d.src.str(r)
	if err != nil {
		return err
	}
	d.op.ref = slices.IndexFunc(d.op.cands, func(c Candidate) bool { return c.Name == name })
	if d.op.ref < 0 {
		names := make([]string, len(d.op.cands))
		for i, c := range d.op.cands {
			names[i] = c.Name
		}
		return d.src.errAt(r, "no candidate %q (candidates: %s)", name, strings.Join(names, ", "))
	}
	if t := o.get("tolerance"); t != nil {
		tol, err := d.tolerance(t)
		if err != nil {
			return err
		}
		for _, b := range d.op.bufs {
			if b.tol.rel < 0 && b.typ.kind == floatKind {
				b.tol = tol
			}
		}
	}
	return o.done()
}

func (d *opDecoder) decodeDType() error {
	if n := d.obj.get("dtype"); n != nil {
		s, err := d.src.str(n)
		if err != nil {
			return err
		}
		dt, err := ParseDType(s)
		if err != nil {
			return d.src.errAt(n, "%s", status.Message(err))
		}
		d.op.dtype = dt
		return nil
	}
	for _, b := range d.op.bufs {
		if b.role == roleOutput || b.role == roleInOut {
			if dt := b.typ.dtype(); dt != 0 {
				d.op.dtype = dt
				return nil
			}
			return d.src.errMissing(d.obj.n, "dtype", "the first output's type "+b.typ.name+" is not one of f32, f16, i32, u32; name the operation's element type")
		}
	}
	return d.src.errMissing(d.obj.n, "dtype", "no output buffer gives the operation's element type (f32, f16, i32 or u32)")
}

// finish checks what needs the whole operation: defaults for tolerances,
// buffers nobody binds, the names each candidate needs, and a dry run of
// every expression at the default size; then it fills in the digest.
func (d *opDecoder) finish() error {
	op := d.op
	for _, b := range op.bufs {
		if b.tol.rel < 0 {
			b.tol = defaultTolerance(b.typ)
		}
		if !slices.Contains(b.users, true) {
			return status.Newf(status.InvalidArgument, "kernels: manifest %s: buffer %q is bound by no dispatch of any candidate (give it a \"binding\", or name it in a candidate's \"bindings\")",
				b.where, b.name)
		}
		for c, uses := range b.users {
			if uses {
				if err := d.checkParams(b.len, c); err != nil {
					return err
				}
			}
		}
	}
	for c, run := range op.runs {
		run.lets = make([]bool, len(op.lets))
		for i, l := range op.lets {
			p, _ := d.missingParam(l.expr, c)
			run.lets[i] = p == ""
		}
	}
	// A dry run at the default size of the smallest class, where any
	// expression that cannot be evaluated says so now, not on a GPU
	// runner later. A candidate may refuse the size with an assert.
	size := op.sizes[smallDevice]
	lay, err := op.layout(size)
	if err != nil {
		return status.Annotatef(err, "at the default size %s", size)
	}
	if _, _, err := op.counts(lay.counted, lay.lens); err != nil {
		return err
	}
	for c := range op.runs {
		if err := lay.errs[c]; err != nil {
			if isAssertFailure(err) {
				continue
			}
			return err
		}
		if _, err := op.plan(size, c, lay.envs[c], nil); err != nil {
			return err
		}
	}
	d.digest = canonicalJSON(d.digest, d.obj.n)
	h := sha256.Sum256(d.digest)
	for i := range op.cands {
		op.cands[i].Params["#manifest"] = int(binary.LittleEndian.Uint64(h[:]) >> 1)
	}
	return nil
}

// Operation.

func (op *manifestOp) Name() string    { return op.name }
func (op *manifestOp) Summary() string { return op.summary }
func (op *manifestOp) DType() DType    { return op.dtype }
func (op *manifestOp) Dims() []string  { return slices.Clone(op.dims) }

// Verifies is false for "verify": "none".
func (op *manifestOp) Verifies() bool { return op.ref >= 0 }

func (op *manifestOp) Candidates() []Candidate {
	out := slices.Clone(op.cands)
	for i := range out {
		out[i].Constants = slices.Clone(out[i].Constants)
	}
	return out
}

// DefaultSize is the manifest's default extents for the kind of device
// (its "integrated" and "discrete" defaults, where given), falling back
// to a smaller kind's when the buffers would not fit the device.
func (op *manifestOp) DefaultSize(info hal.DeviceInfo) Size {
	for class := classOf(info); class > smallDevice; class-- {
		size := op.sizes[class]
		if bytes, err := op.bufferBytes(size); err == nil && fits(info, bytes...) {
			return slices.Clone(size)
		}
	}
	return slices.Clone(op.sizes[smallDevice])
}

// bufferBytes returns the size in bytes of each buffer at size.
func (op *manifestOp) bufferBytes(size Size) ([]int64, error) {
	var out []int64
	envs := make([]exprEnv, len(op.runs))
	for c := range op.runs {
		env, err := op.env(size, c)
		if err != nil {
			return nil, err
		}
		envs[c] = env
	}
	for _, b := range op.bufs {
		var n int64
		for c, uses := range b.users {
			if uses {
				v, err := op.bufferLen(b, envs[c])
				if err != nil {
					return nil, err
				}
				n = max(n, v)
			}
		}
		out = append(out, n*int64(b.typ.size))
	}
	return out, nil
}
