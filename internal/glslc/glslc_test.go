package glslc_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/internal/testenv"
)

// TestFor checks which toolchain builds a source: the PATH's for a plain
// one; for one with the directive, the newer one under the module's
// bin/tools/glslc13, or an error that says how to fetch it.
func TestFor(t *testing.T) {
	mod := t.TempDir()
	dir := filepath.Join(mod, "shaders")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(mod, "go.mod"), "module example.com/m\n")
	write(filepath.Join(dir, "plain.comp"), "#version 450\nvoid main() {}\n")
	write(filepath.Join(dir, "newer.comp"), "#version 450\n"+glslc.Vulkan13Directive+"\nvoid main() {}\n")
	write(filepath.Join(dir, "crlf.comp"), "#version 450\r\n"+glslc.Vulkan13Directive+"\r\nvoid main() {}\r\n")
	// The directive must be a line of its own, not part of another.
	write(filepath.Join(dir, "quoted.comp"), "#version 450\n// see "+glslc.Vulkan13Directive+"\nvoid main() {}\n")

	for _, src := range []string{"plain.comp", "quoted.comp"} {
		if tc, err := glslc.For(dir, src); err != nil || tc != glslc.Default {
			t.Errorf("For(%s) = %+v, %v; want the default toolchain", src, tc, err)
		}
	}
	for _, src := range []string{"newer.comp", "crlf.comp"} {
		_, err := glslc.For(dir, src)
		if err == nil || !strings.Contains(err.Error(), "scripts/glslc13.sh") {
			t.Errorf("For(%s) without the newer toolchain: %v; want an error that names scripts/glslc13.sh", src, err)
		}
	}
	if _, err := glslc.For(dir, "missing.comp"); err == nil {
		t.Error("For(missing.comp): no error")
	}

	bin := filepath.Join(mod, "bin", "tools", "glslc13", "bin")
	write(filepath.Join(bin, "glslc"), "#!/bin/sh\n")
	tc, err := glslc.For(dir, "newer.comp")
	if err != nil || tc.Glslc != filepath.Join(bin, "glslc") || tc.SpirvVal != filepath.Join(bin, "spirv-val") || tc.TargetEnv != "vulkan1.3" {
		t.Errorf("For(newer.comp) = %+v, %v; want the tools in %s for vulkan1.3", tc, err, bin)
	}
}

// TestCompileFileDeps: CompileFile names every file glslc read, the
// source and its #includes, one of them included by another from a
// folder below, all in a folder whose name has a space (which glslc's
// list does not escape); and not a file a disabled #include names.
func TestCompileFileDeps(t *testing.T) {
	if _, err := exec.LookPath(glslc.Default.Glslc); err != nil {
		testenv.Unavailable(t, "glslc is not on the PATH")
	}
	dir := filepath.Join(t.TempDir(), "my kernels")
	for name, text := range map[string]string{
		"k.comp": "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"a.h\"\n#if 0\n#include \"unused.h\"\n#endif\n" +
			"layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer Out { uint y[]; };\nvoid main() { y[0] = VALUE; }\n",
		"a.h":       "#include \"sub/b.h\"\n#define VALUE (INNER + 1u)\n",
		"sub/b.h":   "#define INNER 41u\n",
		"unused.h":  "#error not included\n",
		"other.txt": "",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, deps, err := glslc.CompileFile(context.Background(), filepath.Join(dir, "k.comp"), nil)
	if err != nil || len(code) == 0 {
		t.Fatalf("CompileFile: %d bytes, %v", len(code), err)
	}
	slices.Sort(deps)
	want := []string{filepath.Join(dir, "a.h"), filepath.Join(dir, "k.comp"), filepath.Join(dir, "sub", "b.h")}
	if diff := cmp.Diff(want, deps); diff != "" {
		t.Errorf("files read (-want +got):\n%s", diff)
	}
}
