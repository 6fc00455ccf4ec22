// Command fidelity checks what vkbench's numbers mean: for each operation,
// the GPU-timestamp median of its fastest candidate (as a tune measures
// it) against the host's wall time of n back-to-back runs of that
// candidate in one submission, divided by n. The two agree when the
// timestamps measure the work and nothing else.
//
//	go run ./bench/fidelity -ops copy,gemm -n 200
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/vk"
)

func main() {
	ops := flag.String("ops", "copy,gemm", "operations, comma-separated")
	n := flag.Int("n", 200, "back-to-back runs in the host-timed submission")
	reps := flag.Int("reps", 5, "host-timed submissions; the median is kept")
	budget := flag.Duration("budget", 5*time.Second, "sampling budget of the timestamp measurement")
	flag.Parse()
	if err := run(context.Background(), strings.Split(*ops, ","), *n, *reps, *budget); err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, names []string, n, reps int, budget time.Duration) error {
	dev, release, err := hal.Open(ctx, vk.DriverName, hal.OpenOptions{})
	if err != nil {
		return err
	}
	defer func() {
		if err := release(); err != nil {
			fmt.Fprintln(os.Stderr, "fidelity: release:", err)
		}
	}()
	fmt.Printf("device: %s\n", dev.Info().Name)
	fmt.Println("| operation | size | candidate | timestamp median | ±95% CI | host wall / run | ratio |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range names {
		op, err := catalogue.Lookup(name)
		if err != nil {
			return err
		}
		size := op.DefaultSize(dev.Info())
		opts := autotune.DefaultOptions
		opts.Budget = budget
		e, err := autotune.Measure(ctx, dev, op, size, opts)
		if err != nil {
			return err
		}
		if e.Fastest < 0 {
			return status.Newf(status.FailedPrecondition, "no candidate of %s measured", name)
		}
		w := e.Results[e.Fastest]
		host, err := hostTime(ctx, dev, op, size, e.Fastest, n, reps)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %s | %s | %.2f µs | ±%.2f%% | %.2f µs | %.4f |\n", name, size, w.Name,
			w.Stats.Median*1e6, w.Stats.HalfWidth()*100, host*1e6, w.Stats.Median/host)
	}
	return nil
}

// hostTime is the median, over reps submissions, of the host's wall time
// of one submission of n runs (barriers between, as a tune records them),
// divided by n.
func hostTime(ctx context.Context, dev hal.Device, op kernels.Operation, size kernels.Size, cand, n, reps int) (sec float64, err error) {
	p, err := op.Prepare(ctx, dev, size, 1)
	if err != nil {
		return 0, err
	}
	defer func() { err = status.Join(err, p.Release()) }()
	exe, err := dev.CreateExecutable(op.Candidates()[cand].Executable())
	if err != nil {
		return 0, err
	}
	defer func() { err = status.Join(err, exe.Release()) }()
	cb, err := dev.CreateCommandBuffer()
	if err != nil {
		return 0, err
	}
	defer func() { err = status.Join(err, cb.Release()) }()
	if err := cb.Begin(); err != nil {
		return 0, err
	}
	for r := range n {
		if r > 0 {
			if err := cb.Barrier(); err != nil {
				return 0, err
			}
		}
		if err := p.Record(cb, exe, cand); err != nil {
			return 0, err
		}
	}
	if err := cb.End(); err != nil {
		return 0, err
	}
	var times []float64
	for i := range reps + 1 {
		start := time.Now()
		f, err := dev.Submit(cb)
		if err != nil {
			return 0, err
		}
		if err := status.Join(f.Wait(ctx), f.Release()); err != nil {
			return 0, err
		}
		if i > 0 { // the first one warms up
			times = append(times, time.Since(start).Seconds()/float64(n))
		}
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}
