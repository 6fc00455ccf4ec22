// Command spvgen rebuilds the SPIR-V of package shaders: every *.comp in
// the current directory (go generate runs it in shaders/) is compiled with
// glslc into the .spv of the same name, and the result checked with
// spirv-val. It also removes .spv files whose source is gone.
//
//	go generate ./shaders/...
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vkbench/vkbench/internal/glslc"
)

func main() {
	if err := generate(context.Background(), "."); err != nil {
		fmt.Fprintln(os.Stderr, "spvgen:", err)
		os.Exit(1)
	}
}

func generate(ctx context.Context, dir string) error {
	sources, err := glslc.Sources(dir)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, src := range sources {
		out := glslc.OutputName(src)
		want[out] = true
		if err := glslc.Compile(ctx, dir, src, out); err != nil {
			return err
		}
		if err := glslc.Validate(ctx, filepath.Join(dir, out)); err != nil {
			return err
		}
	}
	stale, err := filepath.Glob(filepath.Join(dir, "*"+glslc.OutputExt))
	if err != nil {
		return err
	}
	for _, path := range stale {
		if !want[filepath.Base(path)] {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}
