package autotune

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Compile builds every pipeline that measuring each operation ops[i] at
// each of its sizes[i] (none given: its default size on dev) builds, for
// the candidates dev can run there: each candidate's own
// (kernels.CandidatesAt) and, for an operation whose pipelines depend on
// the size (kernels.OperationSizer: a manifest's constants or workgroup
// worked out from its dims), those of its later dispatches and passes at
// each size. Each pipeline is built once, and nothing is measured. With a
// device that keeps a driver pipeline cache (hal.PipelineCacher), whose
// data the caller then saves (see Cache.SavePipelineCache), later runs at
// those sizes pay no compile time. It returns how many pipelines it built.
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
			cands, refused := kernels.CandidatesAt(op, size, info)
			var descs []hal.ExecutableDesc
			for k, c := range cands {
				if refused[k] == nil {
					descs = append(descs, c.Executable())
				}
			}
			if s, ok := op.(kernels.OperationSizer); ok {
				descs = append(descs, s.PipelinesAt(size, info)...)
			}
			for _, desc := range descs {
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

// compileOne builds desc on dev and releases it.
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
