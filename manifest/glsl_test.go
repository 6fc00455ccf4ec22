package manifest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// TestGLSLSpaceSearch: a candidate that is GLSL source with two
// #defines (glsl_space.json: WG and UNROLL) is compiled per
// configuration, each configuration is verified and the space searched
// like any other, and the compiled modules are cached: a second load
// compiles nothing, and loads without a compiler on the PATH.
func TestGLSLSpaceSearch(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv(store.EnvCache, filepath.Join(cacheDir, "autotune.db"))
	ops, err := manifest.Load(filepath.Join(manifestDir, "glsl_space.json"))
	if err != nil {
		t.Fatal(err)
	}
	op := ops[0]
	sp := op.(kernels.Searchable).Space()
	if sp == nil {
		t.Fatal("no space")
	}
	compiled, err := filepath.Glob(filepath.Join(cacheDir, "glsl", "*.spv"))
	if err != nil || len(compiled) != 9 {
		t.Errorf("%d modules compiled into the cache (%v), want one for each of the 9 configurations", len(compiled), err)
	}
	dev := devtest.Device(t)
	cache, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "c.db")})
	if err != nil {
		t.Fatal(err)
	}
	opts := autotune.Options{TargetHalfWidth: 0.05, Budget: 100 * 1e6, MinSamples: stats.MinIntervalSamples, MaxSamples: 12, Warmup: 1e7}
	tuner := autotune.NewTuner(dev, cache, opts)
	res, err := tuner.Search(context.Background(), op, kernels.SizeOf(1<<14), autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Search.Measured != 9 || res.Entry.Fastest < 0 || !strings.HasPrefix(res.Entry.FastestName, "vec4-WG") {
		t.Errorf("searched %d configurations, fastest %q; want all 9, a vec4-WG…", res.Search.Measured, res.Entry.FastestName)
	}
	for _, r := range res.Entry.Results {
		if r.Outcome != results.Measured && r.Outcome != results.Dropped && r.Outcome != results.Unevaluated {
			t.Errorf("%s: %s %s", r.Name, r.Outcome, r.Error)
		}
	}

	// Cached: no compiler needed.
	t.Setenv("PATH", t.TempDir())
	if _, err := manifest.Load(filepath.Join(manifestDir, "glsl_space.json")); err != nil {
		t.Errorf("loading again without glslc: %v", err)
	}
	// Not cached, and no compiler: an error that names it.
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	_, err = manifest.Load(filepath.Join(manifestDir, "glsl_space.json"))
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "needs glslc") || !strings.Contains(err.Error(), "candidates[1].glsl") {
		t.Errorf("loading without glslc or a cache: %v; want FAILED_PRECONDITION naming glslc and the field", err)
	}
}

// TestGLSLErrors: a source that does not compile, with its compiler's
// message; defines without a source; a source and a module at once.
func TestGLSLErrors(t *testing.T) {
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	data, err := os.ReadFile(filepath.Join(manifestDir, "glsl_space.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ old, new, says string }{
		{`"defines": {"WG": "WG", "UNROLL": "UNROLL"}`, `"defines": {"WG": "WG"}`, "UNROLL is not defined"},
		{`"glsl": "saxpy_defines.glsl", `, ``, `only a "glsl" source takes #defines`},
		{`"glsl": "saxpy_defines.glsl", `, `"glsl": "saxpy_defines.glsl", "spirv": "saxpy.spv", `, "not both"},
		{`"defines": {"WG": "WG", "UNROLL": "UNROLL"}`, `"defines": {"WG": "N", "UNROLL": "UNROLL"}`, "it is a dimension"},
	} {
		text := strings.Replace(string(data), tt.old, tt.new, 1)
		if text == string(data) {
			t.Fatalf("%q is not in glsl_space.json", tt.old)
		}
		_, err := manifest.Parse([]byte(text), manifestDir)
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("with %s: %v; want INVALID_ARGUMENT saying %q", tt.new, err, tt.says)
		}
	}
}
