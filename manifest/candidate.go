package manifest

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// manifestModule is a SPIR-V file a manifest names, read once.
type manifestModule struct {
	path string // as the manifest writes it
	code []byte
	spv  *spirv.Module
	// includes are the files a GLSL source was compiled from: itself
	// and those it #includes.
	includes []string
}

func (d *opDecoder) module(n *jsonNode) (*manifestModule, error) {
	p, full := d.path(n, "a SPIR-V file")
	if m, ok := d.modules[full]; ok {
		return m, nil
	}
	code, err := readModule(full)
	if err != nil {
		return nil, fileError(err, "manifest: %s: reading SPIR-V %q", d.src.where(n), full)
	}
	sm, err := spirv.Parse(code)
	if err != nil {
		hint := "" // SPIR-V's version word has zero bytes; text has none
		if !bytes.Contains(code, []byte{0}) {
			hint = ` (it is text; GLSL source goes in "glsl")`
		}
		return nil, d.src.errAt(n, "%q is not a usable SPIR-V module: %s%s", full, status.Message(err), hint)
	}
	m := &manifestModule{path: p, code: code, spv: sm}
	d.modules[full] = m
	return m, nil
}

// path reads the path of a file (what it is) that n gives relative to
// the manifest's folder: as written, and as it is opened.
func (d *opDecoder) path(n *jsonNode, what string) (p, full string) {
	if p = must(d.src.str(n)); p == "" {
		check(d.src.errAt(n, "is empty; want the path of %s", what))
	}
	if full = p; !filepath.IsAbs(p) {
		full = filepath.Join(d.dir, p)
	}
	d.op.addFiles(full)
	return p, full
}

func (op *manifestOp) addFiles(paths ...string) {
	for _, p := range paths {
		if !slices.Contains(op.files, p) {
			op.files = append(op.files, p)
		}
	}
}

// Files returns the files that the operations of manifests (those Load
// and Parse return) read: SPIR-V modules, GLSL sources and the files
// they #include, .npy inputs and answers; each path as the manifest's
// folder resolves it, once. A command that writes a file the user names
// must not write over one of these. Other operations have none.
func Files(ops []kernels.Operation) []string {
	var all manifestOp
	for _, op := range ops {
		if m, ok := op.(*manifestOp); ok {
			all.addFiles(m.files...)
		}
	}
	return all.files
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
	defer func() { _ = f.Close() }() // read only: nothing to lose
	return io.ReadAll(io.LimitReader(f, maxModuleSize+1))
}

// source returns the node of the dispatch's module: its "spirv" or
// "glsl".
func (s dispatchSpec) source() *jsonNode { return cmp.Or(s.spirv, s.glsl) }

// dispatchSpec is what a dispatch inherits from its candidate, and the
// candidate from its operation, field by field: each level's field, when
// present, replaces the one above.
type dispatchSpec struct {
	spirv, entry, workgroup, constants, push, bindings *jsonNode
	// glsl and defines are a GLSL source and its #defines, compiled in
	// place of a "spirv".
	glsl, defines *jsonNode
}

func (s dispatchSpec) override(o *jsonObj) dispatchSpec {
	fields := map[string]**jsonNode{"entry": &s.entry, "workgroup": &s.workgroup, "push_constants": &s.push,
		"bindings": &s.bindings, "defines": &s.defines}
	for key, dst := range fields {
		if v := o.get(key); v != nil {
			*dst = v
		}
	}
	// A level's module, SPIR-V or GLSL, replaces the one above.
	spv, glsl := o.get("spirv"), o.get("glsl")
	if spv != nil || glsl != nil {
		s.spirv, s.glsl = spv, glsl
	}
	// Constants add to (and replace by id) the candidate's; both must be
	// objects, or a value that is not would be dropped by the merge.
	if v := o.get("constants"); v != nil {
		if s.constants == nil {
			s.constants = v
		} else {
			must(o.src.object(s.constants, constantsWhat))
			must(o.src.object(v, constantsWhat))
			merged := &jsonNode{kind: jsonObject, path: v.path, off: v.off,
				keys: slices.Clone(s.constants.keys), vals: slices.Clone(s.constants.vals)}
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
	for c, obj := range d.candObjs {
		if d.defers(c) && d.gather != nil {
			continue // compiled when first needed (lazy.go)
		}
		if d.gather != nil {
			// compileAhead's first pass: each candidate goes as far as it
			// goes, noting the GLSL it needs (glslModule); an error stops
			// that candidate alone, as the decode that counts reports it.
			_, _ = d.decodeCandidate(c, obj)
			continue
		}
		// In the decode of a space's configurations, the fields an error
		// names are its template's, so the error names the configuration
		// too (spaceError): it unwinds with current set.
		d.current = obj
		cand := must(d.decodeCandidate(c, obj))
		d.current = nil
		if slices.ContainsFunc(d.op.cands, func(prev kernels.Candidate) bool { return prev.Name == cand.Name }) {
			return d.src.errAt(obj.n.member("name"), "candidate %q is described twice", cand.Name)
		}
		cand.Applies = d.op.applies(c)
		d.op.cands = append(d.op.cands, cand)
	}
	if d.gather != nil {
		return errGathered
	}
	return nil
}

// spaceError annotates an error of the decode of a space's
// configurations with the one it is of, or the space's candidate when it
// is of none (a check of the whole operation).
func (d *opDecoder) spaceError(err error) error {
	if d.current != nil {
		if name := d.current.n.member("name"); name != nil {
			return status.Annotatef(err, "in configuration %s of the space of candidate %q", name.s, d.space.tmpl)
		}
	}
	return status.Annotatef(err, "in a configuration of the space of candidate %q", d.space.tmpl)
}

// applies is candidate c's kernels.Candidate.Applies: whether its asserts
// about the size hold at a size, so that a tuner never measures it at a
// bucket's shape it refuses. Its asserts about the device are the
// device's to decide when a problem is prepared, and an assert that
// cannot be evaluated at a size is left for Prepare to report; nil for a
// candidate without asserts about the size.
func (op *manifestOp) applies(c int) func(kernels.Size) bool {
	sized := slices.DeleteFunc(slices.Clone(op.runs[c].asserts), func(a manifestExpr) bool { return a.usesDevice })
	if len(sized) == 0 {
		return nil
	}
	return func(size kernels.Size) bool {
		if size.Len() != len(op.dims) {
			return true
		}
		env, err := op.env(size, op.runs[c].params, nil)
		if err != nil {
			return true
		}
		return !isAssertFailure(op.checkAssertList(sized, env, size, "candidate", nil))
	}
}

// decodeCandidate decodes candidate c; it catches what its steps unwind
// with, and returns it.
func (d *opDecoder) decodeCandidate(c int, obj *jsonObj) (_ kernels.Candidate, err error) {
	defer catch[decodeError](&err)
	run := d.op.runs[c]
	nameNode, name := obj.needString("name", "the candidate's name")
	if !candNameRE.MatchString(name) {
		return kernels.Candidate{}, d.src.errAt(nameNode, "%q is not a candidate name (letters, digits, '_', '.', '+', '-')", name)
	}
	obj.get("params") // read by decodeParams
	run.asserts = d.asserts(obj, assertContext)
	for i := range run.asserts {
		check(d.checkParams(c, &run.asserts[i]))
	}
	check(d.subgroups(c, obj))
	cand := kernels.Candidate{Name: name, Params: maps.Clone(run.params)}
	d.requires(obj, &cand.Requires)
	run.shared = cand.Requires.SharedMemory
	if d.defers(c) && !run.lazy {
		// A configuration of a GLSL space stops here until resolve
		// (lazy.go), binding the buffers its template binds.
		run.lazy = true
		for _, b := range d.op.bufs {
			b.users[c] = b.users[d.space.at]
		}
		return cand, nil
	}
	spec := dispatchSpec{push: d.obj.get("push_constants")}.override(obj)
	dispatchObjs := must(d.dispatchObjects(obj))
	var shaders []string
	for k, o := range dispatchObjs {
		s := spec
		if o != obj {
			s = spec.override(o)
		}
		disp := must(d.decodeDispatch(c, o, s))
		if o != obj {
			check(o.done())
		}
		disp.desc.Label = name
		if k > 0 {
			disp.desc.Label = fmt.Sprintf("%s#%d", name, k)
		}
		run.dispatches = append(run.dispatches, disp)
		if !slices.Contains(shaders, disp.mod.path) {
			shaders = append(shaders, disp.mod.path)
		}
		d.require(&cand.Requires, disp)
		d.digest = append(d.digest, disp.mod.code...)
	}
	cand.Shader = strings.Join(shaders, "+")
	// Its own pipeline and workgroup are those of the default size.
	cand = run.sized(cand, par.Map(run.dispatches, func(disp *manifestDispatch) planStep { return planStep{d: disp, ps: disp.fixed} }))
	return cand, obj.done()
}

// subgroups reads candidate c's "subgroup_size" (an integer expression
// of its params, so that a space can span it) and "full_subgroups".
func (d *opDecoder) subgroups(c int, obj *jsonObj) error {
	run := d.op.runs[c]
	if n := obj.get("subgroup_size"); n != nil {
		e := must(d.intExpression(n, subgroupContext, "a subgroup size"))
		check(d.checkParams(c, &e))
		v, err := e.evalInt(intEnv(run.params))
		if err != nil {
			return e.errorf(status.InvalidArgument, err)
		}
		// Vulkan's subgroups are powers of two up to 128.
		if v < 1 || v > 128 || v&(v-1) != 0 {
			return d.src.errAt(n, "is %d; a required subgroup size is a power of two from 1 to 128", v)
		}
		run.subgroupSize = uint32(v)
	}
	optional(obj, "full_subgroups", &run.fullSubgroups, d.src.boolean)
	return nil
}

// dispatchObjects returns the objects of a candidate's dispatches: those
// of "dispatches", or the candidate itself for one dispatch.
func (d *opDecoder) dispatchObjects(obj *jsonObj) ([]*jsonObj, error) {
	ds := obj.get("dispatches")
	if ds == nil {
		return []*jsonObj{obj}, nil
	}
	if g := obj.get("groups"); g != nil {
		return nil, d.src.errAt(g, "a candidate with \"dispatches\" gives each dispatch its own groups")
	}
	if r := obj.get("repeat"); r != nil {
		return nil, d.src.errAt(r, "a candidate with \"dispatches\" gives each dispatch its own repeat")
	}
	elems := must(d.src.list(ds, "the candidate's dispatches, in order", "a candidate runs at least one dispatch"))
	return par.Map(elems, func(e *jsonNode) *jsonObj { return must(d.src.object(e, "a dispatch")) }), nil
}

// require adds to r what dispatch disp needs of a device:
// its capabilities (kernels.ModuleRequirements, as for every kernel) and
// what it does with the images it binds, format by
// format: a storage image, a sampled one, through a linear filter where
// its sampler has one. A candidate whose device cannot do one of them is
// unsupported (kernels.Requirements.Images), and the others run. A
// candidate's SPIR-V is its first dispatch's, so the modules of later
// dispatches are known only through r.
func (d *opDecoder) require(r *kernels.Requirements, disp *manifestDispatch) {
	*r = r.Merge(kernels.ModuleRequirements(disp.mod.spv))
	for b, kind := range disp.imageBindings() {
		img := d.op.bufs[b].img
		f := hal.FormatStorage
		if kind == hal.SampledImageBinding {
			f = hal.FormatSampled
			if img.sampler.Filter == hal.Linear {
				f |= hal.FormatLinearFilter
			}
		}
		*r = r.Merge(kernels.Requirements{Images: []kernels.ImageUse{{Format: img.format, Features: f}}})
	}
}

// requires reads a candidate's (or, for every candidate, the
// operation's) "requires" and adds it to what the modules need.
func (d *opDecoder) requires(obj *jsonObj, r *kernels.Requirements) {
	for _, o := range []*jsonObj{d.obj, obj} {
		n := o.get("requires")
		if n == nil {
			continue
		}
		ro := must(d.src.object(n, "what the kernels need of a device"))
		for _, f := range []struct {
			key string
			dst *bool
		}{{"float16", &r.Float16}, {"int64", &r.Int64}} {
			if v := ro.get(f.key); v != nil {
				*f.dst = must(d.src.boolean(v)) || *f.dst
			}
		}
		if v := ro.get("subgroup"); v != nil {
			for _, e := range must(d.src.array(v, "subgroup operations such as \"arithmetic\"")) {
				i := must(d.src.choice(e, "subgroup operations", hal.SubgroupOpNames[:], ", "))
				r.Subgroup |= hal.SubgroupOps(1)<<i | hal.SubgroupBasic
			}
		}
		if v := ro.get("min_subgroup_size"); v != nil {
			x := must(d.src.integer(v, 1, 1<<16))
			r.MinSubgroupSize = max(r.MinSubgroupSize, uint32(x))
		}
		if v := ro.get("shared_memory"); v != nil {
			x := must(d.src.integer(v, 0, math.MaxUint32))
			r.SharedMemory = max(r.SharedMemory, uint32(x))
		}
		check(ro.done())
	}
}
