package glslc_test

import (
	"context"
	"fmt"
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
// one, and for one that asks for another version than 1.3 (for that
// version); for one with the Vulkan 1.3 directive, the newer one under
// the module's bin/tools/glslc13, or an error that says how to fetch it;
// for an unknown version, an error naming the source and line.
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

	write(filepath.Join(dir, "v11.comp"), "#version 450\n// target-env: vulkan1.1\nvoid main() {}\n")
	write(filepath.Join(dir, "bad.comp"), "#version 450\n// target-env: vulkan13\nvoid main() {}\n")
	if tc, err := glslc.For(dir, "v11.comp"); err != nil || tc.Glslc != glslc.Default.Glslc || tc.TargetEnv != "vulkan1.1" {
		t.Errorf("For(v11.comp) = %+v, %v; want the default glslc for vulkan1.1", tc, err)
	}
	if _, err := glslc.For(dir, "bad.comp"); err == nil || !strings.Contains(err.Error(), `bad.comp:2: target-env "vulkan13"`) {
		t.Errorf("For(bad.comp) = %v; want an error naming bad.comp:2 and the version", err)
	}
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

// TestTargetEnvOf: a source's target-env line names the version it is
// built for, TargetEnv without one; a line that only quotes the
// directive does not count; a version glslc would not take for Vulkan,
// or two lines that disagree, is an error naming the source and line.
func TestTargetEnvOf(t *testing.T) {
	for _, tt := range []struct{ src, want, err string }{
		{"#version 450\nvoid main() {}\n", glslc.TargetEnv, ""},
		{"#version 450\r\n// target-env: vulkan1.3 \r\n", "vulkan1.3", ""},
		{"// target-env:vulkan1.1\n// target-env: vulkan1.1\n", "vulkan1.1", ""},
		{"// see // target-env: vulkan1.3\n", glslc.TargetEnv, ""},
		{"#version 450\n// target-env: vulkan2.0\n", "", `k.comp:2: target-env "vulkan2.0" is not one of vulkan1.0, `},
		{"// target-env: opengl4.5\n", "", `k.comp:1: target-env "opengl4.5" is not one of`},
		{"// target-env: vulkan1.3\n\n// target-env: vulkan1.2\n", "", "k.comp:3: target-env vulkan1.2, where line 1 says vulkan1.3"},
	} {
		got, err := glslc.TargetEnvOf("k.comp", tt.src)
		if got != tt.want || tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("TargetEnvOf(%q) = %q, %v; want %q, an error saying %q", tt.src, got, err, tt.want, tt.err)
		}
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
	code, deps, err := glslc.Default.CompileFile(context.Background(), filepath.Join(dir, "k.comp"), nil)
	if err != nil || len(code) == 0 {
		t.Fatalf("CompileFile: %d bytes, %v", len(code), err)
	}
	slices.Sort(deps)
	want := []string{filepath.Join(dir, "a.h"), filepath.Join(dir, "k.comp"), filepath.Join(dir, "sub", "b.h")}
	if diff := cmp.Diff(want, deps); diff != "" {
		t.Errorf("files read (-want +got):\n%s", diff)
	}
}

// TestCompileFileError: a source that does not compile is an error that
// leads with what is wrong, the file and line and glslc's words, and
// ends with glslc's command line and exit status; before, the command
// line came first.
func TestCompileFileError(t *testing.T) {
	if _, err := exec.LookPath(glslc.Default.Glslc); err != nil {
		testenv.Unavailable(t, "glslc is not on the PATH")
	}
	path := filepath.Join(t.TempDir(), "k.comp")
	if err := os.WriteFile(path, []byte("#version 450\n#if UNROLL == 4\n#error four is too many\n#endif\nlayout(local_size_x = 1) in;\nvoid main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := glslc.Default.CompileFile(context.Background(), path, []string{"UNROLL=4"})
	want := "does not compile: " + path + ":3: error: '#error' : four is too many\n1 error generated.\n" +
		"(glslc -O --target-env=vulkan1.2 -fshader-stage=compute -DUNROLL=4 -I " + filepath.Dir(path) + " " + path + " -o k.spv -MD -MF k.d: exit status 1)"
	if diff := cmp.Diff(want, fmt.Sprint(err)); diff != "" {
		t.Errorf("a source with an #error (-want +got):\n%s", diff)
	}
}
