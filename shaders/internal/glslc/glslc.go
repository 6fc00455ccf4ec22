// Package glslc runs the Khronos tools that turn the GLSL sources of
// package shaders into SPIR-V and check it: glslc to compile and
// spirv-val to validate. The generator (go generate) and the shaders
// test share it, so that the checked-in SPIR-V and the test's rebuild use
// the very same flags.
package glslc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// SourceExt is the extension of a GLSL compute source; its SPIR-V is the
// file of the same name with OutputExt.
const (
	SourceExt = ".comp"
	OutputExt = ".spv"
)

// TargetEnv is the Vulkan version the SPIR-V is built for and validated
// against. Vulkan 1.2 means SPIR-V 1.5, which every device vkbench targets
// accepts (lavapipe, NVIDIA, AMD, Intel and Arm drivers of the last years).
const TargetEnv = "vulkan1.2"

// Flags are glslc's arguments before the input and output names: optimise
// (which also drops names and debug information, so the output depends
// only on the source text, not on where it lives), the target environment,
// and the shader stage.
var Flags = []string{"-O", "--target-env=" + TargetEnv, "-fshader-stage=compute"}

// Sources returns the base names of the GLSL sources in dir, sorted.
func Sources(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), SourceExt) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// OutputName returns the name of the SPIR-V built from source.
func OutputName(source string) string {
	return strings.TrimSuffix(source, SourceExt) + OutputExt
}

// Compile builds dir/source into out with glslc. It runs in dir with the
// source's base name, so that messages name the file as the repository
// does.
func Compile(ctx context.Context, dir, source, out string) error {
	args := append(slices.Clone(Flags), source, "-o", out)
	return run(ctx, dir, "glslc", args...)
}

// Validate runs spirv-val on the SPIR-V file path for TargetEnv.
func Validate(ctx context.Context, path string) error {
	return run(ctx, filepath.Dir(path), "spirv-val", "--target-env", TargetEnv, filepath.Base(path))
}

func run(ctx context.Context, dir, tool string, args ...string) error {
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}
