package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
)

// TestMain leaves the examples out where tests may skip and there is no
// Vulkan device: an example cannot skip (see testenv).
func TestMain(m *testing.M) {
	devtest.SkipExamplesWithoutVulkan()
	os.Exit(m.Run())
}

//go:generate sh ../testdata/manifests/gen.sh

const manifestDir = "../testdata/manifests"

// manifestSizes are the sizes each manifest operation is verified at,
// besides its default: sizes that are multiples of nothing, of
// everything, and degenerate ones.
var manifestSizes = map[string][]kernels.Size{
	"saxpy": {kernels.SizeOf(65536), kernels.SizeOf(4), kernels.SizeOf(1)},
	"sum":   {kernels.SizeOf(1), kernels.SizeOf(64), kernels.SizeOf(65537), kernels.SizeOf(1 << 18)},
	// 70000 rows need more workgroups than a device must allow in x
	// (65535): the row-per-workgroup candidates fold their grid into y.
	"matvec":    {kernels.SizeOf(1, 1), kernels.SizeOf(64, 1024), kernels.SizeOf(129, 3), kernels.SizeOf(70000, 2)},
	"histogram": {kernels.SizeOf(3), kernels.SizeOf(4096)},
	// K = 10000 needs 40000 bytes of shared memory for rows-shared-wg128,
	// which its assert refuses on a device with less (lavapipe has 32 KiB).
	"matvec-const": {kernels.SizeOf(1, 1), kernels.SizeOf(64, 1024), kernels.SizeOf(129, 3), kernels.SizeOf(70, 10000)},
	"fma-loop":     {kernels.SizeOf(1), kernels.SizeOf(1000), kernels.SizeOf(4096)},
	// One pass, exactly one level (64), two, and four (2²⁰ > 64³).
	"sum-inplace": {kernels.SizeOf(1), kernels.SizeOf(64), kernels.SizeOf(65), kernels.SizeOf(4097), kernels.SizeOf(1 << 20)},
}

// wrongCandidates are the candidates kernels.json describes wrongly on
// purpose.
var wrongCandidates = map[string]bool{"saxpy/wrong-alpha": true}

func loadTestManifest(t testing.TB) []kernels.Operation {
	t.Helper()
	ops, err := manifest.Load(filepath.Join(manifestDir, "kernels.json"))
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

func TestManifestLoads(t *testing.T) {
	ops := loadTestManifest(t)
	type summary struct {
		Name  string
		Dims  []string
		DType string
		Cands []string
	}
	var got []summary
	for _, op := range ops {
		s := summary{Name: op.Name(), Dims: op.Dims(), DType: op.DType().String()}
		for _, c := range op.Candidates() {
			s.Cands = append(s.Cands, c.Name)
		}
		got = append(got, s)
	}
	want := []summary{
		{"saxpy", []string{"N"}, "f32", []string{"scalar", "vec4-wg64", "vec4-wg128-u4", "wrong-alpha"}},
		{"sum", []string{"N"}, "f32", []string{"twopass-wg64-g32", "twopass-wg256-g16", "tree-wg64", "tree-wg256"}},
		{"matvec", []string{"M", "K"}, "f32", []string{"row-per-invocation", "row-per-workgroup-64", "row-per-workgroup-256"}},
		{"histogram", []string{"N"}, "u32", []string{"global-atomics", "shared-wg128-g64", "shared-wg256-g32"}},
		{"matvec-const", []string{"M", "K"}, "f32", []string{"rows-wg64", "rows-shared-wg128"}},
		{"fma-loop", []string{"N"}, "f32", []string{"loop16", "loop64", "loop256"}},
		{"sum-inplace", []string{"N"}, "u32", []string{"tree-wg64"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	// What the modules say reaches the candidates: the workgroup size from
	// local_size_x_id set by "workgroup", the shared memory declared.
	saxpy, sum := ops[0].Candidates(), ops[1].Candidates()
	if c := saxpy[1]; c.WorkgroupSize != [3]uint32{64, 1, 1} || !hasConstant(c.Constants, 0, 64) || c.PushConstantSize != 8 || c.Bindings != 2 {
		t.Errorf("saxpy/vec4-wg64 = %+v", c)
	}
	if c := sum[1]; c.WorkgroupSize != [3]uint32{256, 1, 1} || c.Requires.SharedMemory != 1024 {
		t.Errorf("sum/twopass-wg256-g16 = %+v, want a workgroup of 256 and 1 KiB of shared memory", c)
	}
	// The digest covers the whole description: the same manifest gives
	// the same candidates, another dispatch geometry other ones.
	again := loadTestManifest(t)
	if kernels.Digest(again[0].Candidates()) != kernels.Digest(saxpy) {
		t.Error("the digest of the same manifest changed")
	}
	data, err := os.ReadFile(filepath.Join(manifestDir, "kernels.json"))
	if err != nil {
		t.Fatal(err)
	}
	changed, err := manifest.Parse([]byte(strings.Replace(string(data), `"groups": ["div_up(N, local_size_x)"]`, `"groups": ["div_up(N, 256)"]`, 1)), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	if kernels.Digest(changed[0].Candidates()) == kernels.Digest(saxpy) {
		t.Error("changing a candidate's groups left the digest as it was")
	}
}

// TestBenchManifestsLoad loads the manifests the GPU machine's scripts
// run (bench/*.json), whose modules and layouts no other test reads, so
// that they cannot rot between calls there.
func TestBenchManifestsLoad(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "bench", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 2 {
		t.Fatalf("bench manifests %v: want gemm_parts.json and l2.json at least", paths)
	}
	for _, path := range paths {
		ops, err := manifest.Load(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, op := range ops {
			if len(op.Candidates()) == 0 {
				t.Errorf("%s: %s has no candidates", path, op.Name())
			}
		}
	}
}

// TestManifestREADMEExample loads the first example of the format's
// documentation, docs/manifest.md, so that it stays true, and checks
// that every file it names in testdata/manifests exists.
func TestManifestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "docs", "manifest.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`([a-z0-9_]+\\.(json|comp|glsl))`").FindAllStringSubmatch(string(readme), -1) {
		found := false
		for _, dir := range []string{manifestDir, filepath.Join(manifestDir, "ab"), filepath.Join("..", "bench")} {
			if _, err := os.Stat(filepath.Join(dir, m[1])); err == nil {
				found = true
			}
		}
		if !found {
			t.Errorf("docs/manifest.md names %s, which is not in testdata/manifests", m[1])
		}
	}
	_, rest, ok := strings.Cut(string(readme), "```json\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/manifest.md has no JSON example")
	}
	ops, err := manifest.Parse([]byte(example), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || len(ops[0].Candidates()) != 2 || ops[0].Candidates()[1].WorkgroupSize != [3]uint32{128, 1, 1} {
		t.Errorf("the example loads as %d operations: %+v", len(ops), ops)
	}
}

// ExampleLoad loads kernels a project brings, described by a
// manifest; the tuner measures them as it does the built-in operations
// (autotune.Measure, autotune.Tuner.Fastest).
func ExampleLoad() {
	ops, err := manifest.Load("../testdata/manifests/kernels.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range ops {
		fmt.Printf("%s %v %s:", op.Name(), op.Dims(), op.DType())
		for _, c := range op.Candidates() {
			fmt.Printf(" %s", c.Name)
		}
		fmt.Println()
	}
	_, err = manifest.Load("../testdata/manifests/bad/bad_expression.json")
	fmt.Println(err)
	// Output:
	// saxpy [N] f32: scalar vec4-wg64 vec4-wg128-u4 wrong-alpha
	// sum [N] f32: twopass-wg64-g32 twopass-wg256-g16 tree-wg64 tree-wg256
	// matvec [M K] f32: row-per-invocation row-per-workgroup-64 row-per-workgroup-256
	// histogram [N] u32: global-atomics shared-wg128-g64 shared-wg256-g32
	// matvec-const [M K] f32: rows-wg64 rows-shared-wg128
	// fma-loop [N] f32: loop16 loop64 loop256
	// sum-inplace [N] u32: tree-wg64
	// INVALID_ARGUMENT: manifest: ../testdata/manifests/bad/bad_expression.json:42:13: operations[0].candidates[0].groups[0]: expression "div_up(N, 256" at column 14: missing ')' to close the call of div_up at column 1
}

func hasConstant(cs []hal.Constant, id, value uint32) bool {
	for _, c := range cs {
		if c.ID == id && c.Value == value {
			return true
		}
	}
	return false
}

// TestManifestCandidatesVerify runs every candidate of the test manifest
// on the device at several sizes: each verifies against the reference,
// except the deliberately wrong one, and candidates whose assert refuses
// a size say so.
func TestManifestCandidatesVerify(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	for _, op := range loadTestManifest(t) {
		t.Run(op.Name(), func(t *testing.T) {
			sizes := append([]kernels.Size{op.DefaultSize(dev.Info())}, manifestSizes[op.Name()]...)
			for _, size := range sizes {
				for i, c := range op.Candidates() {
					err := kernels.VerifyCandidate(ctx, dev, op, size, i, 20261130)
					name := op.Name() + "/" + c.Name
					switch {
					case wrongCandidates[name]:
						if !errors.Is(err, kernels.ErrWrongResult) || !strings.Contains(err.Error(), "tolerance") {
							t.Errorf("%s at %v: got %v, want a wrong result that names the tolerance", name, size, err)
						}
					case err != nil && strings.HasPrefix(c.Name, "vec4") && size.Dim(0)%4 != 0:
						if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), `assert "N % 4 == 0"`) {
							t.Errorf("%s at %v: got %v, want the candidate's assert to refuse the size", name, size, err)
						}
					case name == "matvec-const/rows-shared-wg128" && 4*size.Dim(1) > int(dev.Info().Limits.MaxSharedMemory):
						if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), `assert "4*K <= max_shared_memory"`) {
							t.Errorf("%s at %v: got %v, want the device to fail its assert", name, size, err)
						}
					case err != nil:
						t.Errorf("%s at %v: %v", name, size, err)
					}
				}
			}
		})
	}
}

// TestManifestPrepareErrors checks what only a device can tell: sizes
// past its limits, and a reference candidate it cannot run.
func TestManifestPrepareErrors(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	saxpy := loadTestManifest(t)[0]
	for _, tt := range []struct {
		size kernels.Size
		code status.Code
		says string
	}{
		{kernels.SizeOf(1 << 30), status.OutOfRange, "maxStorageBufferRange"},
		{kernels.SizeOf(1, 2), status.InvalidArgument, `takes 1 dimension [N], not 2`},
		{kernels.SizeOf(0), status.InvalidArgument, "outside [1, 2³¹)"},
	} {
		p, err := saxpy.Prepare(ctx, dev, tt.size, 1)
		if err == nil {
			_ = p.Release()
			t.Errorf("size %v: prepared, want an error", tt.size)
			continue
		}
		if status.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("size %v: %v, want %v saying %q", tt.size, err, tt.code, tt.says)
		}
	}
	data, err := os.ReadFile(filepath.Join(manifestDir, "kernels.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `{"name": "scalar", "spirv": "saxpy.spv",`, `{"name": "scalar", "requires": {"shared_memory": 4000000000}, "spirv": "saxpy.spv",`, 1)
	ops, err := manifest.Parse([]byte(text), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ops[0].Prepare(ctx, dev, kernels.SizeOf(1024), 1)
	if err == nil {
		_ = p.Release()
		t.Fatal("prepared with a reference the device cannot run")
	}
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), `reference candidate "scalar" cannot run`) {
		t.Errorf("got %v, want FAILED_PRECONDITION naming the reference", err)
	}
}

// quick are measurement options that keep tests short on a CPU device.
var quick = autotune.Options{
	TargetHalfWidth: 0.1,
	Budget:          time.Second,
	MinSamples:      stats.MinIntervalSamples,
	MaxSamples:      10,
	MinSampleTime:   100 * time.Microsecond,
	MaxBatch:        4,
	Version:         "test",
}

// TestManifestMeasure measures manifest operations the way vkbench run
// does: the wrong candidate fails, the others are measured, and the tuner
// picks one of them.
func TestManifestMeasure(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	ops := loadTestManifest(t)
	for _, op := range ops {
		size := op.DefaultSize(dev.Info())
		e, err := autotune.Measure(ctx, dev, op, size, quick)
		if err != nil {
			t.Fatalf("%s: %v", op.Name(), err)
		}
		for _, r := range e.Results {
			t.Logf("%s at %v: %s %s %s", op.Name(), size, r.Name, r.Outcome, r.Error)
			name := op.Name() + "/" + r.Name
			switch {
			case wrongCandidates[name]:
				if r.Outcome != results.Wrong || !strings.Contains(r.Error, "wrong result") {
					t.Errorf("%s: %+v, want failed with a wrong result", name, r)
				}
			case strings.HasPrefix(r.Name, "vec4") && size.Dim(0)%4 != 0:
				if r.Outcome != results.Failed || !strings.Contains(r.Error, "assert") {
					t.Errorf("%s: %+v, want failed on its assert", name, r)
				}
			case r.Outcome != results.Measured && r.Outcome != results.Dropped:
				t.Errorf("%s: %+v, want measured or dropped", name, r)
			}
		}
		if e.Fastest < 0 || wrongCandidates[op.Name()+"/"+e.FastestName] {
			t.Errorf("%s: fastest %d %q", op.Name(), e.Fastest, e.FastestName)
		}
	}
	cache := tempCache(t)
	tu := autotune.NewTuner(dev, cache, quick)
	best, err := tu.Fastest(ctx, ops[0], kernels.SizeOf(50000))
	if err != nil {
		t.Fatal(err)
	}
	if name := ops[0].Candidates()[best].Name; name == "wrong-alpha" {
		t.Errorf("the tuner picked %s", name)
	}
}

// TestManifestErrors loads each malformed manifest of testdata/manifests/bad
// and checks that its error has the right code and names the file, the
// field and what is wrong.
func TestManifestErrors(t *testing.T) {
	tests := []struct {
		file  string
		code  status.Code
		field string
		says  string
	}{
		{"missing_schema", status.InvalidArgument, "schema", "missing"},
		{"wrong_schema", status.InvalidArgument, "schema", `unsupported version "vkbench.manifest/v9"`},
		{"malformed_json", status.InvalidArgument, "4:22", "malformed JSON"},
		{"missing_groups", status.InvalidArgument, "operations[0].candidates[0].groups", "missing"},
		{"missing_buffer_len", status.InvalidArgument, "operations[0].buffers[1].len", "missing"},
		{"missing_verify", status.InvalidArgument, "operations[0].verify", "missing"},
		{"unknown_field", status.InvalidArgument, "operations[0].candidates[0].grups", `unknown field (did you mean "groups"?`},
		{"bad_expression", status.InvalidArgument, "operations[0].candidates[0].groups[0]", "at column 14: missing ')'"},
		{"unknown_dimension", status.InvalidArgument, "operations[0].buffers[0].len", `at column 1: unknown name "M"`},
		{"ceil_of_integers", status.InvalidArgument, "operations[0].candidates[0].groups[0]", "use div_up"},
		{"division_by_zero", status.InvalidArgument, "operations[0].candidates[0].groups[0]", "at column 3: division by zero"},
		{"missing_param", status.InvalidArgument, "operations[0].candidates[0].groups[0]", `unknown name "WG"`},
		{"float_push_constant_for_u32", status.InvalidArgument, "operations[0].push_constants[0].value", "is a float"},
		{"unknown_type", status.InvalidArgument, "operations[0].buffers[0].type", `unknown type "float"`},
		{"unknown_reference", status.InvalidArgument, "operations[0].verify.reference", `no candidate "naive"`},
		{"missing_spirv_file", status.NotFound, "operations[0].candidates[0].spirv", "nothing_here.spv"},
		{"not_spirv", status.InvalidArgument, "operations[0].candidates[0].spirv", "not SPIR-V: magic number"},
		{"truncated_spirv", status.InvalidArgument, "operations[0].candidates[0].spirv", "past the module's end"},
		{"missing_entry_point", status.InvalidArgument, "operations[0].candidates[0].entry", `../saxpy.spv: spirv: no GLCompute entry point "saxpy_main" (the module has ["main"])`},
		{"binding_without_buffer", status.InvalidArgument, "operations[0].candidates[0]", "binding 1, which entry point \"main\" of ../saxpy.spv uses, has no buffer"},
		{"workgroup_mismatch", status.InvalidArgument, "operations[0].candidates[0].workgroup", "fixes local_size_x of \"main\" at 256"},
		{"push_constants_too_small", status.InvalidArgument, "operations[0].push_constants", "reads 8 bytes of push constants"},
		{"workgroup_in_constant", status.InvalidArgument, `operations[0].candidates[0].constants."1"`, "local_size_x cannot be used here: it is the dispatch's workgroup size, and constants and the workgroup are what set it"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file+".json"] = true
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(manifestDir, "bad", tt.file+".json")
			ops, err := manifest.Load(path)
			if err == nil {
				t.Fatalf("loaded %d operations, want an error", len(ops))
			}
			msg := err.Error()
			if got := status.CodeOf(err); got != tt.code {
				t.Errorf("code %v, want %v: %v", got, tt.code, err)
			}
			for _, want := range []string{path, tt.field, tt.says} {
				if !strings.Contains(msg, want) {
					t.Errorf("error does not say %q:\n%v", want, msg)
				}
			}
		})
	}
	files, err := filepath.Glob(filepath.Join(manifestDir, "bad", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s is not in the table", f)
		}
	}
}

// TestManifestErrorsInline covers more malformed manifests, written
// inline as changes to a valid one.
func TestManifestErrorsInline(t *testing.T) {
	valid := `{
  "schema": "vkbench.manifest/v1",
  "operations": [{
    "name": "saxpy",
    "dims": {"N": 1024},
    "buffers": [
      {"name": "x", "type": "f32", "len": "N", "binding": 0},
      {"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout"}
    ],
    "push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
    "verify": {"reference": "scalar"},
    "candidates": [{"name": "scalar", "params": {"VEC": 1}, "spirv": "../saxpy.spv", "groups": ["div_up(N, 256)"]}]
  }]
}`
	if _, err := manifest.Parse([]byte(valid), filepath.Join(manifestDir, "bad")); err != nil {
		t.Fatalf("the base manifest does not load: %v", err)
	}
	tests := []struct {
		name, old, new string
		says           []string
	}{
		{"bad op name", `"name": "saxpy"`, `"name": "Saxpy"`, []string{"operations[0].name", "not an operation name"}},
		{"dims empty", `{"N": 1024}`, `{}`, []string{"operations[0].dims", "is empty"}},
		{"too many dims", `{"N": 1024}`, `{"N": 1024, "A": 1, "B": 1, "C": 1, "D": 1}`, []string{"operations[0].dims", "has 5 dimensions; an operation has at most 4"}},
		{"dim zero", `"N": 1024`, `"N": 0`, []string{`operations[0].dims.N`, "outside [1,"}},
		{"dims differ in case", `{"N": 1024}`, `{"N": 1024, "n": 8}`, []string{"operations[0].dims.n", `differs from dimension "N" only in case`}},
		{"reserved dim", `"N": 1024`, `"pass": 1024`, []string{"operations[0].dims.pass", "reserved"}},
		{"role", `"role": "inout"`, `"role": "in-out"`, []string{"operations[0].buffers[1].role", `unknown role "in-out"`}},
		{"init on output", `"role": "inout"`, `"role": "output", "init": "zeros"`, []string{"operations[0].buffers[1].init", `a buffer of role "output" is not initialised`, "use role \"inout\""}},
		{"bad init", `"role": "inout"`, `"role": "inout", "init": "ones"`, []string{"operations[0].buffers[1].init", `unknown init "ones"`}},
		{"duplicate binding", `"binding": 1`, `"binding": 0`, []string{"operations[0].buffers[1].binding", "already buffer \"x\"'s"}},
		{"duplicate key", `"name": "saxpy",`, `"name": "saxpy", "name": "saxpy2",`, []string{"operations[0].name", "given twice"}},
		{"unknown function", `"div_up(N, 256)"`, `"divup(N, 256)"`, []string{"groups[0]", `unknown function "divup" (did you mean div_up?)`}},
		{"trailing garbage", `"div_up(N, 256)"`, `"div_up(N, 256) 3"`, []string{"groups[0]", "at column 16: unexpected \"3\""}},
		{"float groups", `"div_up(N, 256)"`, `"N / 256.0"`, []string{"groups[0]", "is a float; a workgroup count must be an integer"}},
		{"too many groups", `["div_up(N, 256)"]`, `[1, 1, 1, 1]`, []string{"operations[0].candidates[0].groups", "want 1 to 3"}},
		{"zero groups", `"div_up(N, 256)"`, `"N - 1024"`, []string{"groups[0]", "is 0; a dispatch needs 1 or more workgroups"}},
		{"push out of range", `"value": "N"`, `"value": "N - 2000"`, []string{"push_constants[0].value", "outside u32's range"}},
		{"negative length", `"len": "N", "binding": 0`, `"len": "N - 2048", "binding": 0`, []string{"operations[0].buffers[0].len", "is -1024 elements"}},
		{"op assert fails at default", `"dims"`, `"assert": ["N % 1000 == 0"], "dims"`, []string{"operations[0].assert[0]", "fails the operation's assert"}},
		{"device in bytes", `"verify"`, `"bytes": "N * subgroup_size", "verify"`, []string{"operations[0].bytes", "subgroup_size cannot be used here: it is a limit of the device"}},
		{"pass in assert", `"dims"`, `"assert": ["pass < 2"], "dims"`, []string{"operations[0].assert[0]", "pass cannot be used here: it counts the repeats of a dispatch"}},
		{"index outside expect", `"len": "N", "binding": 0`, `"len": "i", "binding": 0`, []string{"operations[0].buffers[0].len", "i cannot be used here: it is the element index of an expected value"}},
		{"dispatches and groups", `"groups": ["div_up(N, 256)"]`, `"groups": [1], "dispatches": [{"groups": [1]}]`, []string{"operations[0].candidates[0].groups", "gives each dispatch its own groups"}},
		{"candidate constants not an object", `"groups": ["div_up(N, 256)"]}`, `"constants": 5, "dispatches": [{"groups": ["div_up(N, 256)"], "constants": {}}]}`, []string{"operations[0].candidates[0].constants", "is a number, want an object"}},
		{"dispatch constants not an object", `"groups": ["div_up(N, 256)"]}`, `"constants": {}, "dispatches": [{"groups": ["div_up(N, 256)"], "constants": "VEC"}]}`, []string{"operations[0].candidates[0].dispatches[0].constants", "is a string, want an object"}},
		{"unknown binding buffer", `"groups": ["div_up(N, 256)"]`, `"groups": ["div_up(N, 256)"], "bindings": ["x", "z"]`, []string{"operations[0].candidates[0].bindings[1]", `no buffer "z"`}},
		{"tolerance on ints", `"type": "f32", "len": "N", "binding": 0`, `"type": "u32", "len": "N", "binding": 0, "tolerance": {"rel": 1}`, []string{"operations[0].buffers[0].tolerance", "compared exactly"}},
		{"not an object", `"verify": {`, `"verify": 3, "x": {`, []string{"operations[0].verify", "is a number"}},
		{"expect on input", `"len": "N", "binding": 0`, `"len": "N", "binding": 0, "expect": "i"`, []string{"operations[0].buffers[0].expect", "only output and inout buffers are checked"}},
		{"expect unchecked", `"role": "inout"`, `"role": "inout", "check": false, "expect": "i"`, []string{"operations[0].buffers[1].expect", `not checked ("check": false)`}},
		{"float expect of integers", `"type": "f32", "len": "N", "binding": 1`, `"type": "u32", "len": "N", "binding": 1, "expect": "i / 2.0"`, []string{"operations[0].buffers[1].expect", "is a float; a u32 buffer holds integers"}},
		// An expected value is worked out at the first and the last element
		// checked: a stencil's x[i + 1] reads past the end only at the last.
		{"expect past the end", `"role": "inout"`, `"role": "inout", "expect": "x[i] + x[i + 1]"`, []string{"operations[0].buffers[1].expect", `at i = 1023`, `x[1024] is outside the buffer's 1024 elements`}},
		{"device in expect", `"role": "inout"`, `"role": "inout", "expect": "subgroup_size"`, []string{"operations[0].buffers[1].expect", "subgroup_size cannot be used here: it is a limit of the device"}},
		{"no reference, no expect", `"verify": {"reference": "scalar"}`, `"verify": {}`, []string{"operations[0].verify", `names no reference candidate, and buffer "y" has no "expect"`}},
		{"expect with verify none", `"role": "inout"}
    ],
    "push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
    "verify": {"reference": "scalar"}`, `"role": "inout", "expect": "i"}
    ],
    "push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
    "verify": "none"`, []string{"operations[0].buffers[1].expect", `"verify" is "none", which checks nothing`}},
		{"check past the end", `"role": "inout"`, `"role": "inout", "check": {"first": "N", "count": 1}`, []string{"operations[0].buffers[1]", `check: elements 1024 to 1024 (first 1024, count 1) are not all in buffer "y" of 1024`}},
		{"check of a float", `"role": "inout"`, `"role": "inout", "check": {"count": "N / 2.0"}`, []string{"operations[0].buffers[1].check.count", "is a float"}},
		{"pass in repeat", `"groups": ["div_up(N, 256)"]}`, `"groups": ["div_up(N, 256)"], "repeat": "pass + 1"}`, []string{"operations[0].candidates[0].repeat", "pass cannot be used here: it counts the repeats of a dispatch, and the count is worked out before the passes"}},
		{"f16 buffer bound to float[]", `{"name": "y", "type": "f32"`, `{"name": "y", "type": "f16"`, []string{"operations[0].candidates[0]", `declares set 0 binding 1 (storage buffer) as an array of 32-bit floats, but buffer "y" bound there is f16`}},
		// "spirv" and "glsl" swapped: each says which the file is, where
		// glslc quoted its whole table of built-ins (250 KB) for a module.
		{"glsl names a module", `"spirv": "../saxpy.spv"`, `"glsl": "../saxpy.spv"`, []string{"operations[0].candidates[0].glsl", `saxpy.spv" is binary, not GLSL source (a SPIR-V module goes in "spirv")`}},
		{"spirv names a source", `"spirv": "../saxpy.spv"`, `"spirv": "../saxpy.comp"`, []string{"operations[0].candidates[0].spirv", `saxpy.comp" is not a usable SPIR-V module`, `(it is text; GLSL source goes in "glsl")`}},
		{"sized workgroup disagrees", `"groups": ["div_up(N, 256)"]}`, `"groups": ["div_up(N, 256)"], "workgroup": ["N"]}`, []string{"operations[0].candidates[0].workgroup", `fixes local_size_x of "main" at 256 (a literal local_size), not 1024`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(valid, tt.old) {
				t.Fatalf("the base manifest has no %q", tt.old)
			}
			text := strings.Replace(valid, tt.old, tt.new, 1)
			ops, err := manifest.Parse([]byte(text), filepath.Join(manifestDir, "bad"))
			if err == nil {
				t.Fatalf("loaded %d operations, want an error", len(ops))
			}
			if got := status.CodeOf(err); got != status.InvalidArgument {
				t.Errorf("code %v, want INVALID_ARGUMENT: %v", got, err)
			}
			for _, want := range append([]string{"manifest: manifest:"}, tt.says...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not say %q:\n%v", want, err)
				}
			}
		})
	}
}

// FuzzParse checks that no input makes the parser panic, and that
// every error is InvalidArgument or NotFound.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"*.json", "bad/*.json"} {
		files, err := filepath.Glob(filepath.Join(manifestDir, pattern))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := manifest.Parse(data, manifestDir)
		if err != nil {
			if c := status.CodeOf(err); c != status.InvalidArgument && c != status.NotFound {
				if c == status.FailedPrecondition {
					testenv.NeedGlslc(t) // a GLSL candidate, with no compiler here
				}
				t.Fatalf("code %v: %v", c, err)
			}
			return
		}
		for _, op := range ops {
			size := op.DefaultSize(hal.DeviceInfo{})
			if size.Len() != len(op.Dims()) || len(op.Candidates()) == 0 {
				t.Fatalf("%s: default size %v for dims %v, %d candidates", op.Name(), size, op.Dims(), len(op.Candidates()))
			}
			_ = kernels.Digest(op.Candidates())
		}
	})
}

// TestVerifiesByExpectAlone: an operation checked by "expect" alone, with
// no reference candidate, verifies its candidates (it was reported "not
// verified"). ("verify": "none" is cmd/vkbench's TestNotVerified.)
func TestVerifiesByExpectAlone(t *testing.T) {
	got := map[string]bool{}
	for _, op := range loadTestManifest(t) {
		got[op.Name()] = kernels.Verifies(op)
	}
	want := map[string]bool{"fma-loop": true, "sum-inplace": true, "saxpy": true}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("Verifies(%s) = %v, want %v", name, got[name], v)
		}
	}
}
