package catalogue_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/vk"
)

// BenchmarkCandidates measures every built-in candidate at its operation's
// default size on the default Vulkan device (a 1 GiB copy and a 4096³
// product on a discrete GPU), without validation. Each candidate is
// verified once before it is timed, and warmed up for a quarter of a
// second. ns/op is GPU time per run, between timestamps around batches of
// runs separated by barriers; GB/s and
// TFLOP/s follow from the problem's Bytes and Flops. Run with a fixed
// count, since a run can take milliseconds:
//
//	go test -run '^$' -bench Candidates -benchtime 50x ./kernels
//
// VKBENCH_VALIDATION=1 turns the validation layer on, and
// VKBENCH_SIZE_<OP>=<size> (such as VKBENCH_SIZE_PEAK_FMA_F32=N=4Mi,ITERS=16Ki)
// replaces an operation's default size.
func BenchmarkCandidates(b *testing.B) {
	ctx := context.Background()
	dev, release, err := hal.Open(ctx, vk.DriverName, hal.OpenOptions{Driver: hal.DriverOptions{Validation: os.Getenv("VKBENCH_VALIDATION") != ""}})
	if err != nil {
		testenv.Unavailable(b, "no Vulkan device: %v", err)
	}
	b.Cleanup(func() {
		if err := release(); err != nil {
			b.Error(err)
		}
	})
	info := dev.Info()
	if info.Limits.TimestampValidBits == 0 {
		b.Skip("the device's compute queue has no timestamps")
	}
	b.Logf("device: %s (%s %s)", info.Name, info.DriverName, info.DriverVersionString())
	for _, op := range catalogue.Builtin() {
		b.Run(op.Name(), func(b *testing.B) {
			size := op.DefaultSize(info)
			if text := os.Getenv("VKBENCH_SIZE_" + strings.ToUpper(strings.ReplaceAll(op.Name(), "-", "_"))); text != "" {
				var err error
				if size, err = kernels.ParseSize(op.Dims(), text); err != nil {
					b.Fatal(err)
				}
			}
			p, err := op.Prepare(ctx, dev, size, seed)
			if err != nil {
				b.Fatal(err)
			}
			releaseAtCleanup(b, p)
			b.Logf("%s at %v", op.Name(), size)
			for i, c := range op.Candidates() {
				verified := false
				b.Run(c.Name, func(b *testing.B) {
					if err := c.Supported(info); err != nil {
						b.Skip(err)
					}
					exe, err := dev.CreateExecutable(c.Executable())
					if err != nil {
						b.Fatal(err)
					}
					releaseAtCleanup(b, exe)
					if !verified {
						if err := kernels.Run(ctx, dev, p, exe, i); err != nil {
							b.Fatal(err)
						}
						if err := p.Verify(ctx, i); err != nil {
							b.Fatal(err)
						}
						verified = true
					}
					gpu, err := timeRuns(ctx, dev, p, exe, i, b.N)
					if err != nil {
						b.Fatal(err)
					}
					per := gpu.Seconds() / float64(b.N)
					b.ReportMetric(per*1e9, "ns/op")
					if p.Bytes() > 0 {
						b.ReportMetric(p.Bytes()/per/1e9, "GB/s")
					}
					if p.Flops() > 0 {
						b.ReportMetric(p.Flops()/per/1e12, "TFLOP/s")
					}
				})
			}
		})
	}
}

// timeRuns records n runs of candidate cand, in submissions of at most 64
// runs with a barrier between runs and a timestamp at each end, and
// returns their total GPU time. Before that it runs the candidate for at
// least warmUp of GPU time, untimed, so that the clocks have left their
// idle state (an idle H200's SM clock is 405 MHz) and the caches hold what
// they will hold.
func timeRuns(ctx context.Context, dev hal.Device, p kernels.Problem, exe hal.Executable, cand, n int) (_ time.Duration, err error) {
	const warmUp = 250 * time.Millisecond
	cb, err := dev.CreateCommandBuffer()
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, cb.Release()) }()
	pool, err := dev.CreateTimestampPool(2)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, pool.Release()) }()
	submit := func(k int) (time.Duration, error) {
		if err := cb.Begin(); err != nil {
			return 0, err
		}
		if err := cb.Timestamp(pool, 0); err != nil {
			return 0, err
		}
		for r := range k {
			if r > 0 {
				if err := cb.Barrier(); err != nil {
					return 0, err
				}
			}
			if err := p.Record(cb, exe, cand); err != nil {
				return 0, err
			}
		}
		if err := cb.Timestamp(pool, 1); err != nil {
			return 0, err
		}
		if err := cb.End(); err != nil {
			return 0, err
		}
		f, err := dev.Submit(cb)
		if err != nil {
			return 0, err
		}
		if err := errors.Join(f.Wait(ctx), f.Release()); err != nil {
			return 0, err
		}
		return pool.Elapsed(0, 1)
	}
	for warm, k := time.Duration(0), 1; warm < warmUp; k = min(2*k, 64) {
		d, err := submit(k)
		if err != nil {
			return 0, err
		}
		warm += d
	}
	var total time.Duration
	for n > 0 {
		k := min(n, 64)
		d, err := submit(k)
		if err != nil {
			return 0, err
		}
		total += d
		n -= k
	}
	return total, nil
}
