package manifest

import (
	"cmp"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// decodeDispatch reads one dispatch of candidate c from o, with the
// fields it inherits in s.
func (d *opDecoder) decodeDispatch(c int, o *jsonObj, s dispatchSpec) (*manifestDispatch, error) {
	disp := &manifestDispatch{where: d.src.where(o.n)}
	var mod *manifestModule
	switch {
	case s.spirv != nil && s.glsl != nil:
		return nil, d.src.errAt(s.glsl, "a dispatch has a \"spirv\" module or a \"glsl\" source, not both")
	case s.defines != nil && s.glsl == nil:
		return nil, d.src.errAt(s.defines, "only a \"glsl\" source takes #defines")
	case s.glsl != nil:
		mod = must(d.glslModule(c, s.glsl, s.defines))
	case s.spirv != nil:
		mod = must(d.module(s.spirv))
	default:
		return nil, d.src.errMissing(o.n, "spirv", "the path of the SPIR-V module, relative to the manifest (or \"glsl\", a GLSL source to compile)")
	}
	entry := "main"
	if s.entry != nil {
		entry = must(d.src.str(s.entry))
	}
	e, err := mod.spv.Entry(entry)
	if err != nil {
		return nil, d.src.errAt(cmp.Or(s.entry, s.source()), "%s: %s", mod.path, status.Message(err))
	}
	run := d.op.runs[c]
	disp.desc = hal.ExecutableDesc{SPIRV: mod.code, EntryPoint: entry, SubgroupSize: run.subgroupSize, FullSubgroups: run.fullSubgroups}
	disp.mod, disp.entry = mod, e
	check(d.constants(c, s.constants, disp))
	check(d.workgroup(c, o, s, disp))
	check(d.fix(c, disp))
	check(d.checkFullSubgroups(s, disp))
	check(d.bindings(c, o, s, disp))
	check(d.pushConstants(c, o, s, disp))
	g := must(o.need("groups", `the number of workgroups in x, y and z, such as ["div_up(N, 256)", 1, 1]`))
	disp.groups = must(d.xyz(c, g, "the number of workgroups in x, y and z", dispatchContext, "a workgroup count"))
	optional(o, "repeat", &disp.repeat, d.intExprIn(repeatContext, "a repeat count"))
	check(d.checkParams(c, disp.repeat))
	disp.fixed.key = disp.keyOf(disp.fixed.constants)
	var sized bool
	if disp.fixed.shared, sized = kernels.ModuleSharedMemory(mod.spv, e, disp.fixed.spec()); !sized && run.shared == 0 {
		// The candidate still runs; a pipeline past the device's limit
		// is undefined behaviour, so say that it goes unchecked.
		d.warn(s.source(), "the shared memory entry point %q of %s declares with constants %s cannot be worked out, so it is not checked against the device's limit; \"requires\": {\"shared_memory\": BYTES} has it checked", e.Name, mod.path, constantsString(disp.fixed.constants))
	}
	return disp, nil
}

// xyz reads an array of 1 to 3 integer expressions of candidate c, in x,
// y and z (what it is and what each is); missing ones are 1.
func (d *opDecoder) xyz(c int, n *jsonNode, what string, ctx exprContext, each string) ([3]manifestExpr, error) {
	var out [3]manifestExpr
	elems := must(d.src.array(n, what))
	if len(elems) < 1 || len(elems) > 3 {
		return out, d.src.errAt(n, "has %d elements; want 1 to 3 (x, y, z; missing ones are 1)", len(elems))
	}
	for i := range out {
		if i >= len(elems) {
			out[i] = manifestExpr{expr: literalExpr(intValue(1)), where: d.src.where(n)}
			continue
		}
		out[i] = must(d.intExpression(elems[i], ctx, each))
		check(d.checkParams(c, &out[i]))
	}
	return out, nil
}

// bindings builds the dispatch's tables of buffers by binding number, one
// a descriptor set, and checks them against the descriptors the entry
// point uses. "bindings" names set 0's; a buffer's own "set" and
// "binding" place it otherwise, unless "bindings" names it.
func (d *opDecoder) bindings(c int, o *jsonObj, s dispatchSpec, disp *manifestDispatch) error {
	mod, e := disp.mod, disp.entry
	tables := [][]int{nil}
	at := o.n
	if s.bindings != nil {
		at = s.bindings
		for _, el := range must(d.src.array(s.bindings, "buffer names by binding number (null for none)")) {
			if el.kind == jsonNull {
				tables[0] = append(tables[0], -1)
				continue
			}
			name := must(d.src.str(el))
			i := slices.IndexFunc(d.op.bufs, func(b *manifestBuffer) bool { return b.name == name })
			if i < 0 {
				return d.src.errAt(el, "no buffer %q (buffers: %s)", name, strings.Join(par.Map(d.op.bufs, func(b *manifestBuffer) string { return b.name }), ", "))
			}
			tables[0] = append(tables[0], i)
		}
	}
	for i, b := range d.op.bufs {
		// A dispatch that lists "bindings" binds the buffers it names
		// there alone, and the others of sets but 0 where they say.
		if b.binding < 0 || s.bindings != nil && (b.set == 0 || slices.Contains(tables[0], i)) {
			continue
		}
		for len(tables) <= b.set {
			tables = append(tables, nil)
		}
		for len(tables[b.set]) <= b.binding {
			tables[b.set] = append(tables[b.set], -1)
		}
		tables[b.set][b.binding] = i
	}
	kinds := par.Map(tables, func(t []int) []hal.BindingKind { return make([]hal.BindingKind, len(t)) })
	for _, b := range mod.spv.Bindings(e) {
		set, binding := int(b.Set), int(b.Binding)
		if set >= len(tables) || binding >= len(tables[set]) || tables[set][binding] < 0 {
			if set == 0 {
				return d.src.errAt(at, "binding %d, which entry point %q of %s uses, has no buffer: give a buffer \"binding\": %d, or name one at index %d of \"bindings\"", binding, e.Name, mod.path, binding, binding)
			}
			return d.src.errAt(at, "binding %d of set %d, which entry point %q of %s uses, has no buffer: give a buffer \"set\": %d, \"binding\": %d", binding, set, e.Name, mod.path, set, binding)
		}
		kinds[set][binding] = must(d.bindingKind(at, e, mod, b, d.op.bufs[tables[set][binding]]))
	}
	return d.layOut(c, at, tables, kinds, disp)
}

// layOut sets the dispatch's bindings and its pipeline's, set by set,
// from the tables of buffers by set and binding and their kinds.
func (d *opDecoder) layOut(c int, at *jsonNode, tables [][]int, kinds [][]hal.BindingKind, disp *manifestDispatch) error {
	for set, t := range tables {
		for len(t) > 0 && t[len(t)-1] < 0 {
			t = t[:len(t)-1]
		}
		tables[set], kinds[set] = t, kinds[set][:len(t)]
	}
	for len(tables) > 1 && len(tables[len(tables)-1]) == 0 {
		tables, kinds = tables[:len(tables)-1], kinds[:len(kinds)-1]
	}
	table, flat := slices.Concat(tables...), slices.Concat(kinds...)
	if len(table) == 0 {
		return d.src.errAt(at, "binds no buffer; a dispatch binds at least one")
	}
	// Bindings the module does not use still need something in the
	// layout: a buffer if there is one, else the first image, bound as
	// it is bound where it is used.
	filler := slices.IndexFunc(table, func(i int) bool { return i >= 0 && d.op.bufs[i].img == nil })
	if filler < 0 {
		filler = slices.IndexFunc(table, func(i int) bool { return i >= 0 })
	}
	for i, b := range table {
		if b < 0 {
			table[i], flat[i] = table[filler], flat[filler]
		}
		d.op.bufs[table[i]].users[c] = true
	}
	disp.bindings = table
	disp.desc.Bindings = len(table)
	if len(tables) > 1 {
		disp.desc.Sets = par.Map(tables, func(t []int) int { return len(t) })
	}
	// Only a dispatch that binds more than storage buffers says its kinds:
	// nil says that to hal, and keeps the pipeline's description (and the
	// candidate's digest) that of a kernel of buffers.
	if slices.ContainsFunc(flat, func(k hal.BindingKind) bool { return k != hal.StorageBufferBinding }) {
		disp.desc.BindingKinds = flat
	}
	return nil
}

// pushConstants reads the dispatch's push constants and lays them out:
// each at its "offset", or after the previous one aligned to its size,
// as std430 places scalars.
func (d *opDecoder) pushConstants(c int, o *jsonObj, s dispatchSpec, disp *manifestDispatch) error {
	mod, e := disp.mod, disp.entry
	at := o.n
	end := 0
	if s.push != nil {
		at = s.push
		for _, el := range must(d.src.array(s.push, `the push constants in order, such as [{"type": "u32", "value": "N"}]`)) {
			po := must(d.src.object(el, `a push constant {"type", "value", "offset"}`))
			tn := must(po.need("type", "the push constant's type: "+scalarTypeNames()))
			t := must(d.scalarType(tn))
			vn := must(po.need("value", "the value, a number or an expression"))
			val := d.valueExpression(vn, dispatchContext, t, "push constant takes an integer")
			check(d.checkParams(c, &val))
			off := (end + t.size - 1) / t.size * t.size
			if on := po.get("offset"); on != nil {
				x := must(d.src.integer(on, 0, 1<<12))
				if int(x)%t.size != 0 {
					return d.src.errAt(on, "offset %d of a %s is not a multiple of %d", x, t.name, t.size)
				}
				off = int(x)
			}
			po.get("name")
			check(po.done())
			if slices.ContainsFunc(disp.push, func(f pushField) bool { return off < f.offset+f.typ.size && f.offset < off+t.size }) {
				return d.src.errAt(el, "bytes %d to %d overlap an earlier push constant", off, off+t.size-1)
			}
			end = max(end, off+t.size)
			disp.push = append(disp.push, pushField{typ: t, offset: off, value: val})
		}
	}
	if need, ok := mod.spv.PushConstantBytes(e, disp.fixed.spec()); ok && need > end {
		return d.src.errAt(at, "entry point %q of %s reads %d bytes of push constants; the push constants here cover %d bytes", e.Name, mod.path, need, end)
	}
	disp.pushSize = (end + 3) &^ 3
	disp.desc.PushConstantSize = disp.pushSize
	return nil
}

// checkFullSubgroups fails when a dispatch whose candidate requires full
// subgroups of a given size has a workgroup whose x is not a multiple of
// it, a fact of the manifest whatever the device (the device's own
// sizes are checked against it when it is chosen).
func (d *opDecoder) checkFullSubgroups(s dispatchSpec, disp *manifestDispatch) error {
	size, wg := disp.desc.SubgroupSize, disp.fixed.wg
	if !disp.desc.FullSubgroups || size == 0 || disp.sized || wg[0]%size == 0 {
		return nil
	}
	return d.src.errAt(cmp.Or(s.workgroup, s.source()), "requires full subgroups of %d, but the workgroup's size in x is %d, not a multiple of it", size, wg[0])
}
