package vkbench_test

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"github.com/vkbench/vkbench/internal/devtest"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/status"
)

// TestMain leaves the examples out where tests may skip and there is no
// Vulkan device: an example cannot skip (see testenv).
func TestMain(m *testing.M) {
	devtest.SkipExamplesWithoutVulkan()
	os.Exit(m.Run())
}

//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute testdata/library/scale.comp -o testdata/library/scale.spv
//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute testdata/library/scale_offbyone.comp -o testdata/library/scale_offbyone.spv
//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute testdata/library/histogram.comp -o testdata/library/histogram.spv
//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute testdata/library/scale_pastend.comp -o testdata/library/scale_pastend.spv
//go:generate glslc -O --target-env=vulkan1.2 -fshader-stage=compute testdata/library/fixed.comp -o testdata/library/fixed.spv

// scaleSPIRV computes y[i] = a * x[i] for i < n, with push constants
// {uint n; float a;}, x at binding 0, y at binding 1, and the workgroup
// size in specialization constant 0.
//
//go:embed testdata/library/scale.spv
var scaleSPIRV []byte

// offByOneSPIRV is scaleSPIRV with a bug: it leaves the last element alone.
//
//go:embed testdata/library/scale_offbyone.spv
var offByOneSPIRV []byte

// Open opens the default device: the first discrete GPU, else an
// integrated one, else lavapipe, Mesa's Vulkan on the CPU.
func ExampleOpen() {
	dev, err := vkbench.Open(context.Background(), vkbench.Options{})
	if err != nil {
		log.Fatal(err) // NotFound: no Vulkan device; Unimplemented: no Vulkan
	}
	defer func() {
		if err := dev.Close(); err != nil {
			log.Print(err)
		}
	}()

	info := dev.Info()
	// info.Name, info.Type, info.Driver, its limits and Memory describe
	// the device; info.Hardware names its tables in the tuning cache.
	fmt.Println(info.Backend, info.Hardware != "")
	// Output: vulkan true
}

// Run dispatches a kernel once and waits for it.
func ExampleDevice_Run() {
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// Closing the device releases the pipeline and buffers too.
	defer func() {
		if err := dev.Close(); err != nil {
			log.Print(err)
		}
	}()

	scale, err := dev.Build(ctx, vkbench.Kernel{
		Name:             "scale",
		SPIRV:            scaleSPIRV,
		WorkgroupSize:    [3]uint32{64, 1, 1},
		Constants:        map[uint32]uint32{0: 64}, // local_size_x_id = 0
		PushConstantSize: 8,                        // uint n; float a;
	})
	if err != nil {
		log.Fatal(err)
	}
	x, err := vkbench.Upload(ctx, dev, []float32{1, 2, 3, 4})
	if err != nil {
		log.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, x.Len())
	if err != nil {
		log.Fatal(err)
	}
	n := x.Len()
	if err := dev.Run(ctx, scale, vkbench.Groups(n, 64), vkbench.Push(uint32(n), float32(10)), x, y); err != nil {
		log.Fatal(err)
	}
	out := make([]float32, n)
	if err := y.Read(ctx, out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out)
	// Output: [10 20 30 40]
}

// A Tuner chooses among candidate kernels: here the same kernel at two
// workgroup sizes, and a third that is faster only because it is wrong.
// Every candidate's result is checked before it is timed, so the wrong one
// can never win.
func ExampleTuner_Fastest() {
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := dev.Close(); err != nil {
			log.Print(err)
		}
	}()

	kernel := func(name string, spirv []byte, wg uint32) vkbench.Kernel {
		return vkbench.Kernel{
			Name: name, SPIRV: spirv, PushConstantSize: 8,
			WorkgroupSize: [3]uint32{wg, 1, 1}, Constants: map[uint32]uint32{0: wg},
		}
	}
	const a = 2.5
	scale := &vkbench.Op{
		Name: "scale",
		Dims: []string{"N"},
		Candidates: []vkbench.Kernel{
			kernel("wg32", scaleSPIRV, 32),
			kernel("wg256", scaleSPIRV, 256),
			kernel("off-by-one", offByOneSPIRV, 64),
		},
		// Prepare makes a problem of size N for the tuner to time the
		// candidates on, and says how to check their results.
		Prepare: func(ctx context.Context, dev *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
			n := size[0]
			r := rand.New(rand.NewPCG(seed, 0))
			in := make([]float32, n)
			for i := range in {
				in[i] = r.Float32()*2 - 1
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
				Buffers: []vkbench.Binding{x, y},
				Outputs: []vkbench.Binding{y},
				Push:    vkbench.Push(uint32(n), float32(a)),
				Groups: func(k vkbench.Kernel) [3]uint32 {
					return vkbench.Groups(n, int(k.WorkgroupSize[0]))
				},
				Check: func(ctx context.Context) error {
					out := make([]float32, n)
					if err := y.Read(ctx, out); err != nil {
						return err
					}
					for i, v := range out {
						if want := a * in[i]; v != want {
							return fmt.Errorf("y[%d] = %v, want %v", i, v, want)
						}
					}
					return nil
				},
				Bytes: float64(8 * n),
				Flops: float64(n),
			}, nil
		},
	}

	dir, err := os.MkdirTemp("", "vkbench-example")
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			log.Print(err)
		}
	}()
	tuner, err := dev.NewTuner(ctx, vkbench.TunerOptions{
		Table:     "example", // the cache table: best, the program's name
		CachePath: filepath.Join(dir, "autotune.db"),
		Budget:    100 * time.Millisecond, // per key; the default, 10 s, measures to ±1%
	})
	if err != nil {
		log.Fatal(err)
	}

	// The first question about N = 1000 tunes (at N = 1024, the power
	// of two above: one tune serves the sizes of its bucket) and stores
	// the answer in the cache file.
	const n = 1000
	p, err := tuner.Fastest(ctx, scale, n)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the fastest is not off-by-one:", p.Kernel().Name != "off-by-one")

	// Run the winner on data of our own.
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	x, err := vkbench.Upload(ctx, dev, in)
	if err != nil {
		log.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, n)
	if err != nil {
		log.Fatal(err)
	}
	groups := vkbench.Groups(n, int(p.Kernel().WorkgroupSize[0]))
	if err := dev.Run(ctx, p, groups, vkbench.Push(uint32(n), float32(a)), x, y); err != nil {
		log.Fatal(err)
	}
	out := make([]float32, n)
	if err := y.Read(ctx, out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out[:3], out[n-1])

	// Later questions are answered from memory: no allocation, the same
	// pipeline.
	again, err := tuner.Fastest(ctx, scale, n)
	fmt.Println(again == p, err)
	// Output:
	// the fastest is not off-by-one: true
	// [0 2.5 5] 2497.5
	// true <nil>
}

// Result reads from the cache file what a tune found: the winner, and why —
// each candidate's outcome, timing and error. The vkbench command shows
// the same with `vkbench cache show`.
func ExampleTuner_Result() {
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := dev.Close(); err != nil {
			log.Print(err)
		}
	}()
	dir, err := os.MkdirTemp("", "vkbench-example")
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			log.Print(err)
		}
	}()
	opts := vkbench.TunerOptions{
		Table:     "example",
		CachePath: filepath.Join(dir, "autotune.db"),
		Budget:    100 * time.Millisecond,
	}
	tuner, err := dev.NewTuner(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	op := scaleOp() // the Op of the Fastest example
	if _, err := tuner.Fastest(ctx, op, 1000); err != nil {
		log.Fatal(err)
	}

	// Another tuner on the same file — another process, a later run —
	// finds the answer there and measures nothing.
	later, err := dev.NewTuner(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	e, err := later.Result(ctx, op, 1000)
	if err != nil || e == nil {
		log.Fatal(e, err)
	}
	fmt.Println(e.Key)
	for _, r := range e.Candidates {
		if r.Outcome == vkbench.Wrong || r.Outcome == vkbench.Failed {
			fmt.Println(r.Name, "failed")
		} else {
			// Measured, or Dropped early when clearly slower than the
			// leader; r.Median, r.Low and r.High are its timings.
			fmt.Println(r.Name, "verified")
		}
	}
	fmt.Println(slices.ContainsFunc(e.Candidates, func(r vkbench.CandidateResult) bool {
		return r.Name == e.Winner && r.Outcome == vkbench.Measured
	}))
	// Output:
	// scale/f32/1024
	// wg32 verified
	// wg256 verified
	// off-by-one failed
	// true
}

// faultPlan is the plan of the fault injector that Example_deviceLoss
// opens its device through: package hal/faulty's wrapper of the Vulkan
// backend, registered with package hal as "vulkan-faulty".
var faultPlan = faulty.NewPlan()

func init() {
	hal.Register("vulkan-faulty", func(opts hal.DriverOptions) (hal.Driver, error) {
		drv, err := hal.OpenDriver("vulkan", opts)
		if err != nil {
			return nil, err
		}
		return faulty.WrapDriver(drv, func(int) *faulty.Plan { return faultPlan }), nil
	})
}

// A lost device — a driver reset, a hung kernel — fails the call that finds
// it with an error matching ErrDeviceLost, and every later call on the
// device at once. The only way on is a device opened again. Here the
// device is lost on purpose, by a fault injector put between the program
// and the device: a backend registered with package hal that wraps
// Vulkan's (faultPlan).
func Example_deviceLoss() {
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{Driver: "vulkan-faulty"})
	if err != nil {
		log.Fatal(err)
	}
	scale := func(dev *vkbench.Device) ([]float32, error) {
		p, err := dev.Build(ctx, scaleKernel)
		if err != nil {
			return nil, err
		}
		x, err := vkbench.Upload(ctx, dev, []float32{1, 2, 3, 4})
		if err != nil {
			return nil, err
		}
		y, err := vkbench.NewBuffer[float32](ctx, dev, 4)
		if err != nil {
			return nil, err
		}
		if err := dev.Run(ctx, p, vkbench.Groups(4, 64), vkbench.Push(uint32(4), float32(10)), x, y); err != nil {
			return nil, err
		}
		out := make([]float32, 4)
		return out, y.Read(ctx, out)
	}

	faultPlan.LoseAt(faulty.Wait, 1) // as a driver reports VK_ERROR_DEVICE_LOST
	_, err = scale(dev)
	fmt.Println(errors.Is(err, vkbench.ErrDeviceLost), status.CodeOf(err))
	_, err = scale(dev) // fails at once
	fmt.Println(errors.Is(err, vkbench.ErrDeviceLost), errors.Is(dev.Err(), vkbench.ErrDeviceLost))

	// Closing a lost device works; then open it again.
	if err := dev.Close(); err != nil {
		log.Print(err)
	}
	if dev, err = vkbench.Open(ctx, vkbench.Options{}); err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := dev.Close(); err != nil {
			log.Print(err)
		}
	}()
	fmt.Println(scale(dev))
	// Output:
	// true DATA_LOSS
	// true true
	// [10 20 30 40] <nil>
}

// scaleKernel is scale.comp at a workgroup size of 64.
var scaleKernel = vkbench.Kernel{
	Name:             "scale",
	SPIRV:            scaleSPIRV,
	WorkgroupSize:    [3]uint32{64, 1, 1},
	Constants:        map[uint32]uint32{0: 64},
	PushConstantSize: 8,
}

// scaleOp returns the Op of ExampleTuner_Fastest, y = 2.5x: scale.comp at
// workgroup sizes 32 and 256, and the wrong off-by-one at 64.
func scaleOp() *vkbench.Op {
	kernel := func(name string, spirv []byte, wg uint32) vkbench.Kernel {
		return vkbench.Kernel{
			Name: name, SPIRV: spirv, PushConstantSize: 8,
			WorkgroupSize: [3]uint32{wg, 1, 1}, Constants: map[uint32]uint32{0: wg},
		}
	}
	return scaleOpOf(kernel("wg32", scaleSPIRV, 32), kernel("wg256", scaleSPIRV, 256), kernel("off-by-one", offByOneSPIRV, 64))
}

// scaleOpOf is the Op y = 2.5x of the given scale kernels.
func scaleOpOf(kernels ...vkbench.Kernel) *vkbench.Op {
	const a = 2.5
	return &vkbench.Op{
		Name:       "scale",
		Dims:       []string{"N"},
		Candidates: kernels,
		Prepare: func(ctx context.Context, dev *vkbench.Device, size []int, seed uint64) (*vkbench.Problem, error) {
			n := size[0]
			r := rand.New(rand.NewPCG(seed, 0))
			in := make([]float32, n)
			for i := range in {
				in[i] = r.Float32()*2 - 1
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
				Buffers: []vkbench.Binding{x, y},
				Outputs: []vkbench.Binding{y},
				Push:    vkbench.Push(uint32(n), float32(a)),
				Groups:  func(k vkbench.Kernel) [3]uint32 { return vkbench.Groups(n, int(k.WorkgroupSize[0])) },
				Check: func(ctx context.Context) error {
					out := make([]float32, n)
					if err := y.Read(ctx, out); err != nil {
						return err
					}
					for i, v := range out {
						if want := a * in[i]; v != want {
							return fmt.Errorf("y[%d] = %v, want %v", i, v, want)
						}
					}
					return nil
				},
				Bytes: float64(8 * n),
				Flops: float64(n),
			}, nil
		},
	}
}
