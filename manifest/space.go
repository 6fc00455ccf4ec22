package manifest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// A space (the package's "Parameter spaces") is expanded when the
// manifest is read, before decoding: the operation is decoded once as
// written (the candidate at its named point) and once more with one
// candidate per configuration, named "<name>-<param><value>-...", which
// checks every configuration's expressions as any candidate's are and
// gives each its kernel (attach). Restrictions that use only params are
// applied then, and the configurations that fail them are never decoded,
// nor compiled; those that use the dims or the device's limits are
// applied by the search, at a size on a device.

// maxSpacePoints bounds the configurations a space decodes into.
const maxSpacePoints = 4096

// manifestSpace is a candidate's space, read from the manifest.
type manifestSpace struct {
	tmpl     string // the candidate's name
	params   []kernels.Param
	fixed    map[string]int // the candidate's params outside the space
	restrict []spaceRestriction
	configs  []kernels.Config // those that pass the static restrictions
	node     *jsonNode        // the operation with one candidate per configuration
	base     []byte           // what identifies every kernel besides its configuration
	// at is the space's candidate among the operation's named ones; glsl
	// says that its kernels are compiled from GLSL.
	at, nnamed int
	glsl       bool
}

type spaceRestriction struct {
	e      *expr
	static bool // uses params only
}

// expandSpace returns the operation n as it is decoded (a candidate with a
// space at its named point) and, if it has a space, the space.
func expandSpace(src *manifestSource, n *jsonNode) (*jsonNode, *manifestSpace) {
	cands := n.member("candidates")
	if n.kind != jsonObject || cands == nil || cands.kind != jsonArray {
		return n, nil // the decoder says what is wrong
	}
	t := -1
	for k, c := range cands.elems {
		if c.kind != jsonObject || c.member("space") == nil && c.member("restrict") == nil {
			continue
		}
		if c.member("space") == nil {
			check(src.errAt(c.member("restrict"), "restricts a space the candidate does not have (add \"space\")"))
		}
		if t >= 0 {
			check(src.errAt(c.member("space"), "a second candidate with a space; an operation has at most one"))
		}
		t = k
	}
	if t < 0 {
		return n, nil
	}
	tmpl := cands.elems[t]
	ms := must(readSpace(src, n, tmpl))
	named := cloneNode(n)
	namedCands := cloneNode(cands)
	named.vals[slices.Index(named.keys, "candidates")] = namedCands
	point, ok := ms.named()
	if !ok {
		check(src.errAt(cmp.Or(tmpl.member("params"), tmpl), "the candidate's own point %s is not a configuration of its space (a value it does not list, or a restriction of params it fails)", (&kernels.Space{Params: ms.params}).Name(point)))
	}
	namedCands.elems[t] = ms.pointNode(tmpl, point, "")
	ms.base = canonicalJSON(nil, withoutKeys(named, "candidates"))
	for k, c := range namedCands.elems {
		if k != t {
			ms.base = canonicalJSON(ms.base, c)
		}
	}
	ms.base = canonicalJSON(ms.base, withoutKeys(namedCands.elems[t], "params", "name"))
	spaced := cloneNode(named)
	all := cloneNode(namedCands)
	for _, c := range ms.configs {
		all.elems = append(all.elems, ms.pointNode(tmpl, c, ms.tmpl+"-"+suffix(ms.params, c)))
	}
	spaced.vals[slices.Index(spaced.keys, "candidates")] = all
	ms.node, ms.at, ms.nnamed = spaced, t, len(namedCands.elems)
	ms.glsl = compilesGLSL(tmpl)
	return named, ms
}

// readSpace reads a candidate's space and restrictions, and enumerates the
// configurations that pass the restrictions of params alone.
func readSpace(src *manifestSource, op, tmpl *jsonNode) (*manifestSpace, error) {
	ms := &manifestSpace{fixed: map[string]int{}}
	if name := tmpl.member("name"); name != nil && name.kind == jsonString {
		ms.tmpl = name.s
	}
	sn := tmpl.member("space")
	if sn.kind != jsonObject || len(sn.keys) == 0 {
		return nil, src.errAt(sn, "is %s, want an object of params to their values, such as {\"WG\": [64, 128, 256]}", sn.kind)
	}
	for i, name := range sn.keys {
		check(src.checkNewName(sn.vals[i], name, "param"))
		ms.params = append(ms.params, kernels.Param{Name: name, Values: must(spaceValues(src, sn.vals[i]))})
	}
	if p := tmpl.member("params"); p != nil && p.kind == jsonObject {
		for i, name := range p.keys {
			ms.fixed[name] = int(must(src.integer(p.vals[i], math.MinInt32, math.MaxInt32)))
		}
	}
	check(ms.readRestrictions(src, op, tmpl.member("restrict")))
	total := 1
	for _, p := range ms.params {
		total *= len(p.Values)
		if total > 1<<20 {
			return nil, src.errAt(sn, "spans more than 2²⁰ configurations")
		}
	}
	s := &kernels.Space{Params: ms.params}
	for i := range total {
		c := s.Config(i)
		if ms.holds(c) {
			ms.configs = append(ms.configs, c)
		}
	}
	switch {
	case len(ms.configs) == 0:
		return nil, src.errAt(sn, "has no configuration that meets its restrictions")
	case len(ms.configs) > maxSpacePoints:
		return nil, src.errAt(sn, "has %d configurations that meet its restrictions of params; at most %d are decoded (restrict it further)", len(ms.configs), maxSpacePoints)
	}
	return ms, nil
}

// spaceValues reads a param's values: a list of integers, {"range": [lo,
// hi], "step": s} or {"pow2": [lo, hi]}.
func spaceValues(src *manifestSource, n *jsonNode) ([]int, error) {
	var out []int
	switch n.kind {
	case jsonArray:
		out = par.Map(n.elems, func(e *jsonNode) int { return int(must(src.integer(e, math.MinInt32, math.MaxInt32))) })
	case jsonObject:
		bounds := func(key string) (lo, hi int) {
			b := n.member(key)
			if b.kind != jsonArray || len(b.elems) != 2 {
				check(src.errAt(b, "want [lo, hi]"))
			}
			l := must(src.integer(b.elems[0], math.MinInt32, math.MaxInt32))
			return int(l), int(must(src.integer(b.elems[1], l, math.MaxInt32)))
		}
		switch {
		case n.member("range") != nil && len(n.keys) <= 2:
			lo, hi := bounds("range")
			step := int64(1)
			if s := n.member("step"); s != nil {
				step = must(src.integer(s, 1, math.MaxInt32))
			} else if len(n.keys) == 2 {
				return nil, src.errAt(n, "want {\"range\": [lo, hi], \"step\": s}")
			}
			out = kernels.Range(lo, hi, int(step))
		case n.member("pow2") != nil && len(n.keys) == 1:
			lo, hi := bounds("pow2")
			if lo < 1 || lo&(lo-1) != 0 {
				return nil, src.errAt(n.member("pow2"), "%d is not a power of two", lo)
			}
			out = kernels.Pow2(lo, hi)
		default:
			return nil, src.errAt(n, "want {\"range\": [lo, hi], \"step\": s} or {\"pow2\": [lo, hi]}")
		}
	default:
		return nil, src.errAt(n, "is %s, want a list of integers, {\"range\": [lo, hi], \"step\": s} or {\"pow2\": [lo, hi]}", n.kind)
	}
	sorted := slices.Sorted(slices.Values(out))
	switch {
	case len(out) == 0:
		return nil, src.errAt(n, "has no values")
	case len(out) > 1024:
		return nil, src.errAt(n, "has %d values; at most 1024", len(out))
	case len(slices.Compact(sorted)) != len(out):
		return nil, src.errAt(n, "repeats a value")
	}
	return out, nil
}

// readRestrictions parses "restrict": expressions of the space's params,
// the candidate's other params, the dims and the device's limits.
func (ms *manifestSpace) readRestrictions(src *manifestSource, op, n *jsonNode) error {
	if n == nil {
		return nil
	}
	check(src.is(n, jsonArray, "a list of expressions such as \"WG * EPT <= max_workgroup_invocations\""))
	names := map[string]nameInfo{}
	if dims := op.member("dims"); dims != nil && dims.kind == jsonObject {
		for _, d := range dims.keys {
			names[d] = nameInfo{kind: dimName, typ: intType}
		}
	}
	// A dimension with a device limit's name (an error the decoder
	// reports, as it does any reserved name) is the limit here.
	for _, l := range kernels.DeviceLimits {
		names[l.Name] = nameInfo{kind: deviceName, typ: intType}
	}
	// A param that has a dimension's name (an error the decoder reports)
	// stays the dimension here.
	params := append(slices.Collect(maps.Keys(ms.fixed)), par.Map(ms.params, func(p kernels.Param) string { return p.Name })...)
	for _, name := range params {
		if _, ok := names[name]; !ok {
			names[name] = nameInfo{kind: paramName, typ: intType}
		}
	}
	for _, e := range n.elems {
		check(src.is(e, jsonString, "an expression (a string)"))
		x := must(src.expression(e, exprScope{names: names}))
		if x.typ != intType {
			return src.errAt(e, "expression %q is a float; a restriction is a condition (an integer, non-zero when it holds)", e.s)
		}
		ms.restrict = append(ms.restrict, spaceRestriction{e: x, static: !x.usesDims && !x.usesDevice})
	}
	return nil
}

// holds reports whether c meets the restrictions of params alone (a
// failure to evaluate one is a failure).
func (ms *manifestSpace) holds(c kernels.Config) bool {
	env := intEnv(ms.fixed, c)
	for _, r := range ms.restrict {
		if !r.static {
			continue
		}
		if v, err := r.e.evalInt(env); err != nil || v == 0 {
			return false
		}
	}
	return true
}

// named returns the candidate's own point: its params, and the first value
// of each space param they do not give; ok is false when it fails a static
// restriction or a param's value is not among the space's.
func (ms *manifestSpace) named() (kernels.Config, bool) {
	c := kernels.Config{}
	ok := true
	for _, p := range ms.params {
		v, given := ms.fixed[p.Name]
		if !given {
			v = p.Values[0]
		} else if !slices.Contains(p.Values, v) {
			ok = false
		}
		c[p.Name] = v
		delete(ms.fixed, p.Name)
	}
	return c, ok && ms.holds(c)
}

// pointNode is the candidate at configuration c: without its space, with
// c among its params, and named name (its own name if empty).
func (ms *manifestSpace) pointNode(tmpl *jsonNode, c kernels.Config, name string) *jsonNode {
	n := withoutKeys(tmpl, "space", "restrict", "params")
	params := &jsonNode{kind: jsonObject, path: joinPath(tmpl.path, "params"), off: tmpl.off}
	if p := tmpl.member("params"); p != nil {
		params.off = p.off
	}
	vals := maps.Clone(ms.fixed)
	maps.Copy(vals, c)
	params.keys = append(slices.Sorted(maps.Keys(ms.fixed)), par.Map(ms.params, func(p kernels.Param) string { return p.Name })...)
	for _, k := range params.keys {
		params.vals = append(params.vals, &jsonNode{kind: jsonNumber, s: strconv.Itoa(vals[k]), path: joinPath(params.path, k), off: params.off})
	}
	n.keys = append(n.keys, "params")
	n.vals = append(n.vals, params)
	if name != "" {
		i := slices.Index(n.keys, "name")
		n.vals[i] = &jsonNode{kind: jsonString, s: name, path: n.vals[i].path, off: n.vals[i].off}
	}
	return n
}

// suffix names a configuration in a candidate's name: "WG64-EPT4".
func suffix(params []kernels.Param, c kernels.Config) string {
	return strings.Join(par.Map(params, func(p kernels.Param) string { return p.Name + strconv.Itoa(c[p.Name]) }), "-")
}

func cloneNode(n *jsonNode) *jsonNode {
	c := *n
	c.keys, c.vals, c.elems = slices.Clone(n.keys), slices.Clone(n.vals), slices.Clone(n.elems)
	return &c
}

func withoutKeys(n *jsonNode, keys ...string) *jsonNode {
	c := cloneNode(n)
	for _, k := range keys {
		if i := slices.Index(c.keys, k); i >= 0 {
			c.keys = slices.Delete(c.keys, i, i+1)
			c.vals = slices.Delete(c.vals, i, i+1)
		}
	}
	return c
}

// attach gives op its Space, whose kernels are those of the operation
// with one candidate per configuration. That operation is decoded when
// the space is first loaded or asked for a kernel (a search enumerating
// its points), and a configuration's GLSL compiled when the search first
// needs its kernel (lazy.go): vkbench run, which measures the named
// points alone, compiles none of the others, and a search compiles those
// it evaluates. A space of SPIR-V modules, which costs no compile, is
// decoded now, so that a configuration that is wrong is an error of the
// load.
func (ms *manifestSpace) attach(op *manifestOp, src *manifestSource, dir string, opts *Options) error {
	k := &spaceKernels{}
	load := func() error {
		k.once.Do(func() { k.err = k.decode(ms, src, dir, opts) })
		return k.err
	}
	if !ms.glsl {
		if err := load(); err != nil {
			return err
		}
	}
	s := &kernels.Space{Params: ms.params, Load: load}
	for _, r := range ms.restrict {
		s.Restrictions = append(s.Restrictions, kernels.Restriction{Expr: r.e.src, Holds: ms.restriction(r)})
	}
	s.Candidate = func(c kernels.Config) (kernels.Candidate, error) {
		if err := load(); err != nil {
			return kernels.Candidate{}, err
		}
		i, ok := k.at[ms.tmpl+"-"+suffix(ms.params, c)]
		if !ok {
			return kernels.Candidate{}, status.Newf(status.InvalidArgument, "manifest: %s: configuration %s fails a restriction of params", op.name, s.Name(c))
		}
		return k.sop.candidate(i), nil
	}
	// Operation and Identity are asked of kernels that Candidate gave.
	s.Operation = func(cands []kernels.Candidate) (kernels.Operation, []int) {
		return k.sop, par.Map(cands, func(c kernels.Candidate) int { return k.at[c.Name] })
	}
	s.Identity = func(_ kernels.Config, c kernels.Candidate) string {
		i := k.at[c.Name]
		// A configuration of a GLSL space is compiled for it; one that
		// does not compile is identified by the compiler's words.
		err := k.sop.resolve(i)
		c = k.sop.cands[i]
		c.Params = maps.Clone(c.Params)
		delete(c.Params, "#manifest") // covers the whole space; base covers the rest
		d := kernels.Digest([]kernels.Candidate{c})
		h := sha256.New()
		h.Write(k.base)
		h.Write(d[:])
		if err != nil {
			h.Write([]byte(err.Error()))
		} else {
			for _, disp := range k.sop.runs[i].dispatches {
				h.Write(disp.mod.code)
			}
		}
		return hex.EncodeToString(h.Sum(nil)[:16])
	}
	op.space = s
	return nil
}

// spaceKernels is the operation with one candidate per configuration
// of a space, decoded once.
type spaceKernels struct {
	once sync.Once
	err  error
	sop  *manifestOp
	at   map[string]int // sop's candidates by name
	// base identifies what every configuration's kernel shares: the
	// operation's description but for the space's candidate, its .npy
	// files, and the modules of its other candidates.
	base []byte
}

func (k *spaceKernels) decode(ms *manifestSpace, src *manifestSource, dir string, opts *Options) error {
	sop, err := decodeOperation(src, dir, map[string]*manifestModule{}, ms.node, opts, ms)
	if err != nil {
		return err
	}
	h := sha256.New()
	h.Write(ms.base)
	h.Write(sop.npy)
	for i, run := range sop.runs[:ms.nnamed] {
		for _, disp := range run.dispatches {
			if i != ms.at {
				h.Write(disp.mod.code)
			}
		}
	}
	k.sop, k.base, k.at = sop, h.Sum(nil), map[string]int{}
	for i, c := range sop.cands {
		k.at[c.Name] = i
	}
	return nil
}

// restriction evaluates r at a configuration, size and device.
func (ms *manifestSpace) restriction(r spaceRestriction) func(kernels.Env) (bool, error) {
	return func(e kernels.Env) (bool, error) {
		env := intEnv(ms.fixed, e.Config)
		for i, d := range e.Dims {
			if i < e.Size.Len() {
				env[d] = intValue(int64(e.Size.Dim(i)))
			}
		}
		setDevice(env, &hal.DeviceInfo{Limits: e.Limits})
		v, err := r.e.evalInt(env)
		return err == nil && v != 0, err
	}
}

// Space is the operation's parameter space, or nil (kernels.Searchable).
func (op *manifestOp) Space() *kernels.Space { return op.space }
