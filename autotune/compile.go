package autotune

import (
	"context"
	"crypto/sha256"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Compile builds, for each operation ops[i] at each of its sizes[i] (none
// given: its default size on dev), the pipeline that a measurement there
// builds for every candidate dev can run there (kernels.CandidatesAt): a
// candidate whose pipeline depends on the size, such as a manifest's whose
// constants or workgroup are worked out from its dims, has one for each
// size, and the same pipeline is built once. It measures nothing. With a
// device that keeps a driver pipeline cache (hal.PipelineCacher), whose
// data the caller then saves (see Cache.SavePipelineCache), later runs at
// those sizes pay no compile time for them; the pipelines a manifest
// candidate's later dispatches or passes use are built when its problem is
// prepared, not here. It returns how many pipelines it built.
func Compile(ctx context.Context, dev hal.Device, ops []kernels.Operation, sizes [][]kernels.Size) (int, error) {
	n := 0
	info := dev.Info()
	for i, op := range ops {
		at := []kernels.Size{op.DefaultSize(info)}
		if i < len(sizes) && len(sizes[i]) > 0 {
			at = sizes[i]
		}
		built := map[[sha256.Size]byte]bool{}
		for _, size := range at {
			cands, refused := kernels.CandidatesAt(op, size, info)
			for k, c := range cands {
				d := kernels.Digest([]kernels.Candidate{c})
				if refused[k] != nil || built[d] {
					continue
				}
				built[d] = true
				if err := ctx.Err(); err != nil {
					return n, status.Wrap(err, status.CodeOf(err), "autotune: compiling")
				}
				exe, err := dev.CreateExecutable(c.Executable())
				if err != nil {
					return n, status.Annotatef(err, "autotune: compiling %s/%s at %v", op.Name(), c.Name, size)
				}
				n++
				if err := exe.Release(); err != nil {
					return n, err
				}
			}
		}
	}
	return n, nil
}
