package kernels

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// manifestModule is a SPIR-V file a manifest names, read once.
type manifestModule struct {
	path string // as the manifest writes it
	code []byte
	spv  *spvModule
}

// module reads and parses the SPIR-V file that n names.
func (d *opDecoder) module(n *jsonNode) (*manifestModule, error) {
	p, err := d.src.str(n)
	if err != nil {
		return nil, err
	}
	if p == "" {
		return nil, d.src.errAt(n, "is empty; want the path of a SPIR-V file")
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(d.dir, p)
	}
	if m, ok := d.modules[full]; ok {
		return m, nil
	}
	code, err := readModule(full)
	if err != nil {
		return nil, fileError(err, "kernels: manifest %s: %s: reading SPIR-V %q", d.src.position(n.off), n.path, full)
	}
	hm, err := hal.ParseSPIRV(code)
	if err != nil {
		return nil, d.src.errAt(n, "%q is not a usable SPIR-V module: %s", full, status.Message(err))
	}
	m := &manifestModule{path: p, code: code, spv: reflectSPIRV(code, hm)}
	d.modules[full] = m
	return m, nil
}

// maxModuleSize bounds a SPIR-V file; real kernels are kilobytes.
const maxModuleSize = 64 << 20

// readModule reads a SPIR-V file: a regular file (not a device or a pipe,
// which could block or never end) of at most maxModuleSize bytes.
func readModule(path string) ([]byte, error) {
	// Stat before opening: opening a named pipe blocks.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > maxModuleSize {
		return nil, fmt.Errorf("%s has %d bytes, more than the %d a module may have", path, fi.Size(), maxModuleSize)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	code, err := io.ReadAll(io.LimitReader(f, maxModuleSize+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return code, err
}

// dispatchSpec is what a dispatch inherits from its candidate, and the
// candidate from its operation, field by field: each level's field, when
// present, replaces the one above.
type dispatchSpec struct {
	spirv, entry, workgroup, constants, push, bindings *jsonNode
}

func (s dispatchSpec) override(o *jsonObj) dispatchSpec {
	for _, f := range []struct {
		key string
		dst **jsonNode
	}{{"spirv", &s.spirv}, {"entry", &s.entry}, {"workgroup", &s.workgroup}, {"push_constants", &s.push}, {"bindings", &s.bindings}} {
		if v := o.get(f.key); v != nil {
			*f.dst = v
		}
	}
	// Constants add to (and replace by id) the candidate's.
	if v := o.get("constants"); v != nil {
		if s.constants == nil {
			s.constants = v
		} else {
			merged := &jsonNode{kind: jsonObject, path: v.path, off: v.off}
			merged.keys = slices.Clone(s.constants.keys)
			merged.vals = slices.Clone(s.constants.vals)
			for i, k := range v.keys {
				if j := slices.Index(merged.keys, k); j >= 0 {
					merged.vals[j] = v.vals[i]
				} else {
					merged.keys = append(merged.keys, k)
					merged.vals = append(merged.vals, v.vals[i])
				}
			}
			s.constants = merged
		}
	}
	return s
}

func (d *opDecoder) decodeCandidates() error {
	d.pushNode = d.obj.get("push_constants")
	for c, obj := range d.candObjs {
		cand, err := d.decodeCandidate(c, obj)
		if err != nil {
			return err
		}
		for _, prev := range d.op.cands {
			if prev.Name == cand.Name {
				return d.src.errAt(obj.n.member("name"), "candidate %q is described twice", cand.Name)
			}
		}
		d.op.cands = append(d.op.cands, cand)
	}
	return nil
}

func (d *opDecoder) decodeCandidate(c int, obj *jsonObj) (Candidate, error) {
	run := d.op.runs[c]
	nameNode, err := obj.need("name", "the candidate's name")
	if err != nil {
		return Candidate{}, err
	}
	name, err := d.src.str(nameNode)
	if err != nil {
		return Candidate{}, err
	}
	if !candNameRE.MatchString(name) {
		return Candidate{}, d.src.errAt(nameNode, "%q is not a candidate name (letters, digits, '_', '.', '+', '-')", name)
	}
	obj.get("params") // read by decodeParams
	if run.asserts, err = d.asserts(obj, lengthContext); err != nil {
		return Candidate{}, err
	}
	for _, a := range run.asserts {
		if err := d.checkParams(a, c); err != nil {
			return Candidate{}, err
		}
	}
	spec := dispatchSpec{push: d.pushNode}.override(obj)
	var dispatchObjs []*jsonObj
	if ds := obj.get("dispatches"); ds != nil {
		if g := obj.get("groups"); g != nil {
			return Candidate{}, d.src.errAt(g, "a candidate with \"dispatches\" gives each dispatch its own groups")
		}
		if r := obj.get("repeat"); r != nil {
			return Candidate{}, d.src.errAt(r, "a candidate with \"dispatches\" gives each dispatch its own repeat")
		}
		elems, err := d.src.array(ds, "the candidate's dispatches, in order")
		if err != nil {
			return Candidate{}, err
		}
		if len(elems) == 0 {
			return Candidate{}, d.src.errAt(ds, "is empty; a candidate runs at least one dispatch")
		}
		for _, e := range elems {
			o, err := d.src.object(e, "a dispatch")
			if err != nil {
				return Candidate{}, err
			}
			dispatchObjs = append(dispatchObjs, o)
		}
	} else {
		dispatchObjs = []*jsonObj{obj}
	}
	cand := Candidate{Name: name, Params: map[string]int{}}
	for k, v := range run.params {
		cand.Params[k] = v
	}
	var shaders []string
	best := -1
	for k, o := range dispatchObjs {
		s := spec
		if o != obj {
			s = spec.override(o)
		}
		disp, mod, err := d.decodeDispatch(c, o, s)
		if err != nil {
			return Candidate{}, err
		}
		if o != obj {
			if err := o.done(); err != nil {
				return Candidate{}, err
			}
		}
		disp.desc.Label = name
		if k > 0 {
			disp.desc.Label = fmt.Sprintf("%s#%d", name, k)
		}
		run.dispatches = append(run.dispatches, disp)
		if !slices.Contains(shaders, mod.path) {
			shaders = append(shaders, mod.path)
		}
		r, needs := mod.spv.requirements()
		cand.Requires.Float16 = cand.Requires.Float16 || r.Float16
		cand.Requires.Int64 = cand.Requires.Int64 || r.Int64
		cand.Requires.Subgroup |= r.Subgroup
		for _, n := range needs {
			if !slices.Contains(run.needs, n) {
				run.needs = append(run.needs, n)
			}
		}
		spec := map[uint32]uint32{}
		for _, k := range disp.desc.Constants {
			spec[k.ID] = k.Value
		}
		if shared, ok := mod.spv.sharedMemory(mod.spv.entries[disp.desc.EntryPoint], spec); ok && shared <= math.MaxUint32 {
			cand.Requires.SharedMemory = max(cand.Requires.SharedMemory, uint32(shared))
		}
		inv := uint64(disp.wg[0]) * uint64(disp.wg[1]) * uint64(disp.wg[2])
		if best < 0 || inv > uint64(cand.Invocations()) {
			best = k
			cand.WorkgroupSize = disp.wg
		}
		d.digest = append(d.digest, mod.code...)
	}
	if err := d.requires(obj, &cand.Requires); err != nil {
		return Candidate{}, err
	}
	first := run.dispatches[0]
	cand.Shader = strings.Join(shaders, "+")
	cand.SPIRV = first.desc.SPIRV
	cand.EntryPoint = first.desc.EntryPoint
	cand.Bindings = first.desc.Bindings
	cand.PushConstantSize = first.desc.PushConstantSize
	cand.Constants = slices.Clone(first.desc.Constants)
	return cand, obj.done()
}

// requires reads a candidate's (or, for every candidate, the
// operation's) "requires" and adds it to what the modules need.
func (d *opDecoder) requires(obj *jsonObj, r *Requirements) error {
	for _, o := range []*jsonObj{d.obj, obj} {
		n := o.get("requires")
		if n == nil {
			continue
		}
		ro, err := d.src.object(n, "what the kernels need of a device")
		if err != nil {
			return err
		}
		for _, f := range []struct {
			key string
			dst *bool
		}{{"float16", &r.Float16}, {"int64", &r.Int64}} {
			if v := ro.get(f.key); v != nil {
				b, err := d.src.boolean(v)
				if err != nil {
					return err
				}
				*f.dst = *f.dst || b
			}
		}
		if v := ro.get("subgroup"); v != nil {
			elems, err := d.src.array(v, "subgroup operations such as \"arithmetic\"")
			if err != nil {
				return err
			}
			for _, e := range elems {
				s, err := d.src.str(e)
				if err != nil {
					return err
				}
				i := slices.Index(hal.SubgroupOpNames, s)
				if i < 0 {
					return d.src.errAt(e, "unknown subgroup operations %q (want %s)", s, strings.Join(hal.SubgroupOpNames, ", "))
				}
				r.Subgroup |= hal.SubgroupOps(1)<<i | hal.SubgroupBasic
			}
		}
		if v := ro.get("min_subgroup_size"); v != nil {
			x, err := d.src.integer(v, 1, 1<<16)
			if err != nil {
				return err
			}
			r.MinSubgroupSize = max(r.MinSubgroupSize, uint32(x))
		}
		if v := ro.get("shared_memory"); v != nil {
			x, err := d.src.integer(v, 0, math.MaxUint32)
			if err != nil {
				return err
			}
			r.SharedMemory = max(r.SharedMemory, uint32(x))
		}
		if err := ro.done(); err != nil {
			return err
		}
	}
	return nil
}

// decodeDispatch reads one dispatch of candidate c from o, with the
// fields it inherits in s.
func (d *opDecoder) decodeDispatch(c int, o *jsonObj, s dispatchSpec) (*manifestDispatch, *manifestModule, error) {
	disp := &manifestDispatch{where: d.where(o.n)}
	if s.spirv == nil {
		return nil, nil, d.src.errMissing(o.n, "spirv", "the path of the SPIR-V module, relative to the manifest")
	}
	mod, err := d.module(s.spirv)
	if err != nil {
		return nil, nil, err
	}
	entry := "main"
	if s.entry != nil {
		if entry, err = d.src.str(s.entry); err != nil {
			return nil, nil, err
		}
	}
	e, ok := mod.spv.entries[entry]
	if !ok {
		at := s.entry
		if at == nil {
			at = s.spirv
		}
		return nil, nil, d.src.errAt(at, "%s has no GLCompute entry point %q (it has %q)", mod.path, entry, mod.spv.hal.EntryPoints)
	}
	disp.desc = hal.ExecutableDesc{SPIRV: mod.code, EntryPoint: entry}
	consts, err := d.constants(c, s.constants, mod)
	if err != nil {
		return nil, nil, err
	}
	if disp.wg, err = d.workgroup(c, o, s, mod, e, consts); err != nil {
		return nil, nil, err
	}
	for _, id := range slices.Sorted(maps.Keys(consts)) {
		disp.desc.Constants = append(disp.desc.Constants, hal.Constant{ID: id, Value: consts[id]})
	}
	if err := d.bindings(c, o, s, mod, e, disp); err != nil {
		return nil, nil, err
	}
	if err := d.pushConstants(c, o, s, mod, e, disp); err != nil {
		return nil, nil, err
	}
	g, err := o.need("groups", `the number of workgroups in x, y and z, such as ["div_up(N, 256)", 1, 1]`)
	if err != nil {
		return nil, nil, err
	}
	elems, err := d.src.array(g, "the number of workgroups in x, y and z")
	if err != nil {
		return nil, nil, err
	}
	if len(elems) < 1 || len(elems) > 3 {
		return nil, nil, d.src.errAt(g, "has %d elements; want 1 to 3 (x, y, z; missing ones are 1)", len(elems))
	}
	for i := range disp.groups {
		if i >= len(elems) {
			disp.groups[i] = manifestExpr{expr: literalExpr(intValue(1)), where: d.where(g)}
			continue
		}
		if disp.groups[i], err = d.intExpression(elems[i], dispatchContext, "a workgroup count"); err != nil {
			return nil, nil, err
		}
		if err := d.checkParams(disp.groups[i], c); err != nil {
			return nil, nil, err
		}
	}
	if r := o.get("repeat"); r != nil {
		e, err := d.intExpression(r, repeatContext, "a repeat count")
		if err != nil {
			return nil, nil, err
		}
		if err := d.checkParams(e, c); err != nil {
			return nil, nil, err
		}
		disp.repeat = &e
	}
	var key strings.Builder
	fmt.Fprintf(&key, "%s\x00%s\x00%d\x00%d", mod.path, entry, disp.desc.Bindings, disp.desc.PushConstantSize)
	for _, k := range disp.desc.Constants {
		fmt.Fprintf(&key, "\x00%d=%d", k.ID, k.Value)
	}
	disp.key = key.String()
	return disp, mod, nil
}

// constants reads "constants": constant_id to value (a number, a
// boolean, or an expression of params), each typed by the module.
func (d *opDecoder) constants(c int, n *jsonNode, mod *manifestModule) (map[uint32]uint32, error) {
	out := map[uint32]uint32{}
	if n == nil {
		return out, nil
	}
	if _, err := d.src.object(n, `constant_id to value, such as {"0": 256, "1": "VEC"}`); err != nil {
		return nil, err
	}
	for i, key := range n.keys {
		v := n.vals[i]
		id64, err := strconv.ParseUint(key, 10, 32)
		if err != nil {
			return nil, d.src.errAt(v, "%q is not a constant_id (a non-negative integer)", key)
		}
		id := uint32(id64)
		info, ok := mod.spv.specs[id]
		if !ok {
			ids := slices.Sorted(maps.Keys(mod.spv.specs))
			return nil, d.src.errAt(v, "%s declares no specialization constant with constant_id %d (it declares %v)", mod.path, id, ids)
		}
		if info.kind == "" {
			return nil, d.src.errAt(v, "constant_id %d of %s is %d bits wide; only 32-bit int, uint, float and bool constants can be set", id, mod.path, info.width)
		}
		e, err := d.expression(v, pipelineContext)
		if err != nil {
			return nil, err
		}
		if err := d.checkParams(e, c); err != nil {
			return nil, err
		}
		val, err := e.eval(d.paramEnv(c))
		if err != nil {
			return nil, e.errorf(status.InvalidArgument, err)
		}
		bits, err := specBits(info.kind, val)
		if err != nil {
			return nil, d.src.errAt(v, "constant_id %d of %s is a%s %s: %v", id, mod.path, map[bool]string{true: "n"}[info.kind == "int" || info.kind == "uint"], info.kind, err)
		}
		out[id] = bits
	}
	return out, nil
}

// specBits encodes v as the 32 bits of a specialization constant of kind.
func specBits(kind string, v exprValue) (uint32, error) {
	switch kind {
	case "float":
		return math.Float32bits(float32(v.float())), nil
	case "bool":
		if v.typ != intType || v.i != 0 && v.i != 1 {
			return 0, fmt.Errorf("%s is not true, false, 0 or 1", v)
		}
		return uint32(v.i), nil
	}
	if v.typ != intType {
		return 0, fmt.Errorf("%s is not an integer", v)
	}
	lo, hi := int64(0), int64(math.MaxUint32)
	if kind == "int" {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if v.i < lo || v.i > hi {
		return 0, fmt.Errorf("%d is outside [%d, %d]", v.i, lo, hi)
	}
	return uint32(v.i), nil
}

// paramEnv is the environment of expressions that use only params and
// the lets made of them.
func (d *opDecoder) paramEnv(c int) exprEnv {
	env := exprEnv{}
	for k, v := range d.op.runs[c].params {
		env[k] = intValue(int64(v))
	}
	for _, l := range d.op.lets {
		if l.usesDims || slices.ContainsFunc(l.params, func(p string) bool { _, ok := d.op.runs[c].params[p]; return !ok }) {
			continue
		}
		if v, err := l.eval(env); err == nil {
			env[l.name] = v
		}
	}
	return env
}

// workgroup works out the dispatch's workgroup size from the module and
// the constants, checks it against a given "workgroup", and sets the
// specialization constants of local_size_x_id and friends from it where
// the manifest gives no constant for them.
func (d *opDecoder) workgroup(c int, o *jsonObj, s dispatchSpec, mod *manifestModule, e *spvEntry, consts map[uint32]uint32) ([3]uint32, error) {
	var given [3]uint32
	var at *jsonNode
	if s.workgroup != nil {
		at = s.workgroup
		elems, err := d.src.array(s.workgroup, "the workgroup size in x, y and z")
		if err != nil {
			return given, err
		}
		if len(elems) < 1 || len(elems) > 3 {
			return given, d.src.errAt(s.workgroup, "has %d elements; want 1 to 3 (x, y, z; missing ones are 1)", len(elems))
		}
		given = [3]uint32{1, 1, 1}
		for i, el := range elems {
			ex, err := d.intExpression(el, pipelineContext, "a workgroup size")
			if err != nil {
				return given, err
			}
			if err := d.checkParams(ex, c); err != nil {
				return given, err
			}
			v, err := ex.evalInt(d.paramEnv(c))
			if err != nil {
				return given, ex.errorf(status.InvalidArgument, err)
			}
			if v < 1 || v > math.MaxUint32 {
				return given, d.src.errAt(el, "workgroup size %d is not positive", v)
			}
			given[i] = uint32(v)
		}
	}
	if at == nil {
		at = o.n
	}
	src, how := mod.spv.workgroup(e)
	if how == "" {
		return given, d.src.errAt(at, "%s declares no workgroup size for entry point %q", mod.path, e.name)
	}
	var wg [3]uint32
	for i, cs := range src {
		axis := "xyz"[i : i+1]
		switch {
		case cs.spec:
			v, set := consts[cs.specID]
			switch {
			case set && s.workgroup != nil && v != given[i]:
				return wg, d.src.errAt(at, "local_size_%s is constant_id %d of %s, which \"constants\" sets to %d, not %d", axis, cs.specID, mod.path, v, given[i])
			case set:
				wg[i] = v
			case s.workgroup != nil:
				consts[cs.specID] = given[i]
				wg[i] = given[i]
			default:
				wg[i] = cs.value
			}
		case cs.known:
			if s.workgroup != nil && cs.value != given[i] {
				return wg, d.src.errAt(at, "%s fixes local_size_%s of %q at %d (%s), not %d", mod.path, axis, e.name, cs.value, how, given[i])
			}
			wg[i] = cs.value
		case s.workgroup != nil:
			wg[i] = given[i]
		default:
			return wg, d.src.errAt(at, "local_size_%s of %q in %s is computed from other constants; give the \"workgroup\" it comes to", axis, e.name, mod.path)
		}
		if wg[i] == 0 {
			return wg, d.src.errAt(at, "local_size_%s of %q is 0", axis, e.name)
		}
	}
	return wg, nil
}

// bindings builds the dispatch's table of buffers by binding number and
// checks it against the descriptors the entry point uses.
func (d *opDecoder) bindings(c int, o *jsonObj, s dispatchSpec, mod *manifestModule, e *spvEntry, disp *manifestDispatch) error {
	var table []int
	at := o.n
	if s.bindings != nil {
		at = s.bindings
		elems, err := d.src.array(s.bindings, "buffer names by binding number (null for none)")
		if err != nil {
			return err
		}
		for _, el := range elems {
			if el.kind == jsonNull {
				table = append(table, -1)
				continue
			}
			name, err := d.src.str(el)
			if err != nil {
				return err
			}
			i := slices.IndexFunc(d.op.bufs, func(b *manifestBuffer) bool { return b.name == name })
			if i < 0 {
				return d.src.errAt(el, "no buffer %q (buffers: %s)", name, d.bufferNames())
			}
			table = append(table, i)
		}
	} else {
		for i, b := range d.op.bufs {
			if b.binding < 0 {
				continue
			}
			for len(table) <= b.binding {
				table = append(table, -1)
			}
			table[b.binding] = i
		}
	}
	for _, b := range mod.spv.entryBindings(e) {
		switch {
		case b.set != 0:
			return d.src.errAt(at, "entry point %q of %s uses %v; vkbench binds storage buffers in set 0 only", e.name, mod.path, b)
		case b.kind != "storage buffer":
			return d.src.errAt(at, "entry point %q of %s uses %v; vkbench binds storage buffers only (declare it a buffer block)", e.name, mod.path, b)
		case int(b.binding) >= len(table) || table[b.binding] < 0:
			return d.src.errAt(at, "binding %d, which entry point %q of %s uses, has no buffer: give a buffer \"binding\": %d, or name one at index %d of \"bindings\"", b.binding, e.name, mod.path, b.binding, b.binding)
		}
	}
	for len(table) > 0 && table[len(table)-1] < 0 {
		table = table[:len(table)-1]
	}
	if len(table) == 0 {
		return d.src.errAt(at, "binds no buffer; a dispatch binds at least one")
	}
	// Bindings the module does not use still need a buffer in the
	// layout; any will do.
	any := slices.IndexFunc(table, func(i int) bool { return i >= 0 })
	for i, b := range table {
		if b < 0 {
			table[i] = table[any]
		}
		d.op.bufs[table[i]].users[c] = true
	}
	disp.bindings = table
	disp.desc.Bindings = len(table)
	return nil
}

func (d *opDecoder) bufferNames() string {
	names := make([]string, len(d.op.bufs))
	for i, b := range d.op.bufs {
		names[i] = b.name
	}
	return strings.Join(names, ", ")
}

// pushConstants reads the dispatch's push constants and lays them out:
// each at its "offset", or after the previous one aligned to its size,
// as std430 places scalars.
func (d *opDecoder) pushConstants(c int, o *jsonObj, s dispatchSpec, mod *manifestModule, e *spvEntry, disp *manifestDispatch) error {
	at := o.n
	end := 0
	if s.push != nil {
		at = s.push
		elems, err := d.src.array(s.push, `the push constants in order, such as [{"type": "u32", "value": "N"}]`)
		if err != nil {
			return err
		}
		var used []bool
		for _, el := range elems {
			po, err := d.src.object(el, `a push constant {"type", "value", "offset"}`)
			if err != nil {
				return err
			}
			tn, err := po.need("type", "the push constant's type: "+scalarTypeNames())
			if err != nil {
				return err
			}
			t, err := d.scalarType(tn)
			if err != nil {
				return err
			}
			vn, err := po.need("value", "the value, a number or an expression")
			if err != nil {
				return err
			}
			val, err := d.expression(vn, dispatchContext)
			if err != nil {
				return err
			}
			if t.kind != floatKind && val.typ != intType {
				return d.src.errAt(vn, "expression %q is a float; a %s push constant takes an integer (round it with ceil, floor or round)", val.src, t.name)
			}
			if err := d.checkParams(val, c); err != nil {
				return err
			}
			off := (end + t.size - 1) / t.size * t.size
			if on := po.get("offset"); on != nil {
				x, err := d.src.integer(on, 0, 1<<12)
				if err != nil {
					return err
				}
				if int(x)%t.size != 0 {
					return d.src.errAt(on, "offset %d of a %s is not a multiple of %d", x, t.name, t.size)
				}
				off = int(x)
			}
			po.get("name")
			if err := po.done(); err != nil {
				return err
			}
			for len(used) < off+t.size {
				used = append(used, false)
			}
			for i := off; i < off+t.size; i++ {
				if used[i] {
					return d.src.errAt(el, "bytes %d to %d overlap an earlier push constant", off, off+t.size-1)
				}
				used[i] = true
			}
			end = max(end, off+t.size)
			disp.push = append(disp.push, pushField{typ: t, offset: off, value: val})
		}
	}
	if need, ok := mod.spv.pushConstantSize(e); ok && need > uint64(end) {
		return d.src.errAt(at, "entry point %q of %s reads %d bytes of push constants; the push constants here cover %d bytes", e.name, mod.path, need, end)
	}
	disp.pushSize = (end + 3) &^ 3
	disp.desc.PushConstantSize = disp.pushSize
	return nil
}
