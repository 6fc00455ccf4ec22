package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/store"
)

// The tests of this file each try one kind of bad input that vkbench once
// took: a NaN that switched a gate off, a peak that crashed the report, a
// cache that could not be used reported as a device failure, a tune that
// stored nothing and succeeded, sizes silently ignored, files the results
// schema forbids read as results. Each wants one line on stderr and exit
// status 2, before any work.

// wantUsage runs args and checks exit status 2 and one line matching want.
func wantUsage(t *testing.T, want string, args ...string) {
	t.Helper()
	r := vkbench(t, args...)
	if r.code != exitUsage {
		t.Errorf("vkbench %s: exit status %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, exitUsage, r.stdout, r.stderr)
	}
	checkOneLine(t, r, regexp.MustCompile(want))
}

// TestNonFiniteFlags: NaN and the infinities pass every range check
// written as a comparison, since every comparison with NaN is false: a
// compare with --threshold NaN would pass a 10% slower file.
func TestNonFiniteFlags(t *testing.T) {
	base, slower := compareData("base.json"), compareData("slower.json")
	for _, tc := range []struct{ flag, value string }{
		{"--threshold", "NaN"}, {"--threshold", "Inf"}, {"--alpha", "NaN"}, {"--alpha", "-Inf"},
	} {
		wantUsage(t, `invalid argument "`+regexp.QuoteMeta(tc.value)+`" for "`+tc.flag+`" flag: not a finite number`, "compare", tc.flag, tc.value, base, slower)
	}
	for _, v := range []string{"NaN", "Inf", "+Inf", "-Inf", "nan", "infinity"} {
		wantUsage(t, `for "--precision" flag: not a finite number`, "run", "copy", "--precision", v, "--cache", "off")
		wantUsage(t, `for "--threshold" flag: not a finite number`, "ab", "a.json", "b.json", "--threshold", v)
	}
	wantUsage(t, `for "--peak-gflops" flag: not a finite number`, "report", base, "-o", filepath.Join(t.TempDir(), "r.html"), "--peak-gflops", "Inf")
}

// TestReportPeakRange: peaks the log-scaled roofline cannot span once
// crashed the report; they are bad usage, in one line.
func TestReportPeakRange(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	base := compareData("base.json")
	wantUsage(t, `--peak-gbps 1e\+300 is outside \[0.001, 1e\+09\]`, "report", base, "-o", out, "--peak-gbps", "1e300", "--peak-gflops", "1e-300")
	wantUsage(t, `--peak-gflops 1e-300 is outside`, "report", base, "-o", out, "--peak-gbps", "900", "--peak-gflops", "1e-300")
	wantUsage(t, `--peak-gbps -5 is outside`, "report", base, "-o", out, "--peak-gbps", "-5")
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused report wrote %s", out)
	}
	// The ends of the range draw.
	mustRun(t, 0, "report", base, "-o", out, "--peak-gbps", "0.001", "--peak-gflops", "1e9")
}

// TestUnusableCacheIsUsage: the cache commands on a damaged cache file or
// on a symbolic-link loop exit 2, as the README's table says of an
// unusable cache path, not 3 (a device failure).
func TestUnusableCacheIsUsage(t *testing.T) {
	dir := t.TempDir()
	damaged := filepath.Join(dir, "damaged.db")
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "cache", "damaged-truncated-in-first-page.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop.db")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	for _, sub := range [][]string{{"ls"}, {"ls", "--format", "json"}, {"show", "copy/u32/1024"}, {"export", filepath.Join(dir, "out.json")}} {
		wantUsage(t, `cache .*damaged.db is damaged`, append(append([]string{"cache"}, sub...), "--cache", damaged)...)
		wantUsage(t, `--cache .*loop.db: too many levels of symbolic links`, append(append([]string{"cache"}, sub...), "--cache", loop)...)
	}
	for _, cmd := range [][]string{{"cache", "clear"}, {"run", "copy"}, {"tune", "copy"}, {"peak"}} {
		wantUsage(t, `--cache .*loop.db: too many levels of symbolic links`, append(cmd, "--cache", loop)...)
	}
}

// TestTuneNotStored tunes into a cache file of a newer bbolt format, which
// this version must leave alone: the answer cannot be stored, so the tune
// has failed its purpose (exit status 2, the cache path), though what it
// measured is shown.
func TestTuneNotStored(t *testing.T) {
	needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	mustRun(t, 0, args("tune", "--cache", cache)...)
	// bbolt's meta pages (the first two) hold the format's version after
	// a 16-byte page header and the magic number.
	var v [4]byte
	binary.LittleEndian.PutUint32(v[:], 3)
	f, err := os.OpenFile(cache, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{16 + 4, int64(os.Getpagesize()) + 16 + 4} {
		if _, err := f.WriteAt(v[:], off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r := vkbench(t, "tune", "triad", "--size", "4096", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", cache)
	if r.code != exitUsage {
		t.Fatalf("tune into a cache it cannot write: exit status %d, want %d\n%s%s", r.code, exitUsage, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "tune failed: its winners must be stored") || !strings.Contains(last, "was not stored in the tune cache "+cache) {
		t.Errorf("the last line does not say the answer was not stored, in which file:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "triad f32") {
		t.Errorf("what was measured is not shown:\n%s", r.stdout)
	}
}

// TestSizesCheckedFirst gives sizes that name nothing, or that cannot fit
// an operation they apply to, with no Vulkan driver to be found: each is
// bad usage, saying what would be valid, found before any device work
// (which would have failed with exit status 3).
func TestSizesCheckedFirst(t *testing.T) {
	needDevice(t)
	noDriver := []string{"VK_ICD_FILENAMES=/nonexistent/icd.json", "VK_DRIVER_FILES=/nonexistent/icd.json", "VK_ADD_DRIVER_FILES=", "VKBENCH_VALIDATION=0"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"copy", "--size", "gemn=64x64x64"}, `--size gemn=64x64x64: "gemn" is neither an operation measured here \(copy\) nor a dimension of one \(N\)`},
		{[]string{"copy", "triad", "-s", "Q=3"}, `--size Q=3: "Q" is neither an operation measured here \(copy, triad\) nor a dimension of one \(N\)`},
		{[]string{"copy", "--size", "gemm=64x64x64"}, `"gemm" is neither among the operations measured \(copy\)`},
		{[]string{"copy", "--size", "4096", "--size", "8192"}, `--size 8192: a size for every operation is already given \(--size 4096\); prefix OP= to size one operation`},
		{[]string{"copy", "-s", "copy=4096", "-s", "copy=8192"}, `--size copy=8192: copy already has --size copy=4096`},
		{[]string{"copy", "gemm", "--size", "4096"}, `--size 4096 for gemm \(dimensions M, N, K\): .*: 1 extent for 3 dimensions \(MxNxK\)`},
		{[]string{"gemm", "-s", "gemm=M=128,N=64"}, `dimension K is missing \(dimensions of gemm: M, N, K\)`},
		{[]string{"gemm", "-s", "gemm=M=128,N=64,Q=2"}, `no dimension "Q"`},
		{[]string{"tune", "copy", "gemm", "--size", "N=4096"}, `--size N=4096 for gemm`},
		{[]string{"peak", "--size", "copy=1x2"}, `--size copy=1x2: .*: 2 extents for 1 dimension \(N\)`},
	} {
		args := append([]string{"run"}, tc.args...)
		if tc.args[0] == "tune" || tc.args[0] == "peak" {
			args = tc.args
		}
		args = append(args, "--cache", "off")
		r := vkbenchProcess(t, noDriver, args...)
		if r.code != exitUsage {
			t.Errorf("vkbench %s: exit status %d, want %d; stderr: %s", strings.Join(args, " "), r.code, exitUsage, r.stderr)
		}
		checkOneLine(t, r, regexp.MustCompile(tc.want))
	}
}

// TestSizesApplied: a size prefixed with its operation and written with
// named dimensions is the size measured, not ignored.
func TestSizesApplied(t *testing.T) {
	needDevice(t)
	for _, size := range []string{"gemm=M=32,N=16,K=8", "M=32,N=16,K=8", "gemm=32x16x8", "GEMM=k=8,m=32,n=16"} {
		r := mustRun(t, 0, "run", "gemm", "-s", size, "--candidates", "^tiled-16$", "--budget", "100ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", "off", "--format", "json")
		f, err := results.Parse([]byte(r.stdout))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Benchmarks) != 1 || f.Benchmarks[0].Shape != "32x16x8" {
			t.Errorf("-s %s measured %+v, want gemm at 32x16x8", size, f.Benchmarks)
		}
	}
}

// TestResultsReaderRefusesWhatTheSchemaForbids feeds compare and report
// files that parse as JSON but break the results schema: each is bad input
// that names the field.
func TestResultsReaderRefusesWhatTheSchemaForbids(t *testing.T) {
	data, err := os.ReadFile(compareData("base.json"))
	if err != nil {
		t.Fatal(err)
	}
	base := string(data)
	cut := func(from, to string) string {
		i := strings.Index(base, from)
		j := strings.Index(base[i:], to)
		return base[:i] + base[i+j+len(to):]
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"no benchmarks", base[:strings.Index(base, `"benchmarks"`)] + `"x": 1}`, `at /: .*missing property 'benchmarks'`},
		{"benchmarks null", base[:strings.Index(base, `"benchmarks"`)] + `"benchmarks": null}`, `at /benchmarks: got null, want array`},
		{"unknown outcome", strings.Replace(base, `"outcome": "measured"`, `"outcome": "great"`, 1), `at /benchmarks/0/outcome: value must be one of`},
		{"no stats", cut(`"stats": {`, `},`), `at /benchmarks/0: missing property 'stats'`},
		{"zero-second sample", zeroSample(base), `at /benchmarks/0/rounds/0/samples_s/0: 0 is not above 0`},
		{"null", "null", `no benchmarks found`},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		wantUsage(t, `in .*`+regexp.QuoteMeta(filepath.Base(path))+`: .*`+tc.want, "compare", path, compareData("base.json"))
		wantUsage(t, tc.want, "report", path, "-o", filepath.Join(dir, "r.svg"))
	}
	// Version 1's zero-second samples, which its schema allowed.
	v1, err := os.ReadFile(compareData("v1-base.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "v1-zero.json")
	if err := os.WriteFile(path, []byte(zeroSample(string(v1))), 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, `at /benchmarks/0 \(copy/u32/4096/vec4\): sample 0 is not a time`, "compare", path, path)
}

// zeroSample makes the first sample of a results file zero seconds.
func zeroSample(file string) string {
	i := strings.Index(file, `"samples_s": [`) + len(`"samples_s": [`)
	j := i + strings.IndexAny(file[i:], ",]")
	return file[:i] + "0" + file[j:]
}

// TestCacheWithoutHome: with HOME unset the cache once fell back to a
// /tmp/vkbench folder that every user shared, created 0755 by the first
// (the next got permission denied). Now it is the user's own, made 0700;
// one that another user owns, or others may write, is refused with a
// line that says to pass --cache.
func TestCacheWithoutHome(t *testing.T) {
	needDevice(t)
	tmp := t.TempDir()
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv(store.EnvCache, "")
	t.Setenv("TMPDIR", tmp)
	own := filepath.Join(tmp, fmt.Sprintf("vkbench-%d", os.Getuid()))
	want := filepath.Join(own, "autotune.db")
	if r := mustRun(t, 0, "cache", "path"); strings.TrimSpace(r.stdout) != want {
		t.Errorf("cache path %q, want %q", r.stdout, want)
	}
	mustRun(t, 0, args("tune")...)
	fi, err := os.Stat(own)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("the cache folder %s is %v, want 0700", own, fi.Mode().Perm())
	}
	if _, err := os.Stat(want); err != nil {
		t.Errorf("the tune stored nothing in %s: %v", want, err)
	}
	if err := os.Chmod(own, 0o777); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, `the cache folder .* is not a folder of this user's that only they can write .*set --cache FILE or \$VKBENCH_CACHE`, "tune", "copy")
	if os.Getuid() == 0 {
		// Root can hand the folder to another user.
		if err := os.Chmod(own, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(own, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		wantUsage(t, `the cache folder .* is not a folder of this user's`, "cache", "ls")
	}
	// --cache is always heard.
	mustRun(t, 0, "cache", "ls", "--cache", filepath.Join(tmp, "elsewhere.db"))
}

// TestVerboseAndVersion: -v is verbose in every command (vkbench -v was
// the version); the version is --version.
func TestVerboseAndVersion(t *testing.T) {
	devtest.NeedVulkan(t)
	r := mustRun(t, 0, "--version")
	if r.stdout != "vkbench version "+version+"\n" {
		t.Errorf("--version printed %q", r.stdout)
	}
	r = mustRun(t, 0, "-v")
	if strings.Contains(r.stdout, "vkbench version") || !strings.Contains(r.stdout, "Usage:") {
		t.Errorf("vkbench -v printed the version, not the help:\n%s", r.stdout)
	}
	for _, a := range [][]string{{"cache", "path", "-v"}, {"compare", "-v", compareData("base.json"), compareData("base.json")}, {"devices", "-v"}} {
		mustRun(t, 0, a...)
	}
	needDevice(t)
	r = mustRun(t, 0, args("run", "-v", "--cache", "off")...)
	if !strings.Contains(r.stderr, "autotune: verified") {
		t.Errorf("run -v logged nothing of where the time goes:\n%s", r.stderr)
	}
}

// TestNotVerified: the results of an operation whose manifest says
// "verify": "none" were once shown as "verified".
func TestNotVerified(t *testing.T) {
	needDevice(t)
	path, _ := abManifestWith(t, func(c map[string]any) {})
	run := []string{"run", "--manifest", path, "--size", "1024", "--budget", "100ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", "off"}
	r := mustRun(t, 0, run...)
	if strings.Count(r.stdout, "verified") != 2 || strings.Count(r.stdout, "not verified") != 2 {
		t.Errorf("the table does not say \"not verified\" of each candidate:\n%s", r.stdout)
	}
	r = mustRun(t, 0, append(run, "--format", "json")...)
	f, err := results.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range f.Benchmarks {
		if !slices.Contains(b.Flags, autotune.FlagNotVerified) {
			t.Errorf("%s: flags %v, want %q", b.Name, b.Flags, autotune.FlagNotVerified)
		}
	}
}

// TestOutputKeptOnFailure: a file given with -o keeps what it had when the
// command fails before or during its work, and -o naming the tune cache
// is refused before anything is written.
func TestOutputKeptOnFailure(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "results.json")
	old := "what the last good run wrote\n"
	if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	noDriver := []string{"VK_ICD_FILENAMES=/nonexistent/icd.json", "VK_DRIVER_FILES=/nonexistent/icd.json", "VK_ADD_DRIVER_FILES=", "VKBENCH_VALIDATION=0"}
	for _, tc := range []struct {
		what string
		env  []string
		args []string
		code int
	}{
		{"a bad size", nil, []string{"--size", "0"}, exitUsage},
		{"a missing device", nil, []string{"--device", "7"}, exitUsage},
		{"a missing driver", noDriver, nil, exitDevice},
	} {
		a := append([]string{"run", "copy", "--budget", "100ms", "--quiet", "--cache", "off", "--format", "json", "-o", out}, tc.args...)
		r := vkbenchProcess(t, tc.env, a...)
		if r.code != tc.code {
			t.Errorf("%s: exit status %d, want %d; stderr: %s", tc.what, r.code, tc.code, r.stderr)
		}
		if got, _ := os.ReadFile(out); string(got) != old {
			t.Errorf("%s: -o file now holds %q", tc.what, got)
		}
	}
	cache := filepath.Join(dir, "cache.db")
	mustRun(t, 0, args("tune", "--cache", cache)...)
	before := cacheEntries(t, cache)
	over := regexp.QuoteMeta("-o " + cache + " is " + cache + ", the tune cache's file; writing there would destroy it")
	wantUsage(t, over, append(args("run", "--cache", cache), "-o", cache)...)
	wantUsage(t, over, append(args("tune", "--cache", cache), "-o", cache)...)
	if d := cmp.Diff(before, cacheEntries(t, cache)); d != "" || len(before) == 0 {
		t.Errorf("the cache's entries changed (-before +after):\n%s", d)
	}
	if stray, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(stray) > 0 {
		t.Errorf("temporary files left: %v", stray)
	}
}

// TestEveryCandidateFailed: an operation whose every candidate fails when
// it runs (here one that dispatches more workgroups than the device takes,
// which only the dispatch finds) is a failed run, exit status 1 with the
// operation named, in one round or several; it exited 0. Candidates the
// device cannot run are not failures: run of every built-in operation
// exits 0 on lavapipe, where the tensor-core ones have none. With no other
// operation it speaks of none.
func TestEveryCandidateFailed(t *testing.T) {
	info := needDevice(t)
	too := fmt.Sprint(info.Limits.MaxWorkgroupCount[0] + 1)
	path, name := abManifestWith(t, func(c map[string]any) { c["groups"] = []any{too} })
	for _, count := range []string{"1", "2"} {
		r := mustRun(t, exitRegression, "run", "--manifest", path, "--size", "1024", "--count", count, "--budget", "100ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", "off")
		if !strings.Contains(r.stderr, "could not measure "+name+" at 1024: ") {
			t.Errorf("--count %s: stderr does not name the operation that could not be measured:\n%s", count, r.stderr)
		}
		if strings.Contains(r.stderr, "other operation") {
			t.Errorf("--count %s: of the one operation asked, stderr speaks of others:\n%s", count, r.stderr)
		}
	}
}

// TestOthersNotMeasured: run's failure says that the other operations
// ran only where they were measured. Beside copy too large for the
// device, peak-coopmat-f16 (no candidate lavapipe can run) was measured
// by none: it said "(the other operations ran)"; with peak-fma-f32 too,
// one of the two others was.
func TestOthersNotMeasured(t *testing.T) {
	needDevice(t)
	for _, c := range []struct {
		ops  []string
		want string
	}{
		{[]string{"copy", "peak-coopmat-f16"}, "(no other operation was measured)"},
		{[]string{"copy", "peak-coopmat-f16", "peak-fma-f32"}, "(1 of the other 2 operations was measured)"},
	} {
		args := append([]string{"run"}, c.ops...)
		for _, op := range c.ops[1:] {
			args = append(args, "--size", op+"=1024x64")
		}
		args = append(args, "--size", "copy=100000000", "--budget", "100ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", "off")
		r := mustRun(t, exitRegression, args...)
		if said := strings.Join(strings.Fields(r.stderr), " "); !strings.HasPrefix(said, "vkbench: could not measure copy at 100000000: ") || !strings.HasSuffix(said, c.want) {
			t.Errorf("run %v: stderr does not end %q:\n%s", c.ops, c.want, r.stderr)
		}
	}
}

// abManifestWith writes testdata/manifests/ab/old.json's first operation,
// with "verify": "none" and every candidate on fma_iters.spv, edited by
// edit, to a file of its own; it returns the file and the operation's name.
func abManifestWith(t *testing.T, edit func(candidate map[string]any)) (string, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "manifests", "ab", "old.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	op := m["operations"].([]any)[0].(map[string]any)
	op["verify"] = "none"
	spv, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests", "fma_iters.spv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range op["candidates"].([]any) {
		c.(map[string]any)["spirv"] = spv
		edit(c.(map[string]any))
	}
	path := filepath.Join(t.TempDir(), "edited.json")
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, op["name"].(string)
}

// TestNotACacheLeftAlone: a file that is not a tune cache (a results file
// given as --cache by mistake, a bbolt file of another program) is left
// as it is, its name kept: run, tune and the cache commands refuse it
// before any work, exit 2, naming it and what it is. A bbolt file of
// another program was adopted: run wrote its pipeline cache into it, and
// tune its tables; run warned of a results file and measured.
func TestNotACacheLeftAlone(t *testing.T) {
	needDevice(t)
	results := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(results, []byte(`{"schema": "vkbench.results/v2", "benchmarks": []}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.db")
	foreignBolt(t, other, "users", "sessions")
	for path, says := range map[string]string{
		results: "is not a tune cache; it is left as it is",
		other:   "is a bbolt file of another program (buckets: sessions, users), not a vkbench tune cache; it is left as it is",
	} {
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		notCache := "^vkbench: .*cache " + regexp.QuoteMeta(path+" "+says)
		wantUsage(t, notCache, "run", "copy", "--size", "1024", "--budget", "100ms", "--quiet", "--cache", path)
		wantUsage(t, notCache, "tune", "copy", "--size", "1024", "--budget", "100ms", "--quiet", "--cache", path)
		wantUsage(t, notCache, "cache", "ls", "--cache", path)
		wantUsage(t, notCache, "cache", "show", "copy/u32/1024", "--cache", path)
		if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, orig) {
			t.Errorf("%s changed (%v), want it as it was", path, err)
		}
		if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) > 0 {
			t.Errorf("moved aside: %v", aside)
		}
	}
}

// foreignBolt writes a bbolt file of another program at path: a table of
// each name, with a key in it.
func foreignBolt(t *testing.T, path string, tables ...string) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range tables {
			b, err := tx.CreateBucket([]byte(name))
			if err != nil {
				return err
			}
			if err := b.Put([]byte("k"), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestHangTimeout checks that a candidate whose kernel runs past
// --hang-timeout, as one that never ends would, ends the command with
// exit 3 and one error naming the candidate and the bound, where the
// command waited for the kernel to end; and that what was measured
// before it is kept: the operation before it is printed and written to
// -o, measured, and the lost operation and the one after it are there,
// failed, saying why: long with the loss, short (verified, not yet
// sampled when long hung) not run, not failed with long's loss as it
// once was. Measured once, and in rounds (--count 2, the
// seed putting after then slow in the first round: quick never runs).
// The release's warning that the work still runs is the one driver
// message allowed. The bound is 1s, not less: on a busy machine
// lavapipe's first run of the probe has taken 500ms.
func TestHangTimeout(t *testing.T) {
	for _, v := range []string{"0s", "-1s"} {
		wantUsage(t, `^vkbench: --hang-timeout `+v+`: want a positive duration`, "run", "copy", "--hang-timeout", v, "--cache", "off")
	}
	m := hangManifest(t)
	out := filepath.Join(t.TempDir(), "out.json")
	for _, count := range []string{"1", "2"} {
		args := []string{"run", "--manifest", m, "--cache", "off", "--hang-timeout", "1s", "--budget", "100ms", "--count", count, "--seed", "3"}
		if count == "2" {
			args = append(args, "--format", "json", "-o", out)
		}
		// A process of its own: the long kernel goes on running in the
		// process that left it, and would slow what runs after it there.
		cmd := exec.CommandContext(context.Background(), os.Args[0], args...)
		cmd.Env = append(os.Environ(), "VKBENCH_TEST_MAIN=1")
		var stdout, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		stderr := regexp.MustCompile(`(?m)^vkbench: warning: vk: the GPU did not finish its work in time.*\n`).ReplaceAllString(errb.String(), "")
		checkDriverMessages(t, args, stderr)
		// The line leads with what happened, no code, "vk: " once.
		line := regexp.MustCompile(`^vkbench: running long: vk: device lost: a submission has run for \S+ without finishing, past the hang timeout of 1s: .*; if the kernel is only slow, give it longer with --hang-timeout\n$`)
		if code != 3 || !line.MatchString(stderr) {
			t.Errorf("vkbench %s: exit %d, stderr:\n%s\nwant exit 3 and one line naming the candidate long and the bound, matching %s", strings.Join(args, " "), code, errb.String(), line)
		}
		if count == "1" {
			for _, want := range []string{
				`(?m)^  \*  short +[0-9.]+[mµ]?s `,
				`(?m)^  quick f32 +262144 +short `,
				`(?m)^slow f32, size 262144: 1 failed: 1× running\s+long: vk: device lost[^;]*; 1 not\s+run:\s+1×\s+the\s+device\s+was\s+lost\s+before,\s+measuring\s+long$`,
				`(?m)^after f32, size 262144: not run: the device was lost before, measuring slow$`,
			} {
				if !regexp.MustCompile(want).MatchString(stdout.String()) {
					t.Errorf("vkbench %s: stdout does not match %s:\n%s", strings.Join(args, " "), want, stdout.String())
				}
			}
			if strings.Contains(stdout.String(), "DEADLINE_EXCEEDED") {
				t.Errorf("the table shows a status code:\n%s", stdout.String())
			}
			if strings.Contains(stdout.String(), "dropped early or that the device cannot run") {
				t.Errorf("the legend speaks of candidates dropped or unsupported, where none was:\n%s", stdout.String())
			}
			continue
		}
		f, err := results.ReadFile(out)
		if err != nil {
			t.Fatalf("-o %s: %v", out, err)
		}
		got := map[string]string{}
		for _, b := range f.Benchmarks {
			got[b.Op+"/"+b.Candidate] = string(b.Outcome) + " " + b.Error
		}
		lost := regexp.MustCompile(`^failed DATA_LOSS: running long: .*past the hang timeout of 1s`)
		notRun := "not run the device was lost before, measuring "
		if len(got) != 4 || got["after/short"] != "measured " || got["quick/short"] != notRun+"slow" || got["slow/short"] != notRun+"long" || !lost.MatchString(got["slow/long"]) {
			t.Errorf("-o holds %v, want after measured before the hang, slow's long failed naming it, slow's short not run, quick %q", got, notRun+"slow")
		}
	}
}

// hangManifest writes a manifest of three operations of
// testdata/manifests/hang.json's kernels, and returns its path: quick
// (its short candidate), then slow (hang.json's operation, whose long
// candidate runs for seconds), then after (short again).
func hangManifest(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "hang.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	slow := m["operations"].([]any)[0].(map[string]any)
	var ops []any
	for _, name := range []string{"quick", "slow", "after"} {
		op := maps.Clone(slow)
		op["name"] = name
		var cands []any
		for _, c := range slow["candidates"].([]any) {
			c := maps.Clone(c.(map[string]any))
			c["spirv"] = filepath.Join(dir, c["spirv"].(string))
			if name == "slow" || c["name"] == "short" {
				cands = append(cands, c)
			}
		}
		op["candidates"] = cands
		ops = append(ops, op)
	}
	m["operations"] = ops
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hang3.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
