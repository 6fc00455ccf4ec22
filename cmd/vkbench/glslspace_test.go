package main

import (
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
// compiled all 16 as the manifest was read, in silence; a search
// compiles the others, says so on stderr as it starts, and stops at
// SIGINT with exit 130, no temporary folder left; run again, it compiles
// only what the first did not.
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
	tune := append([]string{"tune", "saxpy-glsl", "--strategy", "random", "--max-evals", "2", "--cache", filepath.Join(caches, "c.db")}, quick...)
	first, took := interruptedAfter(t, tune, regexp.MustCompile(`saxpy-glsl: compiling the GLSL of 15 configurations, \d+ at a time \(kept in `), syscall.SIGINT)
	if first.code != 130 || !strings.Contains(first.stderr, "stopped; no results written") {
		t.Errorf("interrupted while compiling: exit %d, want 130 saying it stopped\n%s", first.code, first.stderr)
	}
	if took > 10*time.Second {
		t.Errorf("stopped %v after SIGINT", took)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	before := compiled()
	r = mustRun(t, 0, tune...)
	if n := compiled(); n != 16 || !strings.Contains(r.stderr, "compiling the GLSL of") && 16-before >= manyCompiles {
		t.Errorf("the search compiled %d configurations in all, want 16; stderr:\n%s", n, r.stderr)
	}
}
