package manifest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// This file is a dispatch's specialization constants and workgroup size:
// read as expressions, checked against the module, and worked out into
// the pipeline of a size and pass (resolve). Constants that use only
// params are worked out once, when the manifest is read; those that use
// the dimensions, the device's limits or the pass index make one pipeline
// per distinct set of values, which a problem builds when it is prepared.

// constantsWhat is what a "constants" field holds, for its errors.
const constantsWhat = `constant_id to value, such as {"0": 256, "1": "VEC"}`

// constants reads "constants": constant_id to value (a number, a
// boolean, or an expression), each typed by the module. An id the module
// does not declare is a warning, not an error: glslc -O drops the
// constants a kernel does not use, and Vulkan ignores such entries.
func (d *opDecoder) constants(c int, n *jsonNode, disp *manifestDispatch) error {
	if n == nil {
		return nil
	}
	must(d.src.object(n, constantsWhat))
	mod := disp.mod
	for i, key := range n.keys {
		v := n.vals[i]
		id64, err := strconv.ParseUint(key, 10, 32)
		if err != nil {
			return d.src.errAt(v, "%q is not a constant_id (a non-negative integer)", key)
		}
		id := uint32(id64)
		e := d.expression(v, pipelineContext)
		check(d.checkParams(c, &e))
		info, ok := mod.spv.SpecConstant(id)
		if !ok {
			d.warn(v, "%s declares no specialization constant with constant_id %d (it declares %v), so the value is not passed; glslc -O drops the constants a kernel does not use", mod.path, id, mod.spv.SpecIDs())
			continue
		}
		if info.Kind == "" {
			return d.src.errAt(v, "constant_id %d of %s is %d bits wide; only 32-bit int, uint, float and bool constants can be set", id, mod.path, info.Width)
		}
		disp.consts = append(disp.consts, specConst{id: id, kind: info.Kind, value: e})
	}
	return nil
}

// workgroup reads "workgroup", the workgroup size the dispatch states:
// at each size, the module's rule (spirv's SpecializeWorkgroup) checks it
// and sets from it the constants "constants" does not (resolve).
func (d *opDecoder) workgroup(c int, o *jsonObj, s dispatchSpec, disp *manifestDispatch) error {
	at := o.n
	if s.workgroup != nil {
		at = s.workgroup
		xyz := must(d.xyz(c, s.workgroup, "the workgroup size in x, y and z", pipelineContext, "a workgroup size"))
		for i := range xyz {
			disp.given[i] = &xyz[i]
		}
	}
	disp.wgWhere = d.src.where(at)
	return nil
}

// fix works out the dispatch's pipeline when the manifest is read: the
// only one when its constants and workgroup use nothing but params; else
// the one at the default size (the candidate's own Executable), or the
// module's defaults if the default size cannot have one (a candidate
// whose assert refuses it, say; the dry run reports any other error).
func (d *opDecoder) fix(c int, disp *manifestDispatch) error {
	disp.sized = slices.ContainsFunc(disp.consts, func(k specConst) bool { return k.value.dependsOnSize() }) ||
		slices.ContainsFunc(disp.given[:], func(g *manifestExpr) bool { return g != nil && g.dependsOnSize() })
	// The environment at the default size of the smallest kind of device,
	// before any device, at pass 0.
	env, _ := d.op.env(d.op.sizes[kernels.SmallDevice], d.op.runs[c].params, nil)
	env["pass"] = intValue(0)
	ps, err := disp.resolve(env)
	if err != nil && disp.sized {
		ps, err = pipelineSpec{}, nil
		dims, _ := disp.mod.spv.Workgroup(disp.entry)
		for i, dim := range dims {
			ps.wg[i] = max(dim.Value, 1)
		}
	}
	disp.fixed = ps
	return err
}

// dependsOnSize reports whether e has a value only when a problem is
// prepared: it uses the dimensions, the device or the pass index.
func (e manifestExpr) dependsOnSize() bool { return e.usesDims || e.usesDevice || e.usesPass }

// resolve works out the dispatch's constants and workgroup size in env.
func (disp *manifestDispatch) resolve(env exprEnv) (pipelineSpec, error) {
	var ps pipelineSpec
	for _, k := range disp.consts {
		v, err := k.value.eval(env)
		if err != nil {
			return ps, k.value.errorf(status.InvalidArgument, err)
		}
		bits, err := specBits(k.kind, v)
		if err != nil {
			an := map[bool]string{true: "n"}[k.kind == "int" || k.kind == "uint"]
			return ps, errWhere(status.InvalidArgument, k.value.where, "constant_id %d of %s is a%s %s: %v", k.id, disp.mod.path, an, k.kind, err)
		}
		ps.constants = append(ps.constants, hal.Constant{ID: k.id, Value: bits})
	}
	var given [3]uint32
	for i, g := range disp.given {
		if g == nil {
			break // all three or none
		}
		v, err := g.evalInt(env)
		if err != nil {
			return ps, g.errorf(status.InvalidArgument, err)
		}
		if v < 1 || v > math.MaxUint32 {
			return ps, errWhere(status.InvalidArgument, g.where, "workgroup size %d is not positive", v)
		}
		given[i] = uint32(v)
	}
	spec := ps.spec()
	wg, err := disp.mod.spv.SpecializeWorkgroup(disp.entry, given, spec)
	if err != nil {
		return ps, errWhere(status.InvalidArgument, disp.wgWhere, "%s: %s", disp.mod.path, status.Message(err))
	}
	ps.wg, ps.constants = wg, hal.ConstantsOf(spec)
	ps.key = disp.keyOf(ps.constants)
	ps.shared, _ = kernels.ModuleSharedMemory(disp.mod.spv, disp.entry, spec) // decodeDispatch warns where it cannot be worked out
	return ps, nil
}

// keyOf returns the key of the dispatch's pipeline with constants cs:
// everything of its description but its label (and its code, which the
// module's path stands for).
func (disp *manifestDispatch) keyOf(cs []hal.Constant) string {
	d := disp.desc
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%v\x00%v\x00%d %v\x00%v",
		disp.mod.path, d.EntryPoint, d.Bindings, d.PushConstantSize, d.BindingKinds, d.Sets, d.SubgroupSize, d.FullSubgroups, cs)
}

// executable describes the dispatch's pipeline with the constants of ps,
// labelled with them where they depend on the size.
func (disp *manifestDispatch) executable(ps pipelineSpec) hal.ExecutableDesc {
	desc := disp.desc
	desc.Constants = slices.Clone(ps.constants)
	if disp.sized {
		desc.Label += " (" + constantsString(ps.constants) + ")"
	}
	return desc
}

// constantsString writes constants as "0=64 1=300", for labels and
// messages.
func constantsString(cs []hal.Constant) string {
	return strings.Join(par.Map(cs, func(k hal.Constant) string { return fmt.Sprintf("%d=%d", k.ID, k.Value) }), " ")
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

// errWhere returns an error with code about the field at where
// ("file:line:col: path"), as errAt does for a node.
func errWhere(code status.Code, where, format string, args ...any) error {
	return status.Newf(code, "manifest: %s: %s", where, fmt.Sprintf(format, args...))
}
