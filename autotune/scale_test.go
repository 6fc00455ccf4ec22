package autotune_test

import (
	"context"
	_ "embed"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute testdata/scale.comp -o testdata/scale.spv

//go:embed testdata/scale.spv
var scaleSPIRV []byte

// scaleOp is y = 3x with candidates of known speed and correctness: fast
// ones at several workgroup sizes, a slow one (spin) and a wrong one.
type scaleOp struct {
	cands    []kernels.Candidate
	prepares atomic.Int64
	records  atomic.Int64
}

type scaleCand struct {
	name        string
	wg, spin    uint32
	wrong       bool
	unsupported bool
}

func newScaleOp(cs ...scaleCand) *scaleOp {
	op := &scaleOp{}
	for _, c := range cs {
		wrong := uint32(0)
		if c.wrong {
			wrong = 1
		}
		cand := kernels.Candidate{
			Name: c.name, Shader: "scale", SPIRV: scaleSPIRV, Bindings: 2, PushConstantSize: 8,
			Constants:     []hal.Constant{{ID: 0, Value: c.wg}, {ID: 1, Value: c.spin}, {ID: 2, Value: wrong}},
			WorkgroupSize: [3]uint32{c.wg, 1, 1},
		}
		if c.unsupported {
			cand.Requires.SharedMemory = 1 << 30 // more than any device has
		}
		op.cands = append(op.cands, cand)
	}
	return op
}

func defaultScaleOp() *scaleOp {
	return newScaleOp(
		scaleCand{name: "spin", wg: 64, spin: 64},
		scaleCand{name: "wg64", wg: 64},
		scaleCand{name: "wrong", wg: 64, wrong: true},
		scaleCand{name: "exotic", wg: 64, unsupported: true},
	)
}

func (o *scaleOp) Name() string                            { return "scale" }
func (o *scaleOp) Summary() string                         { return "y = 3x" }
func (o *scaleOp) DType() kernels.DType                    { return kernels.F32 }
func (o *scaleOp) Dims() []string                          { return []string{"N"} }
func (o *scaleOp) DefaultSize(hal.DeviceInfo) kernels.Size { return kernels.SizeOf(1 << 16) }
func (o *scaleOp) Candidates() []kernels.Candidate         { return o.cands }

type scaleProblem struct {
	op   *scaleOp
	n    int
	x, y hal.Buffer
	want []float32
	push []byte
}

func (o *scaleOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	o.prepares.Add(1)
	n := size.Dim(0)
	p := &scaleProblem{op: o, n: n, want: make([]float32, n), push: make([]byte, 8)}
	var err error
	if p.x, err = dev.CreateBuffer(hal.BufferDesc{Size: int64(4 * n), Label: "x"}); err != nil {
		return nil, err
	}
	if p.y, err = dev.CreateBuffer(hal.BufferDesc{Size: int64(4 * n), Label: "y"}); err != nil {
		return nil, status.Join(err, p.x.Release())
	}
	r := rand.New(rand.NewPCG(seed, 2))
	in := make([]byte, 4*n)
	for i := range n {
		v := r.Float32()*2 - 1
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(v))
		p.want[i] = 3 * v
	}
	binary.LittleEndian.PutUint32(p.push, uint32(n))
	binary.LittleEndian.PutUint32(p.push[4:], math.Float32bits(3))
	if err := p.x.Write(ctx, 0, in); err != nil {
		return nil, status.Join(err, p.Release())
	}
	return p, nil
}

func (p *scaleProblem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	p.op.records.Add(1)
	wg := p.op.cands[cand].WorkgroupSize[0]
	return cb.Dispatch(hal.Dispatch{
		Executable:    exe,
		Bindings:      []hal.Binding{{Buffer: p.x}, {Buffer: p.y}},
		PushConstants: p.push,
		Groups:        [3]uint32{(uint32(p.n) + wg - 1) / wg, 1, 1},
	})
}

func (p *scaleProblem) Verify(ctx context.Context, cand int) error {
	out := make([]byte, 4*p.n)
	if err := p.y.Read(ctx, 0, out); err != nil {
		return err
	}
	for i, w := range p.want {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != w {
			return status.Wrapf(kernels.ErrWrongResult, status.OK, "y[%d] = %v, want %v", i, got, w)
		}
	}
	return nil
}

func (p *scaleProblem) Size() kernels.Size { return kernels.SizeOf(p.n) }
func (p *scaleProblem) Buffers() []kernels.Operand {
	return []kernels.Operand{
		{Buffer: p.x, Name: "x", Role: kernels.Input, DType: kernels.F32, Len: int64(p.n)},
		{Buffer: p.y, Name: "y", Role: kernels.Output, DType: kernels.F32, Len: int64(p.n)},
	}
}
func (p *scaleProblem) Bytes() float64 { return float64(8 * p.n) }
func (p *scaleProblem) Flops() float64 { return float64(p.n) }

func (p *scaleProblem) Release() error {
	return status.Join(p.x.Release(), p.y.Release())
}
