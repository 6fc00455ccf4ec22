package autotune

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Compile builds, once each, every pipeline that measuring each operation
// ops[i] at each of its sizes[i] (none given: its default size on dev)
// builds (pipelinesOf), and measures nothing. With a device that keeps a
// driver pipeline cache (hal.PipelineCacher), whose data the caller then
// saves, later runs at those sizes pay no compile time. It returns how
// many pipelines it built.
func Compile(ctx context.Context, dev hal.Device, ops []kernels.Operation, sizes [][]kernels.Size) (int, error) {
	n := 0
	info := dev.Info()
	for i, op := range ops {
		at := []kernels.Size{op.DefaultSize(info)}
		if i < len(sizes) && len(sizes[i]) > 0 {
			at = sizes[i]
		}
		built := map[string]bool{}
		for _, size := range at {
			for _, desc := range pipelinesOf(Job{Op: op, Size: size}, info) {
				if key := pipelineKey(desc); !built[key] {
					built[key] = true
					if err := compileOne(ctx, dev, desc); err != nil {
						return n, status.Annotatef(err, "autotune: compiling %s/%s at %v", op.Name(), desc.Label, size)
					}
					n++
				}
			}
		}
	}
	return n, nil
}

// pipelineKey identifies the pipeline desc describes, whatever its label.
func pipelineKey(desc hal.ExecutableDesc) string {
	spirv := sha256.Sum256(desc.SPIRV)
	desc.Label, desc.SPIRV = "", nil
	return fmt.Sprintf("%x %+v", spirv, desc)
}

func compileOne(ctx context.Context, dev hal.Device, desc hal.ExecutableDesc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	exe, err := dev.CreateExecutable(desc)
	if err != nil {
		return err
	}
	return exe.Release()
}

// prebuilding holds the build slots of each device a Prebuild runs on,
// which that device's measurements share.
var prebuilding sync.Map // hal.Device → *buildSlots

// slotsFor returns the build slots of dev's Prebuild, or new ones.
func slotsFor(dev hal.Device) *buildSlots {
	if s, ok := prebuilding.Load(dev); ok {
		return s.(*buildSlots)
	}
	return newBuildSlots(buildThreads)
}

// Prebuild builds on CPU threads, and releases at once, the pipelines
// that measuring each job on dev will build, in the jobs' order, taking
// only the build slots the measurements on dev leave free: through the
// device's pipeline cache, a measurement then finds its pipelines
// compiled while the one before it was measured. Stop ends it, waiting
// for the builds in flight; call it before the device is closed. One
// Prebuild runs on a device at a time (a second does nothing); it does
// nothing on a CPU device, whose runs the builds would slow. A build that
// fails is not reported: the measurement builds it again and says why.
func Prebuild(ctx context.Context, dev hal.Device, opts Options, jobs []Job) (stop func()) {
	if buildThreads < 2 || dev.Info().Type == hal.CPU {
		return func() {}
	}
	return prebuild(ctx, dev, opts, jobs)
}

// prebuild is Prebuild on any device.
func prebuild(ctx context.Context, dev hal.Device, opts Options, jobs []Job) (stop func()) {
	slots := newBuildSlots(buildThreads)
	if _, busy := prebuilding.LoadOrStore(dev, slots); busy {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		info := dev.Info()
		for _, j := range jobs {
			t0 := time.Now()
			var built sync.WaitGroup
			n := 0
			for _, desc := range pipelinesOf(j, info) {
				slots.acquire(false)
				if ctx.Err() != nil {
					slots.release()
					break
				}
				n++
				built.Go(func() {
					defer slots.release()
					_ = compileOne(ctx, dev, desc) // for the driver's cache only
				})
			}
			built.Wait()
			if ctx.Err() != nil {
				return
			}
			if opts.Logger != nil {
				key := Key{Op: j.Op.Name(), DType: j.Op.DType().String(), Size: j.Size}
				opts.Logger.Debug("autotune: prebuilt", "key", key.String(), "pipelines", n, "took", time.Since(t0))
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
		prebuilding.CompareAndDelete(dev, slots)
	}
}

// pipelinesOf returns the pipelines a measurement of j on the device info
// describes builds, as far as they are known without a problem: each
// candidate's the device can run (kernels.CandidatesAt), and those of its
// later dispatches and passes (kernels.OperationSizer).
func pipelinesOf(j Job, info hal.DeviceInfo) []hal.ExecutableDesc {
	cands, refused := kernels.CandidatesAt(j.Op, j.Size, info)
	var descs []hal.ExecutableDesc
	for i, c := range cands {
		if refused[i] == nil {
			descs = append(descs, c.Executable())
		}
	}
	if s, ok := j.Op.(kernels.OperationSizer); ok {
		descs = append(descs, s.PipelinesAt(j.Size, info)...)
	}
	return descs
}
