// Package shaders holds vkbench's GLSL compute kernels and the SPIR-V built
// from them, embedded in the binary.
//
// Each kernel is a GLSL source NAME.comp (#version 450) with its SPIR-V
// NAME.spv checked in beside it. Kernels that share their code with
// another (a cooperative-matrix kernel and the twin that emulates its
// matrices, say) #include it from a NAME.glsl of the same folder. Workgroup sizes are specialization
// constants (local_size_x_id = 0, local_size_y_id = 1) and so are the
// kernels' tunables (layout(constant_id = N)), so that one SPIR-V module
// serves every workgroup size and tile shape a tuner may choose; each
// source's header comment lists its constants, bindings and push
// constants. Package catalogue says which operation uses which kernel.
//
// After editing a source, rebuild the SPIR-V with glslc and spirv-val on
// the PATH (and, for the sources that say "// target-env: vulkan1.3",
// such as gemm_f16_coopmat2's GL_NV_cooperative_matrix2, the newer glslc
// that scripts/glslc13.sh fetches; see internal/glslc):
//
//	bash scripts/glslc13.sh
//	go generate ./shaders/...
//
// The package's test rebuilds every source with the same flags (see
// internal/glslc) and fails if a checked-in .spv differs from its source.
package shaders

import (
	"embed"

	"github.com/vkbench/vkbench/status"
)

//go:generate go run ./internal/spvgen

// FS holds every kernel's SPIR-V (NAME.spv) and GLSL source (NAME.comp),
// and the GLSL that several sources include (NAME.glsl).
//
//go:embed *.spv *.comp *.glsl
var FS embed.FS

// Get returns the SPIR-V of the kernel name (the base name of its source,
// without extension, such as "copy_vec4"). An unknown name is NotFound.
// The bytes are shared: do not modify them.
func Get(name string) ([]byte, error) {
	b, err := FS.ReadFile(name + ".spv")
	if err != nil {
		return nil, status.Newf(status.NotFound, "shaders: no kernel %q", name)
	}
	return b, nil
}

// MustGet is Get for the names that are compiled into the program: it
// panics if name is unknown.
func MustGet(name string) []byte {
	b, err := Get(name)
	if err != nil {
		panic(err)
	}
	return b
}
