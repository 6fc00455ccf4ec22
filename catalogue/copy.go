package catalogue

import (
	"context"
	"fmt"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// copyOp is "copy": dst = src over N 32-bit words, the measure of memory
// bandwidth. Bytes: 8N (read N words, write N words).
type copyOp struct{ opInfo }

// streamBuilders returns the candidate builders of a streaming operation
// (copy, triad) of bindings buffers and push bytes of push constants, one
// a shader (streamGrid's shapes).
func streamBuilders(op string, bindings, push int) (scalar, vec4 func(wg uint32) kernels.Candidate,
	unroll func(u, wg uint32) kernels.Candidate, gridstride func(u, wg, groups uint32) kernels.Candidate) {
	scalar = func(wg uint32) kernels.Candidate {
		return candidate(op+"_scalar", fmt.Sprintf("scalar-wg%d", wg), bindings, push, [3]uint32{wg, 1, 1},
			map[string]int{"WG": int(wg)}, kernels.Requirements{}, wg)
	}
	vec4 = func(wg uint32) kernels.Candidate {
		return candidate(op+"_vec4", fmt.Sprintf("vec4-wg%d", wg), bindings, push, [3]uint32{wg, 1, 1},
			map[string]int{"WG": int(wg)}, kernels.Requirements{}, wg)
	}
	unroll = func(u, wg uint32) kernels.Candidate {
		return candidate(op+"_vec4_unroll", fmt.Sprintf("vec4-unroll%d-wg%d", u, wg), bindings, push, [3]uint32{wg, 1, 1},
			map[string]int{"WG": int(wg), "U": int(u)}, kernels.Requirements{}, wg, u)
	}
	gridstride = func(u, wg, groups uint32) kernels.Candidate {
		return candidate(op+"_gridstride", fmt.Sprintf("gridstride-vec4-u%d-wg%d-g%d", u, wg, groups), bindings, push, [3]uint32{wg, 1, 1},
			map[string]int{"WG": int(wg), "U": int(u), "GROUPS": int(groups)}, kernels.Requirements{}, wg, u)
	}
	return scalar, vec4, unroll, gridstride
}

func newCopy() *copyOp {
	scalar, vec4, unroll, gridstride := streamBuilders("copy", 2, 4)
	return &copyOp{opInfo{
		name: "copy", dtype: kernels.U32, dims: []string{"N"},
		summary: "dst = src over N 32-bit words: memory bandwidth",
		cands: []kernels.Candidate{
			scalar(64), scalar(256),
			vec4(128), vec4(256), vec4(512),
			unroll(4, 128), unroll(4, 256), unroll(8, 256),
			gridstride(2, 256, 2048), gridstride(4, 256, 1024), gridstride(4, 512, 1024),
		},
	}}
}

// DefaultSize is streamSize's: 1 GiB each way on a discrete GPU.
func (*copyOp) DefaultSize(info hal.DeviceInfo) kernels.Size { return streamSize(info, 2) }

type copyProblem struct {
	*problem
	n       int64
	src     []uint32
	in, out hal.Buffer
}

func (op *copyOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	return prepare(op, dev, size, func(base *problem) (checker, error) {
		n := int64(size.Dim(0))
		p := &copyProblem{problem: base, n: n}
		p.bytes = 8 * float64(n)
		if err := p.alloc(bufferDesc{&p.in, "src", kernels.Input, kernels.U32, n}, bufferDesc{&p.out, "dst", kernels.Output, kernels.U32, n}); err != nil {
			return nil, err
		}
		p.dispatches(p.streamGrid(uint64(n)), pushConstants(uint32(n)), p.in, p.out)
		p.src = randomWords(seed, 0, n)
		return p, kernels.WriteWords(ctx, p.in, p.src)
	})
}

// verify compares every word exactly, a copy has no rounding: by digest
// first (see the package doc).
func (p *copyProblem) verify(ctx context.Context, _ int, m *kernels.Mismatches) (int64, error) {
	same, err := p.digestMatches(ctx, p.out, p.n, func(i int64) (uint32, int64) { return p.src[i], i })
	if same || err != nil {
		return p.n, err
	}
	got, err := p.download(ctx, p.out, p.n)
	if err != nil {
		return 0, err
	}
	parallel(int64(len(got)), 1, m, func(lo, hi int64, m *kernels.Mismatches) {
		for i := lo; i < hi; i++ {
			if got[i] != p.src[i] {
				m.Add(func() string { return fmt.Sprintf("dst[%d]: got 0x%08x, want 0x%08x (exact)", i, got[i], p.src[i]) })
			}
		}
	})
	return p.n, nil
}
