package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// glslSpaceManifest writes a manifest whose candidate vec4 is GLSL
// source over a space of 16 configurations (testdata/manifests'
// glsl_space.json, wider), and returns its path.
func glslSpaceManifest(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "manifests", "glsl_space.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(`"WG": [32, 64, 128], "UNROLL": [1, 2, 4]`, `"WG": [32, 64, 96, 128], "UNROLL": [1, 2, 3, 4]`,
		`"saxpy.spv"`, `"`+dir+`/saxpy.spv"`, `"saxpy_defines.glsl"`, `"`+dir+`/saxpy_defines.glsl"`).Replace(string(data))
	path := filepath.Join(t.TempDir(), "glsl.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGLSLSpaceCompiles: run of an operation whose candidate spans a
// space of GLSL configurations compiles the named point alone, where it
// compiled all 16 as the manifest was read, in silence; a search with a
// budget of 2 compiles the configurations it evaluates and no other,
// where it compiled all 15 others as it started; an exhaustive one
// stops at SIGINT with exit 130, no temporary folder left, and run
// again compiles the rest.
func TestGLSLSpaceCompiles(t *testing.T) {
	needDevice(t)
	m := glslSpaceManifest(t)
	caches, tmp := t.TempDir(), t.TempDir()
	t.Setenv("VKBENCH_CACHE", filepath.Join(caches, "tune.db"))
	t.Setenv("TMPDIR", tmp)
	compiled := func() int {
		spv, err := filepath.Glob(filepath.Join(caches, "glsl", "*.spv"))
		if err != nil {
			t.Fatal(err)
		}
		return len(spv)
	}
	quick := []string{"--manifest", m, "--size", "4096", "--budget", "100ms", "--min-samples", "6", "--max-samples", "6"}
	r := mustRun(t, 0, append([]string{"run", "--cache", "off"}, quick...)...)
	if n := compiled(); n != 1 || strings.Contains(r.stderr, "compiling") {
		t.Errorf("run compiled %d configurations, want 1 (the named point); stderr:\n%s", n, r.stderr)
	}
	tune := append([]string{"tune", "saxpy-glsl", "--cache", filepath.Join(caches, "c.db")}, quick...)
	r = mustRun(t, 0, append(tune, "--strategy", "random", "--max-evals", "2")...)
	if n := compiled(); n > 3 || strings.Contains(r.stderr, "compiling") {
		t.Errorf("a search of 2 configurations compiled %d in all, want at most 3 (the named point and the 2); stderr:\n%s", n, r.stderr)
	}
	first, took := interruptedAfter(t, append(tune, "--strategy", "exhaustive", "-v"), regexp.MustCompile(`(?m)^search: 1/16 `), syscall.SIGINT)
	if first.code != 130 {
		t.Errorf("interrupted while compiling: exit %d, want 130\n%s", first.code, first.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	start := time.Now()
	r = mustRun(t, 0, append(tune, "--strategy", "exhaustive")...)
	rest := time.Since(start)
	if n := compiled(); n != 16 {
		t.Errorf("the searches compiled %d configurations in all, want 16; stderr:\n%s", n, r.stderr)
	}
	// The interrupt stopped the search before its last point, and took
	// no longer than the search run again (compiling the rest and
	// measuring all 16) took at the machine's present speed, give or
	// take 10 s, where a fixed 10 s could not tell a busy machine from a
	// stop that waits for a long step.
	t.Logf("stopped %v after SIGINT; the search run again took %v", took, rest)
	if strings.Contains(first.stderr, "search: 16/16 ") || took > rest+10*time.Second {
		t.Errorf("stopped %v after SIGINT, the search run again taking %v; want a stop before the last point, within 10 s more than that:\n%s", took, rest, first.stderr)
	}
}

// TestGLSLCompileNote: a manifest whose load compiles 8 GLSL candidates
// says so on stderr as the batch starts; loaded again, from the cache,
// it says nothing.
func TestGLSLCompileNote(t *testing.T) {
	needDevice(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	var cands []string
	for _, wg := range []int{32, 64} {
		for u := 1; u <= 4; u++ {
			cands = append(cands, fmt.Sprintf(`{"name": "vec4-%d-%d", "glsl": "%s/saxpy_defines.glsl", "defines": {"WG": %d, "UNROLL": %d}, "groups": ["div_up(N / 4, %d)"]}`, wg, u, dir, wg, u, wg*u))
		}
	}
	m := filepath.Join(t.TempDir(), "many.json")
	text := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy-many", "dims": {"N": 4096},
		"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0}, {"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout"}],
		"push_constants": [{"type": "u32", "value": "N / 4"}, {"type": "f32", "value": 2.5}], "verify": {"reference": "vec4-32-1"},
		"candidates": [` + strings.Join(cands, ",\n") + `]}]}`
	if err := os.WriteFile(m, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	caches := t.TempDir()
	t.Setenv("VKBENCH_CACHE", filepath.Join(caches, "tune.db"))
	args := []string{"tune", "--compile-only", "--manifest", m, "--cache", filepath.Join(caches, "c.db"), "saxpy-many"}
	if r := mustRun(t, 0, args...); !strings.Contains(r.stderr, "saxpy-many: compiling the GLSL of 8 configurations, ") {
		t.Errorf("a load of 8 GLSL candidates said nothing of it:\n%s", r.stderr)
	}
	if r := mustRun(t, 0, args...); strings.Contains(r.stderr, "compiling") {
		t.Errorf("a load from the cache said it compiles:\n%s", r.stderr)
	}
}
