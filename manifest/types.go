package manifest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/half"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// scalarKind is the kind of a manifest's element and push-constant types.
type scalarKind uint8

const (
	uintKind scalarKind = iota
	intKind
	floatKind
)

// scalarType is an element type of a manifest buffer or push constant.
type scalarType struct {
	name string
	size int
	kind scalarKind
}

var scalarTypes = []scalarType{
	{"f32", 4, floatKind}, {"f16", 2, floatKind}, {"bf16", 2, floatKind}, {"f64", 8, floatKind},
	{"u32", 4, uintKind}, {"i32", 4, intKind},
	{"u8", 1, uintKind}, {"i8", 1, intKind},
	{"u16", 2, uintKind}, {"i16", 2, intKind},
	{"u64", 8, uintKind}, {"i64", 8, intKind},
}

func lookupScalarType(name string) (scalarType, bool) {
	for _, t := range scalarTypes {
		if t.name == name {
			return t, true
		}
	}
	return scalarType{}, false
}

func scalarTypeNames() string {
	return strings.Join(par.Map(scalarTypes, func(t scalarType) string { return t.name }), ", ")
}

// dtype returns the DType of t, or 0 for types DType does not name.
func (t scalarType) dtype() kernels.DType {
	d, _ := kernels.ParseDType(t.name) // 0 where it fails
	return d
}

// encode writes v as one element of t into dst (t.size bytes), or says
// why it does not fit.
func (t scalarType) encode(dst []byte, v exprValue) error {
	if t.kind == floatKind {
		f, u, err := v.float(), uint64(0), error(nil)
		switch t.size {
		case 1: // unorm8, clamped where out of range (an iota's later elements)
			if !(f >= 0 && f <= 1) {
				err = fmt.Errorf("%s is outside [0, 1], the range of an rgba8 component (the byte b is b/255; a uint8 .npy holds bytes)", v)
			}
			u = uint64(math.Round(min(max(f, 0), 1) * 255))
		case 2: // rounded once, from the float64
			u = uint64(half.FromFloat64(f))
			if t.name == "bf16" {
				u = uint64(half.BFloat16FromFloat64(f))
			}
		case 4:
			u = uint64(math.Float32bits(float32(f)))
		case 8:
			u = math.Float64bits(f)
		}
		putUint(dst, u, t.size)
		return err
	}
	if v.typ != intType {
		return fmt.Errorf("%s is a float; %s needs an integer", v, t.name)
	}
	bits := uint(8 * t.size)
	lo, hi := int64(0), uint64(math.MaxUint64)>>(64-bits)
	if t.kind == intKind {
		lo, hi = -1<<(bits-1), 1<<(bits-1)-1
	}
	if v.i < lo || v.i >= 0 && uint64(v.i) > hi {
		return fmt.Errorf("%d is outside %s's range [%d, %d]", v.i, t.name, lo, hi)
	}
	putUint(dst, uint64(v.i), t.size)
	return nil
}

// putUint writes the low size bytes of u into dst, little-endian;
// getUint reads them back.
func putUint(dst []byte, u uint64, size int) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], u)
	copy(dst[:size], b[:])
}

func getUint(b []byte, size int) uint64 {
	var u [8]byte
	copy(u[:], b[:size])
	return binary.LittleEndian.Uint64(u[:])
}

// decodeFloat reads one element of a float type; formatInt formats one
// of an integer type.
func (t scalarType) decodeFloat(b []byte) float64 {
	u := getUint(b, t.size)
	switch t.size {
	case 1: // unorm8
		return float64(u) / 255
	case 2:
		if t.name == "bf16" {
			return float64(half.BFloat16ToFloat32(uint16(u)))
		}
		return float64(half.ToFloat32(uint16(u)))
	case 4:
		return float64(math.Float32frombits(uint32(u)))
	}
	return math.Float64frombits(u)
}

func (t scalarType) formatInt(b []byte) string {
	if t.kind == uintKind {
		return fmt.Sprint(getUint(b, t.size))
	}
	return (&hostArray{typ: t, n: 1, data: b}).at(0).String()
}

// bufferInit is how a manifest buffer's initial contents are made.
type bufferInit struct {
	kind string // "zeros", "iota", "fill" or "random"
	// fill: the value; iota: start and step.
	value, step exprValue
	// random: the range ([lo, hi) for floats, [lo, hi] for integers)
	// and, if hasSeed, a seed that fixes the data whatever the problem's
	// seed.
	lo, hi  exprValue
	seed    uint64
	hasSeed bool
	// exprs are the values above written as expressions of the dims and
	// lets (by initValue, initStep, initLo, initHi), worked out at each
	// size (resolve).
	exprs [4]*manifestExpr
	// arr is an npy init's contents.
	arr *hostArray
}

// The slots of bufferInit.exprs.
const (
	initValue = iota
	initStep
	initLo
	initHi
)

// resolve returns the init with its expressions worked out in env (the
// dims and lets at a size), or why one cannot be, or does not fit t.
func (in bufferInit) resolve(t scalarType, env exprEnv) (bufferInit, error) {
	for slot, dst := range []*exprValue{&in.value, &in.step, &in.lo, &in.hi} {
		e := in.exprs[slot]
		if e == nil {
			continue
		}
		v, err := e.eval(env)
		if err != nil {
			return in, e.errorf(status.InvalidArgument, err)
		}
		if t.kind != floatKind || t == unorm8 {
			if err := t.encode(make([]byte, 8), v); err != nil {
				return in, e.errorf(status.InvalidArgument, err)
			}
		}
		*dst = promote(v, e.typ)
	}
	if in.kind == "random" && compare(in.lo, in.hi) > 0 {
		return in, status.Newf(status.InvalidArgument, "manifest: random init: min %s is above max %s", in.lo, in.hi)
	}
	return in, nil
}

// elementSource writes element i, as an init makes it, encoded into dst;
// source draws random contents from r.
type elementSource func(i int64, dst []byte)

func (in bufferInit) source(t scalarType, r *rand.Rand) elementSource {
	switch in.kind {
	case "npy":
		return func(i int64, dst []byte) { _ = t.encode(dst, in.arr.at(i)) }
	case "zeros":
		return func(_ int64, dst []byte) { clear(dst) }
	case "fill":
		return func(_ int64, dst []byte) { _ = t.encode(dst, in.value) }
	case "iota":
		if t.kind == floatKind {
			start, step := in.value.float(), in.step.float()
			return func(i int64, dst []byte) { _ = t.encode(dst, floatValue(start+float64(i)*step)) }
		}
		// Integers wrap around, as the type does: a u8 iota counts
		// 0, 1, ..., 255, 0, 1, ...
		start, step := uint64(in.value.i), uint64(in.step.i)
		return func(i int64, dst []byte) { putUint(dst, start+uint64(i)*step, t.size) }
	}
	if t.kind == floatKind {
		lo, hi := in.lo.float(), in.hi.float()
		return func(_ int64, dst []byte) { _ = t.encode(dst, floatValue(lo+(hi-lo)*r.Float64())) }
	}
	lo, hi := in.lo.i, in.hi.i
	if span := uint64(hi-lo) + 1; span > 0 {
		return func(_ int64, dst []byte) { putUint(dst, uint64(lo)+r.Uint64N(span), t.size) }
	}
	// The range is all of 64 bits.
	return func(_ int64, dst []byte) { putUint(dst, uint64(lo)+r.Uint64(), t.size) }
}

// defaultTolerances are the tolerances of the float types, by name, when
// the manifest gives none: a few roundings of the type, for kernels that
// sum in different orders, not a licence for wrong results.
var defaultTolerances = map[string]tolerance{
	"unorm8": {abs: 1.0001 / 255},    // one step of 1/255, for kernels that round differently
	"bf16":   {rel: 4e-2, abs: 4e-3}, // 8 bits of significand to f16's 11
	"f16":    {rel: 1e-2, abs: 1e-3},
	"f32":    {rel: 1e-5, abs: 1e-6},
	"f64":    {rel: 1e-12, abs: 1e-12},
}

// tolerance bounds |got - want| by abs + rel·|want|.
type tolerance struct{ rel, abs float64 }

func (t tolerance) of(want float64) float64 { return t.abs + t.rel*math.Abs(want) }

// accepts is the one rule by which a float element passes: equal to what
// is wanted (infinities of one sign included), NaN where NaN is wanted, or
// within the tolerance. A NaN or an infinity got where a number is
// wanted, or a number where NaN or an infinity is, never passes, whatever
// the tolerance.
func (t tolerance) accepts(got, want float64) bool {
	if got == want || math.IsNaN(got) && math.IsNaN(want) {
		return true
	}
	// An infinity wanted would make a relative tolerance infinite too.
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return false
	}
	return math.Abs(got-want) <= t.of(want)
}

// manifestExpr is an expression and where it was written, for errors.
type manifestExpr struct {
	*expr
	where string // "file:line:col: json.path"
}

// errorf returns an error about the expression with code, such as an
// evaluation error.
func (m manifestExpr) errorf(code status.Code, err error) error {
	return errWhere(code, m.where, "expression %q %v", m.src, err)
}

// evalIn evaluates m in env, an integer in [lo, hi]; outside, a format
// of its value, says what is wrong with one that is not.
func (m manifestExpr) evalIn(env exprEnv, lo, hi int64, outside string) (int64, error) {
	v, err := m.evalInt(env)
	if err == nil && (v < lo || v > hi) {
		err = fmt.Errorf(outside, v)
	}
	if err != nil {
		return 0, m.errorf(status.InvalidArgument, err)
	}
	return v, nil
}

type manifestLet struct {
	name string
	manifestExpr
	// params are the params it needs, directly or through other lets.
	params []string
}

type bufferRole uint8

type manifestBuffer struct {
	where string
	name  string
	typ   scalarType
	len   manifestExpr
	role  bufferRole
	init  bufferInit
	check bool
	// first and count are the part of the buffer checked (nil: from 0,
	// to the end); expect, if set, is the value of element i, checked in
	// place of the reference candidate's.
	first, count *manifestExpr
	expect       *manifestExpr
	// expectNpy, if set, holds the expected values of every element, from
	// a .npy file.
	expectNpy *hostArray
	// expectNode is "expect", read once every buffer is known, since it
	// may read the initial contents of any input (x[i]).
	expectNode *jsonNode
	// read says whether an expect reads the buffer's initial elements.
	read    bool
	tol     tolerance
	binding int // -1: none
	set     int // the descriptor set of binding
	// img is set when the buffer is an image (images.go).
	img *manifestImage
	// users[c] says whether candidate c binds the buffer.
	users []bool
}

// expects reports whether the buffer is checked against expected values
// ("expect") rather than the reference's results.
func (b *manifestBuffer) expects() bool { return b.expect != nil || b.expectNpy != nil }

// manifestRun is how a candidate runs.
type manifestRun struct {
	params     map[string]int
	asserts    []manifestExpr
	dispatches []*manifestDispatch
	// shared is the shared memory its "requires" asks for, the least it
	// needs at any size.
	shared uint32
	// subgroupSize (0: the driver's choice) and fullSubgroups are what
	// every pipeline of the candidate requires of its subgroups.
	subgroupSize  uint32
	fullSubgroups bool
	// lazy marks a configuration of a GLSL space, whose dispatches are
	// decoded when first needed (lazy.go).
	lazy bool
}

type manifestDispatch struct {
	where string
	// desc is the pipeline without its constants (fixed has them).
	desc  hal.ExecutableDesc
	mod   *manifestModule
	entry *spirv.Entry
	// consts are the specialization constants "constants" sets.
	consts []specConst
	// given is "workgroup" (nil if none), which sets the constants of
	// the workgroup size that consts does not; wgWhere is where it is
	// written (the dispatch if nowhere).
	given   [3]*manifestExpr
	wgWhere string
	// sized is set when a constant or the workgroup depends on the size,
	// the device or the pass: its pipelines are then worked out for each
	// size and pass (resolve), and fixed is the one at the default size.
	sized    bool
	fixed    pipelineSpec
	bindings []int // buffer index by binding number, set by set (desc.Sets)
	push     []pushField
	pushSize int
	groups   [3]manifestExpr
	repeat   *manifestExpr
}

// specConst is a specialization constant a dispatch sets.
type specConst struct {
	id    uint32
	kind  string // "int", "uint", "float" or "bool", as the module types it
	value manifestExpr
}

// pipelineSpec is what a dispatch's constants come to at one size and
// pass: their values, the workgroup size, the shared memory they declare
// (0 where it cannot be worked out), and the key of the pipeline they
// make (equal keys, same pipeline).
type pipelineSpec struct {
	constants []hal.Constant
	wg        [3]uint32
	shared    uint32
	key       string
}

// spec is ps's constants by constant_id, none twice: resolve makes them.
func (ps pipelineSpec) spec() map[uint32]uint32 {
	spec, _ := hal.ConstantValues(ps.constants)
	return spec
}

type pushField struct {
	typ    scalarType
	offset int
	value  manifestExpr
}

const (
	roleInput bufferRole = iota
	roleOutput
	roleInOut
	roleScratch
)

var roleNames = []string{"input", "output", "inout", "scratch"}

// bytesMoved is how many times a run moves each element of a buffer of
// each role, by default: inputs are read, outputs written, once; inouts
// both.
var bytesMoved = [...]float64{roleInput: 1, roleOutput: 1, roleInOut: 2, roleScratch: 0}

// operandRoles are the kernels.Role of each role's buffer.
var operandRoles = [...]kernels.Role{roleInput: kernels.Input, roleOutput: kernels.Output, roleInOut: kernels.Output, roleScratch: kernels.Scratch}
