package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
)

// saxpyOp is a manifest operation of the example saxpy kernels: name,
// the reference candidate's name, and the candidates' JSON.
func saxpyOp(name, ref string, cands ...string) string {
	return fmt.Sprintf(`{
    "name": %q,
    "dims": {"N": 4096},
    "buffers": [
      {"name": "x", "type": "f32", "len": "N", "binding": 0},
      {"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout"}
    ],
    "push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
    "bytes": "12*N", "flops": "2*N",
    "verify": {"reference": %q, "tolerance": {"rel": 1e-6, "abs": 1e-6}},
    "candidates": [%s]
  }`, name, ref, strings.Join(cands, ",\n"))
}

const (
	scalarCand = `{"name": "scalar", "spirv": "SPV/saxpy.spv", "groups": ["div_up(N, 256)"]}`
	// vec4Cand asserts what it needs of the size (and more, as a kernel
	// might: a multiple of 1000).
	vec4Cand = `{"name": "vec4", "spirv": "SPV/saxpy_vec4.spv", "workgroup": [128], "assert": ["N % ASSERT == 0"],
       "push_constants": [{"type": "u32", "value": "N / 4"}, {"type": "f32", "value": 2.5}],
       "groups": ["div_up(N / 4, local_size_x)"]}`
)

// writeManifest writes a manifest of ops (top-level fields extra, such as
// a tuner) named file into a temporary folder, its kernels those of
// testdata/manifests, and returns its path.
func writeManifest(t *testing.T, file, extra string, ops ...string) string {
	t.Helper()
	spv, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`{"schema": "vkbench.manifest/v1", %s "operations": [%s]}`, extra, strings.Join(ops, ",\n"))
	path := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "SPV/", spv+"/")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOperationRefusesSize: an operation whose reference candidate cannot
// run at the size asked (its assert refuses it) is reported failed, each
// candidate with the reason, and the next operation still runs; the exit
// status is 1, not a device failure's 3. Measured once and in rounds.
func TestOperationRefusesSize(t *testing.T) {
	needDevice(t)
	m := writeManifest(t, "ops.json", "",
		saxpyOp("needs4", "vec4", strings.ReplaceAll(vec4Cand, "ASSERT", "4"), scalarCand),
		saxpyOp("plain", "scalar", scalarCand))
	for _, count := range []string{"1", "6"} {
		r := vkbench(t, "run", "needs4", "plain", "--manifest", m, "--size", "N=1001", "--count", count,
			"--cache", "off", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "-q", "--format", "json")
		if r.code != exitRegression {
			t.Fatalf("--count %s: exit %d, want %d\n%s", count, r.code, exitRegression, r.stderr)
		}
		if !strings.Contains(r.stderr, "could not measure needs4 at 1001") || !strings.Contains(r.stderr, `fails the candidate's assert "N % 4 == 0"`) {
			t.Errorf("--count %s: stderr does not say which operation failed and why:\n%s", count, r.stderr)
		}
		f, err := results.Parse([]byte(r.stdout))
		if err != nil {
			t.Fatalf("--count %s: %v", count, err)
		}
		got := map[string]string{}
		for _, b := range f.Benchmarks {
			got[b.Op+"/"+b.Candidate] = string(b.Outcome)
			if b.Op == "needs4" && !strings.Contains(b.Error, "the reference candidate \"vec4\" cannot run") {
				t.Errorf("--count %s: %s: error %q does not give the reason", count, b.Name, b.Error)
			}
		}
		want := map[string]string{"needs4/vec4": "failed", "needs4/scalar": "failed", "plain/scalar": "measured"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("--count %s: %s is %q, want %q (all: %v)", count, k, got[k], v, got)
			}
		}
	}
}

// TestTuneBucketKeepsValidCandidate: a candidate whose assert holds at
// the size asked (3000, a multiple of 1000) but not at its bucket's
// representative shape (4096) is measured at the size asked, not reported
// failed; an operation without such a candidate is measured at the
// bucket's shape, and stderr says so. The winners go to the manifest's
// own table of the tune cache, named by its "tuner".
func TestTuneBucketKeepsValidCandidate(t *testing.T) {
	needDevice(t)
	m := writeManifest(t, "mine.json", `"tuner": "my-kernels",`,
		saxpyOp("thousands", "scalar", scalarCand, strings.ReplaceAll(vec4Cand, "ASSERT", "1000")),
		saxpyOp("plain", "scalar", scalarCand))
	cache := filepath.Join(t.TempDir(), "cache.db")
	r := mustRun(t, 0, "tune", "thousands", "plain", "--manifest", m, "--size", "N=3000", "--cache", cache,
		"--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "-q", "--format", "json")
	f, err := results.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range f.Benchmarks {
		switch b.Op {
		case "thousands":
			if b.Shape != "3000" || b.Outcome == results.Failed || b.Outcome == results.Unsupported {
				t.Errorf("%s: measured at %s, %s %s; want 3000 and measured", b.Name, b.Shape, b.Outcome, b.Error)
			}
		case "plain":
			if b.Shape != "4096" {
				t.Errorf("%s: measured at %s; want the bucket's 4096", b.Name, b.Shape)
			}
		}
	}
	if !strings.Contains(r.stderr, "plain/f32/4096: measured at 4096, the shape that stands for 3000's bucket") {
		t.Errorf("stderr does not say that plain was measured at its bucket's shape:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "thousands/f32/4096") {
		t.Errorf("thousands was tuned under its bucket's key:\n%s", r.stderr)
	}
	ls := mustRun(t, 0, "cache", "ls", "--cache", cache)
	if !strings.Contains(ls.stdout, "/my-kernels (2 entries)") || strings.Contains(ls.stdout, "/builtin") {
		t.Errorf("the manifest's winners are not in its own table my-kernels:\n%s", ls.stdout)
	}

	// Without a "tuner", the table is named after the manifest's file;
	// "builtin" is refused, naming the field.
	other := writeManifest(t, "team-gemm.json", "", saxpyOp("plain", "scalar", scalarCand))
	mustRun(t, 0, "tune", "--manifest", other, "--size", "N=4096", "--cache", cache, "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "-q")
	if ls := mustRun(t, 0, "cache", "ls", "--cache", cache); !strings.Contains(ls.stdout, "/team-gemm (1 entry)") {
		t.Errorf("a manifest without a tuner is not in a table named after its file:\n%s", ls.stdout)
	}
	// --all-devices commits to the manifest's table too.
	fleet := writeManifest(t, "fleet.json", "", saxpyOp("plain", "scalar", scalarCand))
	mustRun(t, 0, "tune", "--all-devices", "--manifest", fleet, "--size", "N=4096", "--cache", cache, "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "-q")
	if ls := mustRun(t, 0, "cache", "ls", "--cache", cache); !strings.Contains(ls.stdout, "/fleet (1 entry)") {
		t.Errorf("tune --all-devices did not commit a manifest's winners to its table:\n%s", ls.stdout)
	}
	bad := writeManifest(t, "bad.json", `"tuner": "builtin",`, saxpyOp("plain", "scalar", scalarCand))
	r = vkbench(t, "tune", "--manifest", bad, "--cache", cache, "-q")
	if r.code != exitUsage || !strings.Contains(r.stderr, `"builtin" is not a tuner name`) || !strings.Contains(r.stderr, "tuner") {
		t.Errorf("a manifest taking the built-in table: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestManifestBuiltinName: a manifest operation may not take a built-in
// operation's name, which would make --ops ambiguous.
func TestManifestBuiltinName(t *testing.T) {
	path := writeManifest(t, "copy.json", "", saxpyOp("copy", "scalar", scalarCand))
	_, err := new(benchFlags).loadManifest(path, manifest.Options{})
	if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), `operation "copy" has the name of a built-in operation`) {
		t.Errorf("loading a manifest with an operation named copy: %v, want a usage error naming copy", err)
	}
}
