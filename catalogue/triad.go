package catalogue

import (
	"context"
	"math"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// triadOp is "triad": a = b + s·c over N floats (STREAM's triad), s a push
// constant. Bytes: 12N; flops: 2N.
type triadOp struct{ opInfo }

func newTriad() *triadOp {
	scalar, vec4, _, gridstride := streamBuilders("triad", 3, 8)
	return &triadOp{opInfo{
		name: "triad", dtype: kernels.F32, dims: []string{"N"},
		summary: "a = b + s·c over N floats (STREAM triad): memory bandwidth",
		cands: []kernels.Candidate{
			scalar(256),
			vec4(128), vec4(256), vec4(512),
			gridstride(2, 256, 2048), gridstride(4, 256, 1024),
		},
	}}
}

// DefaultSize is streamSize's: 3 GiB in all on a discrete GPU.
func (*triadOp) DefaultSize(info hal.DeviceInfo) kernels.Size { return streamSize(info, 3) }

type triadProblem struct {
	*problem
	n                int64
	s                float32
	b, c             []float32
	bufA, bufB, bufC hal.Buffer
}

func (op *triadOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	return prepare(op, dev, size, func(base *problem) (checker, error) {
		n := int64(size.Dim(0))
		p := &triadProblem{problem: base, n: n}
		p.bytes, p.flops = 12*float64(n), 2*float64(n)
		err := p.alloc(
			bufferDesc{&p.bufB, "b", kernels.Input, kernels.F32, n},
			bufferDesc{&p.bufC, "c", kernels.Input, kernels.F32, n},
			bufferDesc{&p.bufA, "a", kernels.Output, kernels.F32, n},
		)
		if err != nil {
			return nil, err
		}
		r := kernels.NewRand(seed, 0)
		p.s = float32(0.5 + 1.5*r.Float64())
		p.b = randomSigned(seed, 1, n)
		p.c = randomSigned(seed, 2, n)
		p.dispatches(p.streamGrid(uint64(n)), pushConstants(uint32(n), math.Float32bits(p.s)), p.bufA, p.bufB, p.bufC)
		if err := kernels.WriteWords(ctx, p.bufB, p.b); err != nil {
			return nil, err
		}
		return p, kernels.WriteWords(ctx, p.bufC, p.c)
	})
}

// verify compares a[i] with b[i] + s·c[i] computed in float64 (exact to
// far below float32's precision). The tolerance is eps32 · (|b| + |s·c|),
// plus the smallest normal float for devices that flush denormals: a
// kernel rounds at most twice (the product, then the sum; once if it fuses
// them into an FMA), each rounding off by at most half an eps32 of the
// magnitudes involved.
func (p *triadProblem) verify(ctx context.Context, _ int, m *kernels.Mismatches) (int64, error) {
	got, err := p.downloadFloats(ctx, p.bufA, p.n, kernels.F32)
	if err != nil {
		return 0, err
	}
	s := float64(p.s)
	parallel(int64(len(got)), 1, m, func(lo, hi int64, m *kernels.Mismatches) {
		for i := lo; i < hi; i++ {
			g := got[i]
			b, sc := float64(p.b[i]), s*float64(p.c[i])
			if tol := eps32*(math.Abs(b)+math.Abs(sc)) + minNormal32; !within(g, b+sc, tol) {
				m.AddF32(g, b+sc, tol, "a[%d]", i)
			}
		}
	})
	return p.n, nil
}
