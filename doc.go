// Package vkbench runs your own SPIR-V compute kernels on a Vulkan device
// and tells your program, at run time, which of several candidate kernels
// is fastest for a problem on the GPU it is running on — measuring once,
// then remembering the answer per hardware in a cache file.
//
// It is the library face of vkbench, and the only package a program needs
// for everyday work. The floors below it remain for what it does not do:
// package hal for several dispatches in one submission, timestamps and
// host-visible memory, kernels and the built-in catalogue for vkbench's
// own operations, autotune for forced re-tunes and the tuner's cache.
// Importing vkbench registers the Vulkan backend.
//
// # Running a kernel
//
// Open the default device, build a pipeline from SPIR-V bytes (usually
// embedded with go:embed), put data in buffers, run, read back:
//
//	dev, err := vkbench.Open(ctx, vkbench.Options{})
//	if err != nil {
//		return err
//	}
//	defer dev.Close()
//
//	scale, err := dev.Build(ctx, vkbench.Kernel{
//		Name:             "scale",
//		SPIRV:            scaleSPIRV, // y[i] = a * x[i]
//		WorkgroupSize:    [3]uint32{64, 1, 1},
//		Constants:        map[uint32]uint32{0: 64}, // local_size_x_id = 0
//		PushConstantSize: 8,                        // uint n; float a;
//	})
//	x, err := vkbench.Upload(ctx, dev, []float32{1, 2, 3})
//	y, err := vkbench.NewBuffer[float32](ctx, dev, 3)
//	err = dev.Run(ctx, scale, vkbench.Groups(3, 64), vkbench.Push(uint32(3), float32(10)), x, y)
//	out := make([]float32, 3)
//	err = y.Read(ctx, out) // [10 20 30]
//
// # Tuning among candidates
//
// An Op gathers the candidates of one computation — other workgroup sizes,
// vector widths, tilings — with a Prepare function that makes a problem of
// a given size to measure them on and checks what each one computed. A
// Tuner answers which candidate is fastest for a size:
//
//	tuner, err := dev.NewTuner(ctx, vkbench.TunerOptions{Table: "myprogram"})
//	p, err := tuner.Fastest(ctx, scaleOp, n) // first call: cache file, or tune
//	err = dev.Run(ctx, p, groups(p.Kernel(), n), push, x, y)
//
// The first question about a key (the Op, its element type, and the size
// rounded up to a power of two) reads the answer from the cache file, or
// tunes: every candidate runs once on the prepared problem and its result
// is checked, so that a wrong kernel can never win; the correct ones are
// timed with GPU timestamps, interleaved, until their medians are known to
// ±1% or the time budget is spent; the answer is stored. Later questions
// are answered from memory without allocating (BenchmarkFastestHit).
// The cache file is shared by processes and keyed by the hardware and
// driver, so a program tunes once per machine; vkbench cache lists, shows,
// exports and clears it, and Tuner.Result reads why a candidate won.
//
// # Searching a space of kernels
//
// When the candidates are too many to list (every tile and workgroup size
// a kernel takes as specialization constants), give the Op a Space before
// its first use: its Params, which configurations are Valid at a size, and
// the Kernel of each. Tuner.Search explores it with a strategy
// (exhaustive, random, simulated annealing, or a Gaussian process) within
// a budget, checks and times each configuration like a candidate, records
// it in the cache's tuning log, and returns the fastest one's pipeline
// (the one the search measured, not built again) and configuration:
//
//	op.Space = &vkbench.Space{Params: []vkbench.Param{{Name: "WG", Values: vkbench.Pow2(32, 1024)}}, Kernel: kernelOf}
//	p, cfg, err := tuner.Search(ctx, op, vkbench.SearchOptions{Strategy: "bayes", MaxEvals: 20}, n)
//
// # Errors
//
// Errors match this package's Err variables with errors.Is, and read as
// Go's wrapped errors do, outermost first ("INVALID_ARGUMENT: vkbench: Run
// "wg64": vk: Dispatch: ..."). A context that ends matches
// context.Canceled or DeadlineExceeded; an error that an Op's Prepare
// returned passes through, matching what it matched. Package status reads
// every code (status.CodeOf), such as Unavailable where there is no Vulkan
// loader.
//
// A lost device — a driver reset, a GPU that fell off the bus, a kernel
// that ran for too long — matches ErrDeviceLost. Loss is final: every
// later call on the device fails the same way at once, and nothing hangs.
// Close it and Open another to go on:
//
//	if errors.Is(err, vkbench.ErrDeviceLost) {
//		dev.Close()
//		dev, err = vkbench.Open(ctx, vkbench.Options{})
//	}
//
// # Testing
//
// Options.Validation turns on the Khronos validation layer;
// Options.Driver can put a fault injector (package hal/faulty) between the
// program and the device, to make calls fail and the device lost on
// purpose (Example_deviceLoss). On a machine without a GPU, lavapipe
// (Mesa's Vulkan on the CPU) is the default device.
package vkbench
