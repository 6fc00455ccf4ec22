// Command tunesaxpy is a complete program that brings its own kernels to
// vkbench: three GLSL kernels that compute z = a·x + y (saxpy) in
// different ways, embedded as SPIR-V. It asks vkbench which of them is
// fastest on the device it runs on, then runs the winner on data of its
// own, checks every element against the CPU, and exits with status 1 if
// one differs.
//
// Usage:
//
//	go run ./examples/tunesaxpy [-n elements] [-a factor] [-cache file] [-budget duration]
//
// The kernels are saxpy_*.comp; go generate rebuilds the .spv files with
// glslc.
package main

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/vkbench/vkbench"
)

//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute saxpy_scalar.comp -o saxpy_scalar.spv
//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute saxpy_vec4.comp -o saxpy_vec4.spv
//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute saxpy_gridstride.comp -o saxpy_gridstride.spv

var (
	//go:embed saxpy_scalar.spv
	scalarSPIRV []byte
	//go:embed saxpy_vec4.spv
	vec4SPIRV []byte
	//go:embed saxpy_gridstride.spv
	gridStrideSPIRV []byte
)

// candidate describes one kernel: every module takes {uint n; float a;}
// as push constants and x, y, z at bindings 0, 1, 2, and has its
// workgroup size in specialization constant 0.
func candidate(name string, spirv []byte, wg uint32, params map[string]int) vkbench.Kernel {
	return vkbench.Kernel{
		Name:             name,
		SPIRV:            spirv,
		WorkgroupSize:    [3]uint32{wg, 1, 1},
		Constants:        map[uint32]uint32{0: wg},
		PushConstantSize: 8,
		Params:           params,
	}
}

// saxpy is the operation and its candidates. perItem is how many elements
// one invocation handles; groups, when set, fixes the number of
// workgroups (the grid-stride kernel loops over the rest).
var saxpy = &vkbench.Op{
	Name: "saxpy",
	Dims: []string{"N"},
	Candidates: []vkbench.Kernel{
		candidate("scalar-wg64", scalarSPIRV, 64, map[string]int{"perItem": 1}),
		candidate("scalar-wg256", scalarSPIRV, 256, map[string]int{"perItem": 1}),
		candidate("vec4-wg64", vec4SPIRV, 64, map[string]int{"perItem": 4}),
		candidate("gridstride-wg256", gridStrideSPIRV, 256, map[string]int{"perItem": 1, "groups": 64}),
	},
	Prepare: prepare,
}

// groups is how many workgroups kernel k needs for n elements.
func groups(k vkbench.Kernel, n int) [3]uint32 {
	g := vkbench.Groups(n, int(k.WorkgroupSize[0])*k.Params["perItem"])
	if limit := k.Params["groups"]; limit > 0 && g[0] > uint32(limit) {
		g[0] = uint32(limit)
	}
	return g
}

// prepare makes a problem of size[0] elements for the tuner: random x and
// y drawn from seed, z to be written, and the check against the CPU.
func prepare(ctx context.Context, dev *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
	n := size[0]
	const a = 1.5
	x, y := random(n, seed), random(n, seed+1)
	xb, err := vkbench.Upload(ctx, dev, x)
	if err != nil {
		return nil, err
	}
	yb, err := vkbench.Upload(ctx, dev, y)
	if err != nil {
		return nil, errors.Join(err, xb.Release())
	}
	zb, err := vkbench.NewBuffer[float32](ctx, dev, n)
	if err != nil {
		return nil, errors.Join(err, xb.Release(), yb.Release())
	}
	return &vkbench.Problem{
		Buffers: []vkbench.Binding{xb, yb, zb},
		Outputs: []vkbench.Binding{zb},
		Push:    vkbench.Push(uint32(n), float32(a)),
		Groups:  func(k vkbench.Kernel) [3]uint32 { return groups(k, n) },
		Check: func(ctx context.Context) error {
			z := make([]float32, n)
			if err := zb.Read(ctx, z); err != nil {
				return err
			}
			return check(z, a, x, y)
		},
		Bytes: 12 * float64(n),
		Flops: 2 * float64(n),
	}, nil
}

// random returns n floats in [-1, 1) drawn from seed.
func random(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 0x5a))
	v := make([]float32, n)
	for i := range v {
		v[i] = 2*r.Float32() - 1
	}
	return v
}

// check compares z with a·x + y computed on the CPU, within two roundings
// of |a·x| + |y|: the GPU may fuse the multiply and the add, or not, and
// so may Go.
func check(z []float32, a float32, x, y []float32) error {
	for i := range z {
		want := a*x[i] + y[i]
		tol := 2 * 0x1p-24 * (math.Abs(float64(a*x[i])) + math.Abs(float64(y[i])))
		if d := math.Abs(float64(z[i]) - float64(want)); !(d <= tol) { // NaN fails too
			return fmt.Errorf("z[%d] = %v, want %v (±%.3g)", i, z[i], want, tol)
		}
	}
	return nil
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tunesaxpy:", err)
		os.Exit(1)
	}
}

// run is the program: main with its arguments and output.
func run(ctx context.Context, args []string, w io.Writer) (err error) {
	out := bufio.NewWriter(w)
	defer func() { err = errors.Join(err, out.Flush()) }()
	fs := flag.NewFlagSet("tunesaxpy", flag.ContinueOnError)
	n := fs.Int("n", 1<<20+3, "number of elements")
	a := fs.Float64("a", 2, "the factor a")
	cache := fs.String("cache", "", "tuning cache file (default: $VKBENCH_CACHE, else the user's cache directory)")
	budget := fs.Duration("budget", 2*time.Second, "longest time spent measuring, on the first run on a machine")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}

	dev, err := vkbench.Open(ctx, vkbench.Options{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, dev.Close()) }()
	fmt.Fprintf(out, "device: %s (%s)\n", dev.Info().Name, dev.Info().Type)

	tuner, err := dev.NewTuner(ctx, vkbench.TunerOptions{CachePath: *cache, Table: "tunesaxpy", Budget: *budget})
	if err != nil {
		return err
	}

	// The first question on this machine tunes; a later run reads the
	// answer from the cache file, and a later question from memory.
	start := time.Now()
	p, err := tuner.Fastest(ctx, saxpy, *n)
	if err != nil {
		return err
	}
	first := time.Since(start)
	start = time.Now()
	if _, err := tuner.Fastest(ctx, saxpy, *n); err != nil {
		return err
	}
	fmt.Fprintf(out, "fastest for N=%d: %s (first answer in %v, the next in %v)\n", *n, p.Kernel().Name, first.Round(time.Millisecond), time.Since(start))
	if e, err := tuner.Result(ctx, saxpy, *n); err == nil && e != nil {
		for _, r := range e.Candidates {
			if r.Median > 0 {
				// One run moves x, y and z: 12 bytes an element of the
				// size measured (the key's, *n rounded up).
				gbps := 12 * float64(e.Size[0]) / r.Median.Seconds() / 1e9
				fmt.Fprintf(out, "  %-17s %-8s %8.1f µs  %6.1f GB/s\n", r.Name, r.Outcome, float64(r.Median.Nanoseconds())/1e3, gbps)
			} else {
				fmt.Fprintf(out, "  %-17s %-8s %s\n", r.Name, r.Outcome, r.Error)
			}
		}
	}

	// Use the winner.
	x, y := random(*n, 1), random(*n, 2)
	xb, err := vkbench.Upload(ctx, dev, x)
	if err != nil {
		return err
	}
	yb, err := vkbench.Upload(ctx, dev, y)
	if err != nil {
		return err
	}
	zb, err := vkbench.NewBuffer[float32](ctx, dev, *n)
	if err != nil {
		return err
	}
	push := vkbench.Push(uint32(*n), float32(*a))
	if err := dev.Run(ctx, p, groups(p.Kernel(), *n), push, xb, yb, zb); err != nil {
		return err
	}
	z := make([]float32, *n)
	if err := zb.Read(ctx, z); err != nil {
		return err
	}
	if err := check(z, float32(*a), x, y); err != nil {
		return fmt.Errorf("%s computed a wrong result: %w", p.Kernel().Name, err)
	}
	fmt.Fprintf(out, "ok: %d elements of z = %g·x + y match the CPU\n", *n, *a)
	return nil
}
