package catalogue

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// reduceOp is "reduce": the sum of N floats. Every candidate runs its
// kernel in passes, each pass writing one partial sum per workgroup, until
// one value is left. Bytes: 4N (the partials are a rounding error of it);
// flops: N.
type reduceOp struct{ opInfo }

var subgroupArith = kernels.Requirements{Subgroup: hal.SubgroupBasic | hal.SubgroupArithmetic}

func newReduce() *reduceOp {
	tree := func(wg, ept uint32) kernels.Candidate {
		return candidate("reduce_tree", fmt.Sprintf("tree-wg%d-ept%d", wg, ept), 2, 4, [3]uint32{wg, 1, 1},
			map[string]int{"WG": int(wg), "EPT": int(ept)}, kernels.Requirements{}, wg, ept)
	}
	subgroup := func(wg, u uint32) kernels.Candidate {
		return candidate("reduce_subgroup", fmt.Sprintf("subgroup-vec4-u%d-wg%d", u, wg), 2, 4, [3]uint32{wg, 1, 1},
			map[string]int{"WG": int(wg), "U": int(u)}, subgroupArith, wg, u)
	}
	twopass := func(u, wg, groups uint32) kernels.Candidate {
		return candidate("reduce_gridstride", fmt.Sprintf("twopass-gridstride-u%d-wg%d-g%d", u, wg, groups), 2, 4, [3]uint32{wg, 1, 1},
			map[string]int{"WG": int(wg), "U": int(u), "GROUPS": int(groups)}, subgroupArith, wg, u)
	}
	return &reduceOp{opInfo{
		name: "reduce", dtype: kernels.F32, dims: []string{"N"},
		summary: "sum of N floats: memory bandwidth of a reduction",
		cands: []kernels.Candidate{
			tree(128, 16), tree(256, 4), tree(512, 8),
			subgroup(256, 2), subgroup(256, 4), subgroup(512, 4),
			twopass(4, 256, 1024), twopass(8, 256, 512), twopass(4, 512, 1024),
		},
	}}
}

// DefaultSize is streamSize's: 1 GiB on a discrete GPU.
func (*reduceOp) DefaultSize(info hal.DeviceInfo) kernels.Size { return streamSize(info, 1) }

// reducePass is one dispatch of a reduction: n values in, one partial per
// group of grid out.
type reducePass struct {
	n    uint64
	grid [3]uint32
	push []byte
}

func (r reducePass) outputs() uint64 { return uint64(r.grid[0]) * uint64(r.grid[1]) }

type reduceProblem struct {
	*problem
	n          int64
	x          []float32
	sum, abs   float64 // the exact-enough sum and the sum of magnitudes
	in, out    hal.Buffer
	scratch    [2]hal.Buffer
	plans      [][]reducePass
	heights    []float64
	planErrors []error
}

func (op *reduceOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	return prepare(op, dev, size, func(base *problem) (checker, error) {
		n := int64(size.Dim(0))
		p := &reduceProblem{problem: base, n: n}
		p.bytes, p.flops = 4*float64(n), float64(n)
		// Plan every candidate's passes now: the scratch buffers must hold the
		// partials of the candidate that makes the most.
		var need [2]uint64
		for _, c := range p.cands {
			plan, h, err := p.plan(c)
			p.plans = append(p.plans, plan)
			p.heights = append(p.heights, h)
			p.planErrors = append(p.planErrors, err)
			for i, pass := range plan[:max(len(plan)-1, 0)] {
				need[i%2] = max(need[i%2], pass.outputs())
			}
		}
		err := p.alloc(
			bufferDesc{&p.in, "x", kernels.Input, kernels.F32, n},
			bufferDesc{&p.out, "sum", kernels.Output, kernels.F32, 1},
			bufferDesc{&p.scratch[0], "partials0", kernels.Scratch, kernels.F32, int64(max(need[0], 1))},
			bufferDesc{&p.scratch[1], "partials1", kernels.Scratch, kernels.F32, int64(max(need[1], 1))},
		)
		if err != nil {
			return nil, err
		}
		p.x = randomSigned(seed, 0, n)
		p.sum, p.abs = compensatedSum(p.x)
		return p, kernels.WriteWords(ctx, p.in, p.x)
	})
}

// compensatedSum returns Σx by Neumaier's compensated sum in float64, far
// below the kernels' float32 error, so the reference is as good as exact;
// and Σ|x|. It sums blocks of randomBlock values on every processor, then
// the blocks' sums in order, so that the result depends on x alone. (One
// core summing a gigabyte took most of a second of reduce's tune.)
func compensatedSum(x []float32) (sum, abs float64) {
	type part struct{ sum, comp, abs float64 }
	parts := make([]part, (len(x)+randomBlock-1)/randomBlock)
	spreadBlocks(len(parts), func(b int) {
		var s part
		for _, v := range x[b*randomBlock : min((b+1)*randomBlock, len(x))] {
			s.sum, s.comp = neumaier(s.sum, s.comp, float64(v))
			s.abs += math.Abs(float64(v))
		}
		parts[b] = s
	})
	var comp float64
	for _, s := range parts {
		sum, comp = neumaier(sum, comp, s.sum)
		comp += s.comp
		abs += s.abs
	}
	return sum + comp, abs
}

// neumaier adds f to sum, whose rounding errors so far add up to comp,
// and returns the new sum and comp.
func neumaier(sum, comp, f float64) (float64, float64) {
	t := sum + f
	if math.Abs(sum) >= math.Abs(f) {
		comp += (sum - t) + f
	} else {
		comp += (f - t) + sum
	}
	return t, comp
}

// plan returns the passes of candidate c and the height of its summation
// tree: the most additions, each rounding once, on the way from an input
// element to the result. Orders the kernel does not fix (subgroupAdd, the
// combination of the subgroups' sums) count as the worst: a chain through
// all WG values.
func (p *reduceProblem) plan(c kernels.Candidate) ([]reducePass, float64, error) {
	var passes []reducePass
	var height float64
	n := uint64(p.n)
	wg := param(c, "WG")
	log2wg := float64(bits.Len64(wg) - 1)
	for {
		var groups uint64
		var h float64
		switch c.Shader {
		case "reduce_tree":
			ept := param(c, "EPT")
			groups = ceilDiv(n, wg*ept)
			h = float64(ept-1) + log2wg
		case "reduce_subgroup":
			u := param(c, "U")
			groups = ceilDiv(n, 4*wg*u)
			h = float64(u-1) + 2 + float64(wg-1)
		case "reduce_gridstride":
			u := param(c, "U")
			groups = 1
			if len(passes) == 0 {
				groups = min(param(c, "GROUPS"), ceilDiv(n, 4*wg*u))
			}
			steps := ceilDiv(n, 4*max(groups, 1)*wg*u) + 1
			h = float64(steps) + 1 + float64(bits.Len64(u)) + 2 + float64(wg-1)
		default:
			return nil, 0, noGeometry("reduce", c)
		}
		grid, err := p.grid1D(groups)
		if err != nil {
			return nil, 0, err
		}
		pass := reducePass{n: n, grid: grid, push: pushConstants(uint32(n))}
		passes = append(passes, pass)
		height += h
		if pass.outputs() == 1 {
			return passes, height, nil
		}
		n = pass.outputs()
	}
}

func (p *reduceProblem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	if _, err := p.candidate(cand); err != nil {
		return err
	}
	if err := p.planErrors[cand]; err != nil {
		return err
	}
	plan := p.plans[cand]
	for i, pass := range plan {
		in, out := p.in, p.out
		if i > 0 {
			in = p.scratch[(i-1)%2]
			if err := cb.Barrier(); err != nil {
				return err
			}
		}
		if i < len(plan)-1 {
			out = p.scratch[i%2]
		}
		if err := dispatch(cb, exe, pass.grid, pass.push, in, out); err != nil {
			return err
		}
	}
	return nil
}

// verify compares the sum with the float64 reference within
// eps32 · h · Σ|x|, h the height of the candidate's summation tree (see
// plan): the classic bound on the error of floating-point summation in
// any order of that depth (Higham, Accuracy and Stability of Numerical
// Algorithms, §4.2), with eps32 twice the unit roundoff for margin. A bound
// relative to the sum itself would be wrong: the sum of values of mixed
// signs can be much smaller than the rounding errors of its parts.
func (p *reduceProblem) verify(ctx context.Context, cand int, m *kernels.Mismatches) (int64, error) {
	got, err := p.downloadFloats(ctx, p.out, 1, kernels.F32)
	if err != nil {
		return 0, err
	}
	if tol := eps32*p.heights[cand]*p.abs + minNormal32; !within(got[0], p.sum, tol) {
		m.AddF32(got[0], p.sum, tol, "sum of %d", p.n)
	}
	return 1, nil
}
