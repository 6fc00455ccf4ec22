// Command quickstart is the program docs/library-quickstart.md builds
// from an empty folder: a kernel of its own in two candidates, an Op
// that says how to run and check them, and a Tuner that picks the
// faster, then runs it.
package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log"
	"math"

	"github.com/vkbench/vkbench"
)

//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute scale.comp -o scale.spv

//go:embed scale.spv
var scaleSPIRV []byte

// scale is y = 2.5·x over N floats, by two candidates that differ only in
// their workgroup size (local_size_x_id = 0 in scale.comp).
var scale = &vkbench.Op{
	Name: "scale",
	Dims: []string{"N"},
	Candidates: []vkbench.Kernel{
		{Name: "wg64", SPIRV: scaleSPIRV, WorkgroupSize: [3]uint32{64, 1, 1}, PushConstantSize: 8},
		{Name: "wg256", SPIRV: scaleSPIRV, WorkgroupSize: [3]uint32{256, 1, 1}, PushConstantSize: 8},
	},
	Prepare: prepare,
}

const factor = 2.5

// prepare makes the problem the tuner measures the candidates on. Its
// size is the cache key's bucket's (a power of two at or above the size
// asked), so it sizes everything from size[0], never from the caller's n.
func prepare(ctx context.Context, dev *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
	n := size[0]
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i%1000) / 1000 // any data; seed could vary it
	}
	x, err := vkbench.Upload(ctx, dev, in)
	if err != nil {
		return nil, err
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, n)
	if err != nil {
		return nil, errors.Join(err, x.Release())
	}
	return &vkbench.Problem{
		Buffers: []vkbench.Binding{x, y}, // bindings 0 and 1
		Outputs: []vkbench.Binding{y},    // poisoned before each checked run
		Push:    vkbench.Push(uint32(n), float32(factor)),
		Groups: func(k vkbench.Kernel) [3]uint32 {
			return vkbench.Groups(n, int(k.WorkgroupSize[0]))
		},
		Check: func(ctx context.Context) error {
			out := make([]float32, n)
			if err := y.Read(ctx, out); err != nil {
				return err
			}
			return check(out, in)
		},
		Bytes: 8 * float64(n), // read x, write y
		Flops: float64(n),
	}, nil
}

// check returns an error naming the first element of out that is not
// factor times in's.
func check(out, in []float32) error {
	for i := range out {
		if want := factor * in[i]; math.Abs(float64(out[i]-want)) > 1e-6*math.Abs(float64(want)) {
			return fmt.Errorf("y[%d] = %g, want %g", i, out[i], want)
		}
	}
	return nil
}

func main() {
	if err := run(context.Background(), 1000000); err != nil {
		log.Fatal(err)
	}
}

// run tunes scale at n elements and runs the winner on data of its own.
func run(ctx context.Context, n int) (err error) {
	dev, err := vkbench.Open(ctx, vkbench.Options{}) // the first GPU, else lavapipe
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, dev.Close()) }() // releases all made from it
	tuner, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "quickstart"})
	if err != nil {
		return err
	}
	p, err := tuner.Fastest(ctx, scale, n) // tunes once, then remembers
	if err != nil {
		return err
	}
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	x, err := vkbench.Upload(ctx, dev, in)
	if err != nil {
		return err
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, n)
	if err != nil {
		return err
	}
	k := p.Kernel() // the winner, its workgroup size filled in
	push := vkbench.Push(uint32(n), float32(factor))
	if err := dev.Run(ctx, p, vkbench.Groups(n, int(k.WorkgroupSize[0])), push, x, y); err != nil {
		return err
	}
	out := make([]float32, n)
	if err := y.Read(ctx, out); err != nil {
		return err
	}
	if err := check(out, in); err != nil {
		return err
	}
	fmt.Printf("%s: %s is the fastest; y[%d] = %g\n", dev.Info().Name, k.Name, n-1, out[n-1])
	return nil
}
