// Package glslc runs the Khronos tools that turn GLSL compute sources into
// SPIR-V and check it: glslc to compile and spirv-val to validate. The
// shaders generator (go generate), the shaders test and the tests that
// compile modules of their own share it, so that every module is built
// with the very same flags.
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

// CompileSource compiles the GLSL compute source src for targetEnv
// (TargetEnv if empty; "vulkan1.3" makes SPIR-V 1.6) and returns its
// SPIR-V, in a temporary folder it removes.
func CompileSource(ctx context.Context, src, targetEnv string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "vkbench-glslc-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary folder; nothing depends on it
	if err := os.WriteFile(filepath.Join(dir, "k"+SourceExt), []byte(src), 0o644); err != nil {
		return nil, err
	}
	args := slices.Clone(Flags)
	if targetEnv != "" {
		args[slices.Index(args, "--target-env="+TargetEnv)] = "--target-env=" + targetEnv
	}
	if err := run(ctx, dir, "glslc", append(args, "k"+SourceExt, "-o", "k"+OutputExt)...); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, "k"+OutputExt))
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
