package manifest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// This file is what a size makes of an operation, on a device or (info
// nil) on any: the asserts, the buffers' lengths, each candidate's work
// and the part of each buffer it is checked on (layout), and the
// dispatches of a run with their pipelines (plan). The manifest's dry run
// and Prepare both go through it.

// assertFailed marks (as a payload) the error of a size that fails an
// assert: at load time a candidate may refuse the default size.
type assertFailed struct{}

func isAssertFailure(err error) bool {
	_, ok := status.Payload[assertFailed](err)
	return ok
}

// Limits on what one run may record, so that a manifest cannot ask for
// millions of dispatches by mistake.
const (
	maxRepeat    = 1 << 16
	maxSteps     = 1 << 16
	maxBufferLen = 1 << 48
)

// env is the environment of expressions at size (nil: none) with
// params: the dimensions, the params, the lets that need no param beyond
// them, and the device's limits (the least every device allows for nil). A let
// that cannot be evaluated is left out, and the first such error is
// returned with the rest: Prepare stops at it, while the decoder works
// out what it can before the dry run reports it.
func (op *manifestOp) env(size kernels.Size, params map[string]int, info *hal.DeviceInfo) (exprEnv, error) {
	env := intEnv(params)
	for i := range size.Len() {
		env[op.dims[i]] = intValue(int64(size.Dim(i)))
	}
	var first error
	for _, l := range op.lets {
		if slices.ContainsFunc(l.params, func(p string) bool { _, ok := params[p]; return !ok }) {
			continue
		}
		if v, err := l.eval(env); err == nil {
			env[l.name] = v
		} else if first == nil {
			first = l.errorf(status.InvalidArgument, err)
		}
	}
	setDevice(env, info)
	return env, first
}

// checkAssertList checks asserts (the operation's or a candidate's, as
// whose says) in env. An assert about the device that fails is
// Unimplemented (the device cannot run it), one about the size
// InvalidArgument; before any device (info nil), a failed assert of the
// operation about the device is left for the device to decide.
func (op *manifestOp) checkAssertList(asserts []manifestExpr, env exprEnv, size kernels.Size, whose string, info *hal.DeviceInfo) error {
	for _, a := range asserts {
		v, err := a.evalInt(env)
		if err != nil {
			return a.errorf(status.InvalidArgument, err)
		}
		if v != 0 {
			continue
		}
		var dims []string
		for i, d := range op.dims {
			dims = append(dims, fmt.Sprintf("%s=%d", d, size.Dim(i)))
		}
		switch {
		case a.usesDevice && info == nil && whose == "operation":
			continue
		case a.usesDevice:
			name := "any device"
			if info != nil {
				name = "the device " + info.Name
			}
			err = status.Newf(status.Unimplemented, "manifest: %s: %s (%s) fails the %s's assert %q at size %s", a.where, name, deviceValues(a.expr, env), whose, a.src, strings.Join(dims, ","))
		default:
			err = status.Newf(status.InvalidArgument, "manifest: %s: size %s fails the %s's assert %q", a.where, strings.Join(dims, ","), whose, a.src)
		}
		return status.WithPayload(err, assertFailed{})
	}
	return nil
}

// setDevice sets the device's limits in env: info's, or, for nil (the
// manifest being read), the least every Vulkan device allows.
func setDevice(env exprEnv, info *hal.DeviceInfo) {
	for _, l := range kernels.DeviceLimits {
		v := l.Least
		if info != nil {
			v = l.Of(info.Limits)
		}
		env[l.Name] = intValue(int64(v))
	}
}

// deviceValues lists the device limits e uses with their values in env,
// such as "max_shared_memory=32768", for the message of a failed assert.
func deviceValues(e *expr, env exprEnv) string {
	var vals []string
	for _, name := range e.names {
		if slices.ContainsFunc(kernels.DeviceLimits, func(l kernels.DeviceLimit) bool { return l.Name == name }) {
			vals = append(vals, fmt.Sprintf("%s=%s", name, env[name]))
		}
	}
	return strings.Join(vals, ", ")
}

func (op *manifestOp) bufferLen(b *manifestBuffer, env exprEnv) (int64, error) {
	return b.len.evalIn(env, 0, maxBufferLen/int64(b.typ.size), "is %d elements, outside [0, 2⁴⁸ bytes]")
}

// layout is what a size makes of an operation: each candidate's
// environment (or why it has none), its work and the part of each buffer
// it is checked on, and each buffer's length (the most any candidate
// needs).
type layout struct {
	envs []exprEnv
	errs []error // per candidate
	lens []int64
	// work[c] is candidate c's bytes and flops; checks[c][i] is the part
	// of buffer i that is checked: first element and count.
	work   []work
	checks [][][2]int64
	// extents are the width and height of each image buffer.
	extents [][2]int64
	// inits are the buffers' inits with their expressions worked out.
	inits []bufferInit
}

// work is what one run does: the bytes it moves and the arithmetic.
type work struct{ bytes, flops float64 }

// layout checks the operation's asserts and evaluates what every
// candidate needs at size, on the device info describes (any for nil).
// A failure that concerns one candidate is kept in errs; one that
// concerns the operation is returned.
func (op *manifestOp) layout(size kernels.Size, info *hal.DeviceInfo) (*layout, error) {
	defer op.readRuns()()
	// counted is the environment of what is the same for every candidate.
	counted, err := op.env(size, nil, info)
	if err != nil {
		return nil, err
	}
	if err := op.checkAssertList(op.asserts, counted, size, "operation", info); err != nil {
		return nil, err
	}
	n := len(op.runs)
	l := &layout{envs: make([]exprEnv, n), errs: make([]error, n), lens: make([]int64, len(op.bufs)),
		work: make([]work, n), checks: make([][][2]int64, n), extents: make([][2]int64, len(op.bufs))}
	for c, run := range op.runs {
		if l.envs[c], l.errs[c] = op.env(size, run.params, info); l.errs[c] != nil {
			continue
		}
		l.errs[c] = op.checkAssertList(run.asserts, l.envs[c], size, "candidate", info)
	}
	for i, b := range op.bufs {
		if !b.len.usesParams {
			// The same for every candidate: a failure is the operation's.
			if l.lens[i], err = op.bufferLen(b, counted); err != nil {
				return nil, err
			}
		}
		if b.img != nil {
			if l.extents[i], err = op.imageExtent(b, counted); err != nil {
				return nil, err
			}
		}
		for c, uses := range b.users {
			if !uses || l.errs[c] != nil {
				continue
			}
			n := l.lens[i] // the length candidate c needs
			if b.len.usesParams {
				if n, l.errs[c] = op.bufferLen(b, l.envs[c]); l.errs[c] != nil {
					continue
				}
				l.lens[i] = max(l.lens[i], n)
			}
			l.work[c].bytes += float64(n) * float64(b.typ.size) * bytesMoved[b.role]
		}
	}
	if err := op.countsOf(counted); err != nil {
		return nil, err
	}
	if l.inits, err = op.initsAt(size, counted, l.lens); err != nil {
		return nil, err
	}
	for c := range op.runs {
		if l.errs[c] != nil {
			continue
		}
		if l.errs[c] = op.counts(c, l.envs[c], &l.work[c]); l.errs[c] != nil {
			continue
		}
		l.checks[c], l.errs[c] = op.checkRanges(l.envs[c], l.lens)
	}
	return l, nil
}

// initsAt works out the buffers' inits in env, and checks that every
// .npy file holds as many elements as its buffer has at size.
func (op *manifestOp) initsAt(size kernels.Size, env exprEnv, lens []int64) ([]bufferInit, error) {
	inits := make([]bufferInit, len(op.bufs))
	for i, b := range op.bufs {
		for _, arr := range []*hostArray{b.init.arr, b.expectNpy} {
			if arr != nil && arr.n != lens[i] {
				return nil, errWhere(status.InvalidArgument, b.where, "buffer %q has %d elements at size %v, and %s holds %d", b.name, lens[i], size, arr.path, arr.n)
			}
		}
		var err error
		if inits[i], err = b.init.resolve(b.typ, env); err != nil {
			return nil, status.Annotatef(err, "buffer %q", b.name)
		}
	}
	return inits, nil
}

// countsOf evaluates the bytes and flops that are the same for every
// candidate, so that their failure is the operation's.
func (op *manifestOp) countsOf(env exprEnv) error {
	for _, e := range []*manifestExpr{op.bytes, op.flops} {
		if e != nil && !e.usesParams {
			if _, err := e.eval(env); err != nil {
				return e.errorf(status.InvalidArgument, err)
			}
		}
	}
	return nil
}

// counts works out into w the bytes and flops of one run of candidate c
// that the manifest's "bytes" and "flops" give, where it has them: w
// holds the bytes layout counts by default, and no flops.
func (op *manifestOp) counts(c int, env exprEnv, w *work) error {
	for _, f := range []struct {
		e   *manifestExpr
		dst *float64
	}{{op.bytes, &w.bytes}, {op.flops, &w.flops}} {
		if f.e == nil {
			continue
		}
		v, err := f.e.eval(env)
		if err != nil {
			return f.e.errorf(status.InvalidArgument, err)
		}
		*f.dst = v.float()
	}
	if w.bytes < 0 || w.flops < 0 || math.IsNaN(w.bytes+w.flops) {
		return status.Newf(status.InvalidArgument, "manifest: %s/%s: bytes %g and flops %g must not be negative", op.name, op.cands[c].Name, w.bytes, w.flops)
	}
	return nil
}

// checkRanges returns the part of each checked buffer that a candidate,
// in env, is checked on: its "check" range, else all of it.
func (op *manifestOp) checkRanges(env exprEnv, lens []int64) ([][2]int64, error) {
	out := make([][2]int64, len(op.bufs))
	for i, b := range op.bufs {
		if !b.checked() {
			continue
		}
		var fc [2]int64 // first and count
		for k, e := range []*manifestExpr{b.first, b.count} {
			if e == nil {
				continue
			}
			v, err := e.evalInt(env)
			if err != nil {
				return nil, e.errorf(status.InvalidArgument, err)
			}
			fc[k] = v
		}
		first, count := fc[0], fc[1]
		if b.count == nil {
			count = lens[i] - first
		}
		if first < 0 || count < 0 || first > lens[i] || count > lens[i]-first {
			return nil, status.Newf(status.InvalidArgument, "manifest: %s: check: elements %d to %d (first %d, count %d) are not all in buffer %q of %d",
				b.where, first, first+count-1, first, count, b.name, lens[i])
		}
		out[i] = [2]int64{first, count}
	}
	return out, nil
}

// planStep is one dispatch of a run, ready to record.
type planStep struct {
	d        *manifestDispatch
	ps       pipelineSpec
	push     []byte
	groups   [3]uint32
	bindings []hal.Binding
}

// plan evaluates candidate c's dispatches at size in env: repeat counts,
// pipelines, groups and push constants, checked against the device info
// describes when given.
func (op *manifestOp) plan(size kernels.Size, c int, env exprEnv, info *hal.DeviceInfo) ([]planStep, error) {
	var steps []planStep
	for _, d := range op.runs[c].dispatches {
		// The repeat count sees the workgroup size of the first pass.
		env["pass"] = intValue(0)
		ps, err := op.pipeline(c, d, env, info)
		if err != nil {
			return nil, err
		}
		delete(env, "pass")
		setWorkgroup(env, ps.wg)
		count := int64(1)
		if d.repeat != nil {
			if count, err = d.repeat.evalIn(env, 0, maxRepeat, "is %d, outside [0, "+strconv.Itoa(maxRepeat)+"]"); err != nil {
				return nil, err
			}
		}
		for pass := range count {
			env["pass"] = intValue(pass)
			if pass > 0 {
				if ps, err = op.pipeline(c, d, env, info); err != nil {
					return nil, err
				}
				setWorkgroup(env, ps.wg)
			}
			st, err := d.step(env, ps, info)
			if err != nil {
				return nil, err
			}
			steps = append(steps, st)
			if len(steps) > maxSteps {
				return nil, status.Newf(status.InvalidArgument, "manifest: %s: a run of %q would record more than %d dispatches", d.where, op.cands[c].Name, maxSteps)
			}
		}
	}
	if len(steps) == 0 {
		return nil, status.Newf(status.InvalidArgument, "manifest: %s/%s at %v: every dispatch repeats 0 times; a run must dispatch something", op.name, op.cands[c].Name, size)
	}
	return steps, nil
}

// planAll plans every candidate that lay lays out at size, keeping in
// lay.errs why a candidate has no plan: kernels.ErrDeferred for a
// configuration of a GLSL space, planned when first needed (lazy.go).
func (op *manifestOp) planAll(size kernels.Size, lay *layout, info *hal.DeviceInfo) [][]planStep {
	defer op.readRuns()()
	plans := make([][]planStep, len(op.runs))
	for c, run := range op.runs {
		switch {
		case lay.errs[c] != nil:
		case run.lazy:
			lay.errs[c] = kernels.ErrDeferred
		default:
			plans[c], lay.errs[c] = op.plan(size, c, lay.envs[c], info)
		}
	}
	return plans
}

func setWorkgroup(env exprEnv, wg [3]uint32) {
	env["local_size_x"], env["local_size_y"], env["local_size_z"] = intValue(int64(wg[0])), intValue(int64(wg[1])), intValue(int64(wg[2]))
}

// pipeline works out candidate c's dispatch d's pipeline in env: the one
// of the manifest, or, for constants that depend on the size, the device
// or the pass, the one of their values here, checked against the module,
// and against the device (when given) by kernels.Candidate.Supported of
// the candidate with this pipeline's workgroup, constants and shared
// memory.
func (op *manifestOp) pipeline(c int, d *manifestDispatch, env exprEnv, info *hal.DeviceInfo) (pipelineSpec, error) {
	if !d.sized {
		return d.fixed, nil
	}
	ps, err := d.resolve(env)
	if err != nil {
		return ps, err
	}
	spec := ps.spec()
	if need, ok := d.mod.spv.PushConstantBytes(d.entry, spec); ok && need > d.pushSize {
		return ps, errWhere(status.InvalidArgument, d.where, "entry point %q of %s reads %d bytes of push constants with constants %s; the push constants cover %d bytes", d.entry.Name, d.mod.path, need, constantsString(ps.constants), d.pushSize)
	}
	if info == nil {
		return ps, nil
	}
	cand := op.cands[c]
	cand.WorkgroupSize, cand.Constants, cand.Requires.SharedMemory = ps.wg, ps.constants, max(ps.shared, op.runs[c].shared)
	if err := cand.Supported(*info); err != nil {
		return ps, errWhere(status.Unimplemented, d.where, "with constants %s: %s", constantsString(ps.constants), status.Message(err))
	}
	return ps, nil
}

// step evaluates one dispatch of pipeline ps in env: its groups (checked
// against the device's limits when known) and push constants.
func (d *manifestDispatch) step(env exprEnv, ps pipelineSpec, info *hal.DeviceInfo) (planStep, error) {
	st := planStep{d: d, ps: ps}
	for i, g := range d.groups {
		v, err := g.evalIn(env, 1, math.MaxUint32, "is %d; a dispatch needs 1 or more workgroups in each of x, y and z")
		if err != nil {
			return st, err
		}
		if info != nil && uint64(v) > uint64(info.Limits.MaxWorkgroupCount[i]) {
			return st, g.errorf(status.OutOfRange, fmt.Errorf("is %d, past the device's limit of %d workgroups in %c", v, info.Limits.MaxWorkgroupCount[i], "xyz"[i]))
		}
		st.groups[i] = uint32(v)
	}
	if d.pushSize > 0 {
		st.push = make([]byte, d.pushSize)
	}
	for _, f := range d.push {
		v, err := f.value.eval(env)
		if err != nil {
			return st, f.value.errorf(status.InvalidArgument, err)
		}
		if err := f.typ.encode(st.push[f.offset:], v); err != nil {
			return st, f.value.errorf(status.InvalidArgument, err)
		}
	}
	return st, nil
}
