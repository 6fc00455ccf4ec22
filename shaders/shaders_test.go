package shaders_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/shaders"
	"github.com/vkbench/vkbench/spirv"
)

// requireTool ends the test through testenv.Unavailable when tool is not
// on the PATH.
func requireTool(t testing.TB, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		testenv.Unavailable(t, "%s is not on the PATH; install glslc and spirv-tools to check the SPIR-V", tool)
	}
}

// requireToolchain ends the test through testenv.Unavailable when the
// toolchain that builds src (glslc.For) is not here: the newer one that
// scripts/glslc13.sh fetches, for the sources that ask for it.
func requireToolchain(t *testing.T, src string) {
	t.Helper()
	if _, err := glslc.For(".", src); err != nil {
		testenv.Unavailable(t, "%v", err)
	}
}

// TestSPIRVUpToDate rebuilds every source with the generator's flags and
// compares the result with the checked-in SPIR-V, byte for byte.
func TestSPIRVUpToDate(t *testing.T) {
	requireTool(t, "glslc")
	sources, err := glslc.Sources(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) == 0 {
		t.Fatal("no GLSL sources found")
	}
	tmp := t.TempDir()
	for _, src := range sources {
		name := glslc.OutputName(src)
		t.Run(src, func(t *testing.T) {
			requireToolchain(t, src)
			out := filepath.Join(tmp, name)
			if err := glslc.Compile(context.Background(), ".", src, out); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(name)
			if err != nil {
				t.Fatalf("%s has no checked-in %s: run go generate ./shaders/...", src, name)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is out of date with %s (rebuilt: %d bytes, checked in: %d bytes): run go generate ./shaders/...", name, src, len(got), len(want))
			}
		})
	}
}

// TestSPIRVValid runs spirv-val on every checked-in module.
func TestSPIRVValid(t *testing.T) {
	requireTool(t, "spirv-val")
	spvs, err := filepath.Glob("*" + glslc.OutputExt)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range spvs {
		t.Run(path, func(t *testing.T) {
			requireToolchain(t, strings.TrimSuffix(path, glslc.OutputExt)+glslc.SourceExt)
			if err := glslc.Validate(context.Background(), path); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestNoOrphans checks that every SPIR-V module has its source and the
// other way round, so that nothing is embedded that cannot be rebuilt.
func TestNoOrphans(t *testing.T) {
	sources, err := glslc.Sources(".")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, src := range sources {
		want[glslc.OutputName(src)] = true
		if _, err := os.Stat(glslc.OutputName(src)); err != nil {
			t.Errorf("%s has no %s: run go generate ./shaders/...", src, glslc.OutputName(src))
		}
	}
	spvs, err := filepath.Glob("*" + glslc.OutputExt)
	if err != nil {
		t.Fatal(err)
	}
	for _, spv := range spvs {
		if !want[spv] {
			t.Errorf("%s has no GLSL source: delete it or run go generate ./shaders/...", spv)
		}
	}
}

// TestEmbedded checks what the package serves: every kernel is a GLSL
// compute module with entry point main, and Get names what it lacks.
func TestEmbedded(t *testing.T) {
	spvs, err := fs.Glob(shaders.FS, "*.spv")
	if err != nil || len(spvs) == 0 {
		t.Fatal("no embedded kernels", err)
	}
	for _, spv := range spvs {
		name := strings.TrimSuffix(spv, ".spv")
		code, err := shaders.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := spirv.Check(code, "main"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := shaders.FS.ReadFile(name + ".comp"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := shaders.Get("no_such_kernel"); err == nil {
		t.Error(`Get("no_such_kernel") succeeded`)
	}
}

func ExampleGet() {
	code, err := shaders.Get("copy_vec4")
	if err != nil {
		panic(err)
	}
	m, err := spirv.Parse(code)
	if err != nil {
		panic(err)
	}
	// Constant 0 is the workgroup size (local_size_x_id = 0).
	fmt.Println(m.EntryPoints(), m.SpecIDs())
	// Output: [main] [0]
}
