package manifest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// TestGLSLSpaceSearch: a candidate that is GLSL source with two
// #defines (glsl_space.json: WG and UNROLL) is compiled per
// configuration, each configuration is verified and the space searched
// like any other, and the compiled modules are cached: a second load
// compiles nothing, and loads without a compiler on the PATH. The load
// compiles the named point alone (what run measures), enumerating the
// space none, and the search each configuration it evaluates, on its
// compile threads; Progress is told of the load's batch.
func TestGLSLSpaceSearch(t *testing.T) {
	testenv.NeedGlslc(t)
	cacheDir := t.TempDir()
	t.Setenv(store.EnvCache, filepath.Join(cacheDir, "autotune.db"))
	var told []manifest.CompileProgress
	ops, err := manifest.LoadWith(filepath.Join(manifestDir, "glsl_space.json"), manifest.Options{Progress: func(p manifest.CompileProgress) { told = append(told, p) }})
	if err != nil {
		t.Fatal(err)
	}
	op := ops[0]
	sp := op.(kernels.Searchable).Space()
	if sp == nil {
		t.Fatal("no space")
	}
	inCache := func() int {
		compiled, err := filepath.Glob(filepath.Join(cacheDir, "glsl", "*.spv"))
		if err != nil {
			t.Fatal(err)
		}
		return len(compiled)
	}
	if n := inCache(); n != 1 {
		t.Errorf("the load compiled %d modules into the cache, want 1: the named point's", n)
	}
	pts, err := sp.Points(op.Dims(), kernels.SizeOf(1<<14), h200Like)
	if err != nil {
		t.Fatal(err)
	}
	if n := inCache(); n != 1 || len(pts.Configs) != 9 {
		t.Errorf("%d configurations, %d modules compiled into the cache once the space is enumerated; want 9, and only the named point's", len(pts.Configs), n)
	}
	if len(told) != 2 || told[0].Done != 0 || told[1].Done != 1 || told[1].Total != 1 || told[1].Workers < 1 || told[1].Op != "saxpy-glsl" {
		t.Errorf("progress told %+v; want the named point's compile (0, 1 of 1) alone", told)
	}
	dev := devtest.Device(t)
	cache := tempCache(t)
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
	if n := inCache(); n != 9 {
		t.Errorf("%d modules in the cache after the search, want one for each of the 9 configurations", n)
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

// countGlslc puts on the PATH a glslc that counts its runs before it
// runs the real one, and returns the count so far.
func countGlslc(t *testing.T) func() int {
	t.Helper()
	testenv.NeedGlslc(t)
	real, err := exec.LookPath("glslc")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	script := fmt.Sprintf("#!/bin/sh\necho run >> '%s'\nexec '%s' \"$@\"\n", runs, real)
	if err := os.WriteFile(filepath.Join(dir, "glslc"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		data, err := os.ReadFile(runs)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return strings.Count(string(data), "run")
	}
}

// TestGLSLSpaceCompilesWhatItEvaluates: a search of a GLSL space with a
// budget of 2 runs the compiler for the 2 configurations it evaluates,
// on its compile threads, and for no other: enumerating the space
// compiles nothing. Before, enumerating compiled all 9.
func TestGLSLSpaceCompilesWhatItEvaluates(t *testing.T) {
	compiles := countGlslc(t)
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	ops, err := manifest.Load(filepath.Join(manifestDir, "glsl_space.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := compiles(); n != 1 {
		t.Errorf("the load ran glslc %d times, want once: the named point", n)
	}
	cache := tempCache(t)
	res, err := autotune.NewTuner(devtest.Device(t), cache, quick).Search(context.Background(), ops[0], kernels.SizeOf(1<<14),
		autotune.SearchOptions{Options: search.Options{Strategy: search.Random, MaxEvals: 2, Seed: 2}})
	if err != nil {
		t.Fatal(err)
	}
	// The named point's module is in the cache since the load.
	want := len(slices.DeleteFunc(slices.Clone(res.Search.Order), func(name string) bool { return name == "vec4-WG64-UNROLL1" }))
	t.Logf("evaluated %q; glslc ran %d times for them", res.Search.Order, compiles()-1)
	if n := compiles() - 1; n != want || want == 0 || len(res.Search.Order) != 2 || len(res.Points.Configs) != 9 {
		t.Errorf("a search of %d configurations evaluating %q ran glslc %d times, want once for each of those but the named point", len(res.Points.Configs), res.Search.Order, n)
	}
}

// TestGLSLSpaceCompileStops: the context of LoadWith stops a space's
// compiles: cancelled once a search has evaluated its first
// configuration, the search ends with CANCELLED, having started no
// compile but the one its compile thread had under way, and leaves no
// temporary folder or part of a file behind; a load with it cancelled
// compiles nothing.
func TestGLSLSpaceCompileStops(t *testing.T) {
	compiles := countGlslc(t)
	cacheDir, tmp := t.TempDir(), t.TempDir()
	t.Setenv(store.EnvCache, filepath.Join(cacheDir, "autotune.db"))
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ops, err := manifest.LoadWith(filepath.Join(manifestDir, "glsl_space.json"), manifest.Options{Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	cache := tempCache(t)
	n, before := 0, 0
	_, err = autotune.NewTuner(devtest.Device(t), cache, quick).Search(ctx, ops[0], kernels.SizeOf(1<<14),
		autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}, CompileThreads: 1, Progress: func(autotune.SearchProgress) {
			if n++; n == 1 {
				cancel()
				before = compiles()
			}
		}})
	if status.CodeOf(err) != status.Cancelled {
		t.Errorf("a search whose context ended: %v; want CANCELLED", err)
	}
	if after := compiles(); after > before+1 || after >= 9 {
		t.Errorf("glslc ran %d times before the stop and %d after; want at most the one under way", before, after-before)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "*"))
	parts, _ := filepath.Glob(filepath.Join(cacheDir, "glsl", "*.part*"))
	if len(left)+len(parts) > 0 {
		t.Errorf("left behind: %v %v", left, parts)
	}
	empty := t.TempDir()
	t.Setenv(store.EnvCache, filepath.Join(empty, "autotune.db"))
	if _, err := manifest.LoadWith(filepath.Join(manifestDir, "glsl_space.json"), manifest.Options{Context: ctx}); status.CodeOf(err) != status.Cancelled {
		t.Errorf("loading with a cancelled context: %v, want CANCELLED", err)
	}
	if compiled, _ := filepath.Glob(filepath.Join(empty, "glsl", "*.spv")); len(compiled) > 0 {
		t.Errorf("a load with its context cancelled compiled %d modules", len(compiled))
	}
}

// TestGLSLSpaceConfigurationError: a configuration of a GLSL space
// that does not compile is no error of the load, which compiles the
// named point alone, nor of the space's enumeration, which compiles
// none, but of that point when the search evaluates it, and the search
// goes on. Its row's reason, as the command shows it, leads with what is
// wrong, the source's file and line and glslc's words, with glslc's
// command line after them (before, the command line came first). The
// source is in a folder whose path is all lower case, which a reason
// would take for a prefix to drop were it first.
func TestGLSLSpaceConfigurationError(t *testing.T) {
	testenv.NeedGlslc(t)
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	dir, err := os.MkdirTemp("", "vkbench-glsl-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) }) // the test's own folder
	for _, name := range []string{"saxpy.spv", "saxpy_defines.glsl", "glsl_space.json"} {
		data, err := os.ReadFile(filepath.Join(manifestDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "saxpy_defines.glsl" {
			data = []byte(strings.Replace(string(data), "#version 450\n", "#version 450\n#if UNROLL == 4\n#error four is too many\n#endif\n", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ops, err := manifest.Load(filepath.Join(dir, "glsl_space.json"))
	if err != nil {
		t.Fatalf("the load, of the named point (UNROLL 1): %v", err)
	}
	if _, err := kernels.SpaceOf(ops[0]).Points(ops[0].Dims(), kernels.SizeOf(1<<14), h200Like); err != nil {
		t.Fatalf("enumerating the space: %v", err)
	}
	cache := tempCache(t)
	res, err := autotune.NewTuner(devtest.Device(t), cache, quick).Search(context.Background(), ops[0], kernels.SizeOf(1<<14),
		autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
	if err != nil {
		t.Fatalf("a search with 3 configurations that do not compile: %v", err)
	}
	failed, measured := 0, 0
	for _, r := range res.Entry.Results {
		switch {
		case strings.Contains(r.Name, "UNROLL4"):
			failed++
			// The row names the configuration; its reason, the compile.
			reason := report.Reason(status.TextForPeople(r.Error), r.Name)
			words := "does not compile: " + filepath.Join(dir, "saxpy_defines.glsl") + ":3: error: '#error' : four is too many 1 error generated. (glslc -O "
			if r.Outcome != results.Failed || !strings.HasPrefix(reason, words) || !strings.Contains(reason, "-DUNROLL=4") || !strings.HasSuffix(reason, ": exit status 1)") {
				t.Errorf("%s: %s %q; want it failed, its reason glslc's words then its command", r.Name, r.Outcome, reason)
			}
		case r.Outcome == results.Measured || r.Outcome == results.Dropped:
			measured++
		}
	}
	if failed != 3 || measured != 6 || res.Search.Measured != 9 {
		t.Errorf("%d failed, %d measured of %d evaluated; want the 3 of UNROLL 4 failed and the other 6 measured", failed, measured, res.Search.Measured)
	}
}

// TestGLSLErrors: a source that does not compile, with its compiler's
// message; defines without a source; a source and a module at once.
func TestGLSLErrors(t *testing.T) {
	testenv.NeedGlslc(t)
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

// TestGLSLIncludes: the cached SPIR-V of a source follows the files it
// #includes, and theirs: editing a header, or a header that header
// includes, changes the kernel that runs (it writes the header's
// constant, which the check's "expect" tells apart); an unchanged tree
// is answered from the cache, with no compiler on the PATH; an entry
// without its record of includes (as caches from before kept them) is
// compiled again, once; a cache folder that cannot be written costs a
// compile each time; a header gone is glslc's error, and one that became
// a named pipe an error, not a wait.
func TestGLSLIncludes(t *testing.T) {
	testenv.NeedGlslc(t)
	ctx := context.Background()
	dev := devtest.Device(t)
	cacheDir := t.TempDir()
	t.Setenv(store.EnvCache, filepath.Join(cacheDir, "autotune.db"))
	path := os.Getenv("PATH")
	src := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("k.comp", "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"consts.h\"\n"+
		"layout(local_size_x = 64) in;\nlayout(std430, binding = 0) writeonly buffer Out { uint y[]; };\n"+
		"void main() { y[gl_GlobalInvocationID.x] = OUT; }\n")
	write("consts.h", "#include \"inner/value.h\"\n#define OUT (VALUE + 100u)\n")
	write("inner/value.h", "#define VALUE 7u\n")
	load := func(want int) (kernels.Operation, error) {
		t.Helper()
		ops, err := manifest.Parse([]byte(fmt.Sprintf(`{"schema": "vkbench.manifest/v1", "operations": [{"name": "value", "dims": {"N": 64},
		"buffers": [{"name": "y", "type": "u32", "len": "N", "binding": 0, "role": "output", "expect": "%d"}],
		"verify": {}, "candidates": [{"name": "included", "glsl": "k.comp", "groups": ["N / 64"]}]}]}`, want)), src)
		if err != nil {
			return nil, err
		}
		return ops[0], nil
	}
	runs := func(step string, want int) {
		t.Helper()
		op, err := load(want)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if err := kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(64), 0, 1); err != nil {
			t.Errorf("%s: the kernel does not write %d: %v", step, want, err)
		}
	}
	cachedOnly := func(step string, cached bool) {
		t.Helper()
		t.Setenv("PATH", t.TempDir())
		defer t.Setenv("PATH", path)
		_, err := load(0)
		if cached && err != nil || !cached && status.CodeOf(err) != status.FailedPrecondition {
			t.Errorf("%s, loading with no glslc: %v; want it from the cache: %v", step, err, cached)
		}
	}

	runs("first", 107)
	cachedOnly("unchanged", true)
	// What the manifest reads, #includes too (here from the cache's record).
	op, err := load(0)
	if err != nil {
		t.Fatal(err)
	}
	files := manifest.Files([]kernels.Operation{op})
	for _, name := range []string{"k.comp", "consts.h", filepath.Join("inner", "value.h")} {
		if !slices.Contains(files, filepath.Join(src, name)) {
			t.Errorf("the files the manifest reads are %v, want %s among them", files, name)
		}
	}
	write("inner/value.h", "#define VALUE 8u\n")
	cachedOnly("an include of an include edited", false)
	runs("an include of an include edited", 108)
	write("consts.h", "#include \"inner/value.h\"\n#define OUT (VALUE + 200u)\n")
	runs("an include edited", 208)
	cachedOnly("unchanged again", true)

	records, err := filepath.Glob(filepath.Join(cacheDir, "glsl", "*.deps"))
	if err != nil || len(records) != 1 {
		t.Fatalf("records %v, %v; want one, the source's (its text is unchanged: each compile replaced it)", records, err)
	}
	for _, r := range records {
		if err := os.Remove(r); err != nil {
			t.Fatal(err)
		}
	}
	cachedOnly("no record of includes", false)
	runs("no record of includes", 208)
	cachedOnly("recompiled once", true)

	// A cache folder that cannot be made: compiled each time, and right.
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(store.EnvCache, filepath.Join(blocked, "autotune.db"))
	runs("cache folder not writable", 208)
	cachedOnly("cache folder not writable", false)
	t.Setenv(store.EnvCache, filepath.Join(cacheDir, "autotune.db"))

	// A header that became a named pipe: an error that names it, at once.
	value := filepath.Join(src, "inner", "value.h")
	if err := os.Remove(value); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(value, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load(208); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), value) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("an included named pipe: %v; want INVALID_ARGUMENT naming it", err)
	}
	// A header gone: compiled again, and glslc says what is missing.
	if err := os.Remove(value); err != nil {
		t.Fatal(err)
	}
	if _, err := load(208); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "inner/value.h") {
		t.Errorf("an included header removed: %v; want INVALID_ARGUMENT naming it", err)
	}
}

// TestGLSLTargetEnv: a GLSL candidate is built for the Vulkan version its
// "// target-env:" line names (SPIR-V 1.6 for vulkan1.3, 1.3 for
// vulkan1.1), 1.2 (SPIR-V 1.5) without one, and runs; a version glslc
// does not take for Vulkan is an error that names the manifest's field
// and the source's line.
func TestGLSLTargetEnv(t *testing.T) {
	testenv.NeedGlslc(t)
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	dev := devtest.Device(t)
	dir := t.TempDir()
	load := func(line string) (kernels.Operation, error) {
		t.Helper()
		src := "#version 450\n" + line + "\nlayout(local_size_x = 64) in;\n" +
			"layout(std430, binding = 0) writeonly buffer Out { uint y[]; };\nvoid main() { y[gl_GlobalInvocationID.x] = 7u; }\n"
		if err := os.WriteFile(filepath.Join(dir, "k.comp"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		ops, err := manifest.Parse([]byte(`{"schema": "vkbench.manifest/v1", "operations": [{"name": "seven", "dims": {"N": 64},
		"buffers": [{"name": "y", "type": "u32", "len": "N", "binding": 0, "role": "output", "expect": "7"}],
		"verify": {}, "candidates": [{"name": "seven", "glsl": "k.comp", "groups": ["N / 64"]}]}]}`), dir)
		if err != nil {
			return nil, err
		}
		return ops[0], nil
	}
	for _, tt := range []struct {
		line string
		spv  uint16
	}{{"", 0x0105}, {"// target-env: vulkan1.3", 0x0106}, {"// target-env: vulkan1.1", 0x0103}} {
		op, err := load(tt.line)
		if err != nil {
			t.Fatalf("%q: %v", tt.line, err)
		}
		m, err := spirv.Parse(op.Candidates()[0].SPIRV)
		if err != nil {
			t.Fatal(err)
		}
		if m.Version != tt.spv {
			t.Errorf("%q: SPIR-V version %#04x, want %#04x", tt.line, m.Version, tt.spv)
		}
		if err := kernels.VerifyCandidate(context.Background(), dev, op, kernels.SizeOf(64), 0, 1); err != nil {
			t.Errorf("%q: %v", tt.line, err)
		}
	}
	_, err := load("// target-env: vulkan13")
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "candidates[0].glsl") ||
		!strings.Contains(err.Error(), `k.comp:2: target-env "vulkan13" is not one of`) {
		t.Errorf("a bad target-env: %v; want INVALID_ARGUMENT naming the field, k.comp:2 and the version", err)
	}
}

// TestManifestSharedMemoryUnknown: a candidate whose shared memory
// cannot be worked out (its length divides by a constant set to 0) runs
// as before, unchecked against the device's limit, and a warning says
// so, once; a "requires" of its shared memory is checked instead, and
// silences it. With the constant set to 2 it is worked out.
func TestManifestSharedMemoryUnknown(t *testing.T) {
	testenv.NeedGlslc(t)
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	dir := t.TempDir()
	src := `#version 450
layout(local_size_x = 64) in;
layout(constant_id = 1) const uint D = 1;
layout(binding = 0) buffer Y { float y[]; };
shared float t[64u / D];
void main() {
	t[gl_LocalInvocationID.x % (64u / D)] = y[gl_GlobalInvocationID.x];
	barrier();
	y[gl_GlobalInvocationID.x] = t[0];
}
`
	if err := os.WriteFile(filepath.Join(dir, "div.comp"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const text = `{"schema": "vkbench.manifest/v1", "operations": [{"name": "div", "dims": {"N": 64},
		"buffers": [{"name": "y", "type": "f32", "len": "N", "binding": 0, "role": "output"}], "verify": "none",
		"candidates": [{"name": "d", "glsl": "div.comp", REQUIRES"constants": {"1": D}, "groups": [1]}]}]}`
	for _, tc := range []struct {
		d, requires string
		shared      uint32
		warning     string
	}{
		{"0", "", 0, `manifest: manifest:3:40: operations[0].candidates[0].glsl: the shared memory entry point "main" of div.comp declares with constants 1=0 cannot be worked out, so it is not checked against the device's limit; "requires": {"shared_memory": BYTES} has it checked`},
		{"0", `"requires": {"shared_memory": 256}, `, 256, ""},
		{"2", "", 128, ""},
	} {
		ops, err := manifest.Parse([]byte(strings.NewReplacer("REQUIRES", tc.requires, "D}", tc.d+"}").Replace(text)), dir)
		if err != nil {
			t.Fatalf("D=%s %s: %v", tc.d, tc.requires, err)
		}
		var want []string
		if tc.warning != "" {
			want = []string{tc.warning}
		}
		if diff := cmp.Diff(want, manifest.Warnings(ops)); diff != "" {
			t.Errorf("D=%s %s: warnings (-want +got):\n%s", tc.d, tc.requires, diff)
		}
		if got := ops[0].Candidates()[0].Requires.SharedMemory; got != tc.shared {
			t.Errorf("D=%s %s: requires %d bytes of shared memory, want %d", tc.d, tc.requires, got, tc.shared)
		}
	}
}

// TestGLSLSpaceDecodeError: what a GLSL space's configurations are
// without their modules is decoded when the space is first enumerated,
// and a configuration wrong there (its assert divides by zero)
// is the space's error, said once as the space's, not as that of the
// configuration asked for first.
func TestGLSLSpaceDecodeError(t *testing.T) {
	testenv.NeedGlslc(t)
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	data, err := os.ReadFile(filepath.Join(manifestDir, "glsl_space.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `"groups": ["div_up(N / 4, WG * UNROLL)"]`, `"groups": ["div_up(N / 4, WG * UNROLL)"], "assert": ["N % (WG - 32) == 0"]`, 1)
	ops, err := manifest.Parse([]byte(text), manifestDir)
	if err != nil {
		t.Fatalf("the named point (WG 64): %v", err)
	}
	_, err = kernels.SpaceOf(ops[0]).Points(ops[0].Dims(), kernels.SizeOf(1<<14), h200Like)
	msg := fmt.Sprint(err)
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(msg, `kernels: space: in a configuration of the space of candidate "vec4"`) || !strings.Contains(msg, "WG - 32") || strings.Contains(msg, "configuration WG=") {
		t.Errorf("enumerating the space: %v; want INVALID_ARGUMENT, the space's, quoting the length", err)
	}
}
