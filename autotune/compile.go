package autotune

import (
	"context"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Compile builds the pipeline of every candidate of ops that dev supports,
// and measures nothing: with a device that keeps a driver pipeline cache
// (hal.PipelineCacher), whose data the caller then saves (see
// Cache.SavePipelineCache), later runs pay no compile time. It returns how
// many pipelines it built.
func Compile(ctx context.Context, dev hal.Device, ops []kernels.Operation) (int, error) {
	n := 0
	info := dev.Info()
	for _, op := range ops {
		for _, c := range op.Candidates() {
			if c.Supported(info) != nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				return n, status.Wrap(err, status.CodeOf(err), "autotune: compiling")
			}
			exe, err := dev.CreateExecutable(c.Executable())
			if err != nil {
				return n, status.Annotatef(err, "autotune: compiling %s/%s", op.Name(), c.Name)
			}
			n++
			if err := exe.Release(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}
