package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/store"
)

// watchedDevice is a real device that remembers the pipelines built
// through it, and whose Info a test may narrow to play a device with
// less (a missing feature, smaller limits).
type watchedDevice struct {
	hal.Device
	info hal.DeviceInfo
	mu   sync.Mutex
	// built are the label and constants of each pipeline built.
	built []built
}

type built struct {
	Label     string
	Constants []hal.Constant
}

// tempCache opens a tune cache in a folder of the test's own, closed
// (and checked) when the test ends.
func tempCache(t *testing.T) *store.Store {
	t.Helper()
	cache, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "c.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cache.Close(); err != nil {
			t.Error(err)
		}
	})
	return cache
}

func watch(tb testing.TB) *watchedDevice {
	dev := devtest.Device(tb)
	return &watchedDevice{Device: dev, info: dev.Info()}
}

func (d *watchedDevice) Info() hal.DeviceInfo { return d.info }

func (d *watchedDevice) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	d.mu.Lock()
	d.built = append(d.built, built{desc.Label, slices.Clone(desc.Constants)})
	d.mu.Unlock()
	return d.Device.CreateExecutable(desc)
}

// takeBuilt returns the pipelines built since the last call.
func (d *watchedDevice) takeBuilt() []built {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.built
	d.built = nil
	return b
}

func opNamed(tb testing.TB, ops []kernels.Operation, name string) (kernels.Operation, []kernels.Candidate) {
	tb.Helper()
	for _, op := range ops {
		if op.Name() == name {
			return op, op.Candidates()
		}
	}
	tb.Fatalf("no operation %q", name)
	return nil, nil
}

func constants(pairs ...uint32) []hal.Constant {
	var cs []hal.Constant
	for i := 0; i < len(pairs); i += 2 {
		cs = append(cs, hal.Constant{ID: pairs[i], Value: pairs[i+1]})
	}
	return cs
}

// runOnce runs candidate cand of a prepared problem with the candidate's
// own pipeline at the problem's size, as a measurement does, and
// verifies it.
func runOnce(t *testing.T, dev hal.Device, p kernels.Problem, c kernels.Candidate, cand int) error {
	t.Helper()
	ctx := context.Background()
	c, err := kernels.CandidateAt(p, c, cand, dev.Info())
	if err != nil {
		return err
	}
	exe, err := dev.CreateExecutable(c.Executable())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := exe.Release(); err != nil {
			t.Error(err)
		}
	}()
	if err := kernels.Run(ctx, dev, p, exe, cand); err != nil {
		return err
	}
	return p.Verify(ctx, cand)
}

// TestManifestSizesAsConstants: constants that are expressions of the
// dimensions (matvec-const's M and K) give each size its own pipelines,
// one per distinct set of values. The candidate's own pipeline
// (Executable) has the values of the default size; at another, its
// SizedCandidate's has that size's, and is the only one a measurement
// builds for it: the reference's run builds its own, and a run nothing
// else.
func TestManifestSizesAsConstants(t *testing.T) {
	ctx := context.Background()
	op, cands := opNamed(t, loadTestManifest(t), "matvec-const")
	if diff := cmp.Diff(constants(0, 64, 1, 300, 2, 257), cands[0].Constants); diff != "" {
		t.Errorf("rows-wg64's own constants (-want +got):\n%s", diff)
	}
	if cands[1].WorkgroupSize != [3]uint32{128, 1, 1} || cands[1].Requires.SharedMemory != 4*257 {
		t.Errorf("rows-shared-wg128 = %+v, want a workgroup of 128 and 4*257 bytes of shared memory", cands[1])
	}
	dev := watch(t)
	p, err := op.Prepare(ctx, dev, kernels.SizeOf(129, 3), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Release(); err != nil {
			t.Error(err)
		}
	})
	want := []built{{"matvec-const/rows-wg64 (0=64 1=129 2=3)", constants(0, 64, 1, 129, 2, 3)}}
	if diff := cmp.Diff(want, dev.takeBuilt()); diff != "" {
		t.Errorf("pipelines Prepare built (-want +got):\n%s", diff)
	}
	for i, c := range cands {
		if err := runOnce(t, dev, p, c, i); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	// Only the candidates' own pipelines at this size, which runOnce built.
	want = []built{{"rows-wg64", constants(0, 64, 1, 129, 2, 3)}, {"rows-shared-wg128", constants(0, 128, 1, 129, 2, 3)}}
	if diff := cmp.Diff(want, dev.takeBuilt()); diff != "" {
		t.Errorf("runs built (-want +got):\n%s", diff)
	}
}

// TestManifestPassConstants: a multi-pass reduction written once, the
// stride of each pass a constant pow(WG, pass): each pass at each size
// has its pipeline, the first pass's the candidate's own at that size.
// Prepare builds none of them: the candidate's first run builds those of
// its later passes (when it is asked for at the size) and its own, and a
// second builds its own alone.
func TestManifestPassConstants(t *testing.T) {
	ctx := context.Background()
	op, cands := opNamed(t, loadTestManifest(t), "sum-inplace")
	if diff := cmp.Diff(constants(0, 64, 1, 300007, 2, 1), cands[0].Constants); diff != "" {
		t.Errorf("tree-wg64's own constants (-want +got):\n%s", diff)
	}
	dev := watch(t)
	for _, tt := range []struct {
		n       int
		strides []uint32
	}{
		// Stride 1's is the candidate's own, which runOnce builds.
		{300007, []uint32{64, 4096, 262144}},
		{1 << 20, []uint32{64, 4096, 262144}},
		{4097, []uint32{64, 4096}},
		{64, nil},
	} {
		p, err := op.Prepare(ctx, dev, kernels.SizeOf(tt.n), 1)
		if err != nil {
			t.Fatal(err)
		}
		if b := dev.takeBuilt(); b != nil {
			t.Errorf("N=%d: Prepare built %+v, want none", tt.n, b)
		}
		var want []built
		for _, s := range tt.strides {
			label := fmt.Sprintf("sum-inplace/tree-wg64 (0=64 1=%d 2=%d)", tt.n, s)
			want = append(want, built{label, constants(0, 64, 1, uint32(tt.n), 2, s)})
		}
		own := built{"tree-wg64", constants(0, 64, 1, uint32(tt.n), 2, 1)}
		want = append(want, own)
		for run := range 2 {
			if err := runOnce(t, dev, p, cands[0], 0); err != nil {
				t.Errorf("N=%d: %v", tt.n, err)
			}
			if diff := cmp.Diff(want, dev.takeBuilt()); diff != "" {
				t.Errorf("N=%d: run %d built (-want +got):\n%s", tt.n, run+1, diff)
			}
			want = []built{own} // the passes' are kept; runOnce builds its own each time
		}
		if err := p.Release(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestManifestPipelinesShared: candidates whose constants come to the
// same values at a size share one pipeline, where the problem builds it
// (Record given no pipeline).
func TestManifestPipelinesShared(t *testing.T) {
	ctx := context.Background()
	text := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "twins", "dims": {"N": 4096},
		"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "init": "iota"},
			{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "output", "expect": "i + 16"}],
		"push_constants": [{"type": "f32", "value": 1}, {"type": "f32", "value": 1}],
		"verify": {},
		"candidates": [
			{"name": "a", "params": {"U": 1}, "spirv": "fma_loop.spv", "constants": {"0": "N", "1": 16}, "groups": ["div_up(N, 256)"]},
			{"name": "b", "params": {"U": 2}, "spirv": "fma_loop.spv", "constants": {"0": "N", "1": 16}, "groups": ["div_up(N, 256)", "U"]}]}]}`
	ops, err := manifest.Parse([]byte(text), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	dev := watch(t)
	p, err := ops[0].Prepare(ctx, dev, kernels.SizeOf(1000), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Release(); err != nil {
			t.Error(err)
		}
	})
	for i, c := range ops[0].Candidates() {
		if err := kernels.Run(ctx, dev, p, nil, i); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if err := p.Verify(ctx, i); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	want := []built{{"twins/a (0=1000 1=16)", constants(0, 1000, 1, 16)}}
	if diff := cmp.Diff(want, dev.takeBuilt()); diff != "" {
		t.Errorf("pipelines built (-want +got):\n%s", diff)
	}
}

// TestManifestUndeclaredConstant: a constant_id the module does not
// declare (glslc -O drops the constants a kernel does not use) is a
// warning that names the file, line and field; the candidate runs
// without it, and the validation layer is silent.
func TestManifestUndeclaredConstant(t *testing.T) {
	text := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy4", "dims": {"N": 1024},
		"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "init": "iota"},
			{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout", "init": "zeros", "expect": "2.5 * i"}],
		"push_constants": [{"type": "u32", "value": "N / 4"}, {"type": "f32", "value": 2.5}],
		"verify": {"tolerance": {"rel": 0, "abs": 0}},
		"candidates": [{"name": "only", "spirv": "saxpy_vec4.spv",
			"constants": {"0": 64, "1": 1, "7": "N"}, "groups": ["div_up(N / 4, 64)"]}]}]}`
	ops, err := manifest.Parse([]byte(text), manifestDir)
	if err != nil {
		t.Fatalf("an undeclared constant_id: %v, want a warning", err)
	}
	want := []string{`manifest: manifest:7:40: operations[0].candidates[0].constants."7": saxpy_vec4.spv declares no specialization constant with constant_id 7 (it declares [0 1]), so the value is not passed; glslc -O drops the constants a kernel does not use`}
	if diff := cmp.Diff(want, manifest.Warnings(ops)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if got := manifest.Warnings(loadTestManifest(t)); len(got) != 0 {
		t.Errorf("kernels.json has warnings: %q", got)
	}
	c := ops[0].Candidates()[0]
	if diff := cmp.Diff(constants(0, 64, 1, 1), c.Constants); diff != "" {
		t.Errorf("constants passed (-want +got):\n%s", diff)
	}
	dev := devtest.Device(t)
	if err := kernels.VerifyCandidate(context.Background(), dev, ops[0], kernels.SizeOf(1024), 0, 1); err != nil {
		t.Error(err)
	}
}

// ExampleWarnings reads a manifest whose candidate sets constant_id 2,
// which glslc -O dropped from the module: a warning, not an error, and
// the kernel runs without it.
func ExampleWarnings() {
	ops, err := manifest.Parse([]byte(`{"schema": "vkbench.manifest/v1", "operations": [{
		"name": "saxpy4", "dims": {"N": 1024},
		"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0},
			{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "output"}],
		"push_constants": [{"type": "u32", "value": "N / 4"}, {"type": "f32", "value": 2.5}],
		"verify": "none",
		"candidates": [{"name": "vec4", "spirv": "saxpy_vec4.spv",
			"constants": {"0": 64, "1": 1, "2": 8}, "groups": ["div_up(N / 4, 64)"]}]}]}`), "../testdata/manifests")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range manifest.Warnings(ops) {
		fmt.Println(w)
	}
	fmt.Println(ops[0].Candidates()[0].Constants)
	// Output:
	// manifest: manifest:8:40: operations[0].candidates[0].constants."2": saxpy_vec4.spv declares no specialization constant with constant_id 2 (it declares [0 1]), so the value is not passed; glslc -O drops the constants a kernel does not use
	// [{0 64} {1 1}]
}

// twoPassSpace is a sum whose space of 27 configurations spans the
// workgroup size of its second dispatch (FWG), which makes a pipeline of
// its own for each of 9 values, and that of its first (WG).
const twoPassSpace = `{"schema": "vkbench.manifest/v1", "operations": [{"name": "sum-space", "dims": {"N": 20000},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "init": {"random": {"min": 0, "max": 1}}},
		{"name": "partials", "type": "f32", "len": "GROUPS", "role": "scratch"},
		{"name": "sum", "type": "f32", "len": 1, "role": "output"}],
	"verify": {"reference": "twopass", "tolerance": {"rel": 1e-4, "abs": 1e-4}},
	"candidates": [
		{"name": "twopass", "params": {"GROUPS": 32}, "dispatches": [
			{"spirv": "reduce_partials.spv", "constants": {"0": 64}, "bindings": ["x", "partials"],
			 "push_constants": [{"type": "u32", "value": "N"}], "groups": ["GROUPS"]},
			{"spirv": "reduce_final.spv", "bindings": ["partials", "sum"],
			 "push_constants": [{"type": "u32", "value": "GROUPS"}], "groups": [1]}]},
		{"name": "spaced", "params": {"GROUPS": 32, "WG": 64, "FWG": 64},
		 "space": {"WG": [32, 64, 128], "FWG": {"pow2": [1, 256]}}, "dispatches": [
			{"spirv": "reduce_partials.spv", "constants": {"0": "WG"}, "bindings": ["x", "partials"],
			 "push_constants": [{"type": "u32", "value": "N"}], "groups": ["GROUPS"]},
			{"spirv": "reduce_partials.spv", "constants": {"0": "FWG"}, "bindings": ["partials", "sum"],
			 "push_constants": [{"type": "u32", "value": "GROUPS"}], "groups": [1]}]}]}]}`

// TestManifestSpaceBuildsWhatItEvaluates: a search of a two-dispatch
// space with a budget of 2 builds the pipelines of the reference and of
// the 2 configurations it evaluates, the second dispatches' included, and
// no other configuration's: the problem builds a configuration's later
// dispatches when the configuration is first asked for, not every
// configuration's when it is prepared (counted by a wrapper over the real
// device).
func TestManifestSpaceBuildsWhatItEvaluates(t *testing.T) {
	ops, err := manifest.Parse([]byte(twoPassSpace), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	dev := watch(t)
	cache := tempCache(t)
	res, err := autotune.NewTuner(dev, cache, quick).Search(context.Background(), ops[0], kernels.SizeOf(20000),
		autotune.SearchOptions{Options: search.Options{Strategy: search.Random, MaxEvals: 2, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Points.Configs); n != 27 {
		t.Fatalf("the space has %d configurations, want 27", n)
	}
	// A pipeline the problem builds is labelled with the operation and
	// the candidate that first needed it, and its dispatch: each must be
	// the reference's or a point's evaluated.
	var built, others []string
	for _, b := range dev.takeBuilt() {
		built = append(built, b.Label)
		name, _, _ := strings.Cut(strings.TrimPrefix(b.Label, "sum-space/"), "#")
		if name != "twopass" && !slices.Contains(res.Search.Order, name) {
			others = append(others, b.Label)
		}
	}
	t.Logf("built %q", built)
	if len(res.Search.Order) != 2 || others != nil {
		t.Errorf("points evaluated %q; pipelines built %q, of which %q are of points not evaluated", res.Search.Order, built, others)
	}
}

// TestManifestSpaceLostBuildingLaterDispatch loses the device as a search
// builds its second point's later dispatch, which the problem builds when
// the point is first asked for: the search ends there with the loss, that
// point failed and no other, as when the loss comes while building or
// running the point's own pipeline. Before, the loss read as the point's
// refusal at its size, and the search went on to blame the next points.
func TestManifestSpaceLostBuildingLaterDispatch(t *testing.T) {
	ops, err := manifest.Parse([]byte(twoPassSpace), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	plan := faulty.NewPlan()
	cache := tempCache(t)
	n := 0
	res, err := autotune.NewTuner(faulty.Wrap(devtest.Device(t), plan), cache, quick).Search(context.Background(), ops[0], kernels.SizeOf(20000),
		autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}, CompileThreads: -1,
			Progress: func(autotune.SearchProgress) {
				if n++; n == 1 {
					plan.LoseAt(faulty.CreateExecutable, 1)
				}
			}})
	if !errors.Is(err, hal.ErrDeviceLost) || res == nil {
		t.Fatalf("a search losing the device = %v, %v; want a result and hal.ErrDeviceLost", res, err)
	}
	var failed []string
	for _, r := range res.Entry.Results {
		if r.Outcome == results.Failed {
			failed = append(failed, r.Name)
		}
	}
	if len(failed) != 1 || len(res.Search.Order) != 1 {
		t.Errorf("failed %q after %d evaluations; want the one point that was building when the device was lost, after one", failed, len(res.Search.Order))
	}
}

// holdingDevice holds the build of the pipeline labelled label until
// released, or until 30 seconds have passed (held says so then).
type holdingDevice struct {
	hal.Device
	label    string
	released chan struct{}
	held     atomic.Bool
}

func (d *holdingDevice) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	if desc.Label == d.label {
		select {
		case <-d.released:
		case <-time.After(30 * time.Second):
			d.held.Store(true)
		}
	}
	return d.Device.CreateExecutable(desc)
}

// TestManifestSpaceBuildsLaterOnCompileThreads: a search builds a
// point's later dispatches on its compile threads, as it builds the
// point's own pipeline, while the GPU measures the points before it:
// the second point's second dispatch, held until the first point is
// evaluated, does not hold the search. Before, the search built it as it
// proposed the point, before measuring the first, and waited there
// (half a minute, until the hold gave up).
func TestManifestSpaceBuildsLaterOnCompileThreads(t *testing.T) {
	ops, err := manifest.Parse([]byte(twoPassSpace), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	cache := tempCache(t)
	// Exhaustive: the first points are WG=32 with FWG=1, then FWG=2.
	dev := &holdingDevice{Device: devtest.Device(t), label: "sum-space/spaced-WG32-FWG2#1", released: make(chan struct{})}
	var once sync.Once
	res, err := autotune.NewTuner(dev, cache, quick).Search(context.Background(), ops[0], kernels.SizeOf(20000),
		autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive, MaxEvals: 2}, CompileThreads: 4,
			Progress: func(autotune.SearchProgress) { once.Do(func() { close(dev.released) }) }})
	if err != nil {
		t.Fatal(err)
	}
	if dev.held.Load() || len(res.Search.Order) != 2 || res.Search.Order[1] != "spaced-WG32-FWG2" {
		t.Errorf("evaluated %q; the second point's later dispatch held the search until the hold gave up: %v", res.Search.Order, dev.held.Load())
	}
}
