package manifest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/status"
)

// TestManifestDeviceAsserts: asserts may name the device's limits; they
// hold or fail when a problem is prepared, with the device's values. A
// candidate's that fails makes the candidate unsupported on the device
// (Unimplemented), naming the assert and the values; the operation's
// fails Prepare.
func TestManifestDeviceAsserts(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join(manifestDir, "kernels.json"))
	if err != nil {
		t.Fatal(err)
	}
	op, _ := opNamed(t, loadTestManifest(t), "matvec-const")
	dev := watch(t)
	// A device with 2 KiB of shared memory: x's 4*600 bytes do not fit.
	dev.info.Limits.MaxSharedMemory = 2048
	size := kernels.SizeOf(70, 600)
	if err := kernels.VerifyCandidate(ctx, dev, op, size, 0, 1); err != nil {
		t.Errorf("rows-wg64: %v", err)
	}
	err = kernels.VerifyCandidate(ctx, dev, op, size, 1, 1)
	want := `the device ` + dev.info.Name + ` (max_shared_memory=2048) fails the candidate's assert "4*K <= max_shared_memory" at size M=70,K=600`
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), want) {
		t.Errorf("rows-shared-wg128: got %v, want UNIMPLEMENTED saying %q", err, want)
	}
	e, err := autotune.Measure(ctx, dev, op, size, quick)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Results[1]; r.Outcome != results.Unsupported || !strings.Contains(r.Error, want) {
		t.Errorf("measured rows-shared-wg128: %s %q, want unsupported saying %q", r.Outcome, r.Error, want)
	}
	// Without the assert, the shared memory its constants come to at
	// this size is checked against the device all the same.
	text := strings.Replace(string(data), `"assert": ["4*K <= max_shared_memory"],`, "", 1)
	ops, err := manifest.Parse([]byte(text), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	op, _ = opNamed(t, ops, "matvec-const")
	err = kernels.VerifyCandidate(ctx, dev, op, size, 1, 1)
	want = "with constants 0=128 1=70 2=600: kernels: rows-shared-wg128: needs 2.3 KiB of shared memory, device has 2 KiB"
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), want) {
		t.Errorf("rows-shared-wg128 without its assert: got %v, want UNIMPLEMENTED saying %q", err, want)
	}
	// So is its workgroup, by the same check as every candidate's.
	dev.info.Limits.MaxSharedMemory, dev.info.Limits.MaxWorkgroupInvocations = 1<<20, 64
	err = kernels.VerifyCandidate(ctx, dev, op, size, 1, 1)
	want = "kernels: rows-shared-wg128: needs 128 invocations per workgroup, device allows 64"
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), want) {
		t.Errorf("rows-shared-wg128 on a device of 64 invocations: got %v, want UNIMPLEMENTED saying %q", err, want)
	}
	dev.info.Limits = dev.Device.Info().Limits
	// The operation's assert about the device: the manifest loads (any
	// device may do), a device that fails it cannot prepare the problem.
	text = strings.Replace(string(data), `"assert": ["div_up(M, 64) <= max_groups_x"]`, `"assert": ["subgroup_size >= 1000000"]`, 1)
	if ops, err = manifest.Parse([]byte(text), manifestDir); err != nil {
		t.Fatal(err)
	}
	op, _ = opNamed(t, ops, "matvec-const")
	p, err := op.Prepare(ctx, dev, size, 1)
	if err == nil {
		_ = p.Release()
	}
	want = fmt.Sprintf(`(subgroup_size=%d) fails the operation's assert "subgroup_size >= 1000000"`, dev.info.Limits.SubgroupSize)
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), want) {
		t.Errorf("operation's assert: got %v, want UNIMPLEMENTED saying %q", err, want)
	}
}

// memoryModelManifest describes y = 2x by a module that declares the
// VulkanMemoryModel capability.
const memoryModelManifest = `{"schema": "vkbench.manifest/v1", "operations": [{"name": "scale", "dims": {"N": 1000},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "init": "iota"},
		{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "output", "expect": "2 * i"}],
	"push_constants": [{"type": "u32", "value": "N"}],
	"verify": {"tolerance": {"rel": 0, "abs": 0}},
	"candidates": [{"name": "vmm", "spirv": "scale_memory_model.spv", "groups": ["div_up(N, 64)"]}]}]}`

// TestManifestMemoryModel: a module that declares VulkanMemoryModel runs
// where the device has the feature (which Open enables), with the
// validation layer silent; on a device without it the candidate is
// unsupported, naming the feature, and no pipeline of it is built.
func TestManifestMemoryModel(t *testing.T) {
	ctx := context.Background()
	ops, err := manifest.Parse([]byte(memoryModelManifest), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	op := ops[0]
	if c := op.Candidates()[0]; !c.Requires.VulkanMemoryModel {
		t.Errorf("requirements %+v, want the memory model", c.Requires)
	}
	dev := watch(t)
	if !dev.info.Features.VulkanMemoryModel {
		t.Skipf("%s has no vulkanMemoryModel", dev.info.Name)
	}
	if err := kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(1000), 0, 1); err != nil {
		t.Errorf("with the feature: %v", err)
	}
	dev.takeBuilt()
	dev.info.Features.VulkanMemoryModel = false
	err = kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(1000), 0, 1)
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "needs vulkanMemoryModel") {
		t.Errorf("without the feature: %v, want UNIMPLEMENTED naming vulkanMemoryModel", err)
	}
	e, err := autotune.Measure(ctx, dev, op, kernels.SizeOf(1000), quick)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Results[0]; r.Outcome != results.Unsupported || !strings.Contains(r.Error, "needs vulkanMemoryModel") {
		t.Errorf("measured without the feature: %s %q, want unsupported naming vulkanMemoryModel", r.Outcome, r.Error)
	}
	if b := dev.takeBuilt(); len(b) != 0 {
		t.Errorf("without the feature, pipelines were built: %+v", b)
	}
}

// sizedManifest is y = A x by candidates whose needs grow with the size:
// rows-shared's shared memory (4*K bytes) and rows-wgM's workgroup (M).
const sizedManifest = `{"schema": "vkbench.manifest/v1", "operations": [{"name": "matvec", "dims": {"M": 300, "K": 257},
	"buffers": [{"name": "A", "type": "f32", "len": "M*K", "binding": 0},
		{"name": "x", "type": "f32", "len": "K", "binding": 1},
		{"name": "y", "type": "f32", "len": "M", "binding": 2, "role": "output"}],
	"verify": {"reference": "rows-wg64", "tolerance": {"rel": 1e-4, "abs": 1e-4}},
	"candidates": [
		{"name": "rows-wg64", "spirv": "matvec_const.spv", "workgroup": [64], "constants": {"1": "M", "2": "K"}, "groups": ["div_up(M, 64)"]},
		{"name": "rows-shared", "spirv": "matvec_const_shared.spv", "workgroup": [128], "constants": {"1": "M", "2": "K"}, "groups": ["div_up(M, 128)"]},
		{"name": "rows-wgM", "spirv": "matvec_const.spv", "workgroup": ["M"], "constants": {"1": "M", "2": "K"}, "groups": [1]}]}]}`

// TestManifestSizedNeeds: a candidate whose shared memory or workgroup
// depends on the size is judged at the size asked, by the pipeline it
// runs there, and only that pipeline is built: on a device of 1 KiB of
// shared memory and 256 invocations, where neither fits at the default
// size (1,028 bytes; 300 invocations), both run and verify at a size
// where they fit, and are refused at one where they do not, saying what
// they need there.
func TestManifestSizedNeeds(t *testing.T) {
	ctx := context.Background()
	ops, err := manifest.Parse([]byte(sizedManifest), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	op := ops[0]
	dev := watch(t)
	dev.info.Limits.MaxSharedMemory, dev.info.Limits.MaxWorkgroupInvocations, dev.info.Limits.MaxWorkgroupSize[0] = 1024, 256, 256
	for _, tt := range []struct {
		size kernels.Size
		want []string // each candidate's reason to be refused; "" to run
	}{
		{kernels.SizeOf(70, 200), []string{"", "", ""}},
		{kernels.SizeOf(70, 300), []string{"", "needs 1.2 KiB of shared memory, device has 1 KiB", ""}},
		{kernels.SizeOf(260, 256), []string{"", "", "needs a workgroup of 260 in x, device allows 256"}},
	} {
		dev.takeBuilt()
		e, err := autotune.Measure(ctx, dev, op, tt.size, quick)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range e.Results {
			switch ran := r.Outcome == results.Measured || r.Outcome == results.Dropped; {
			case tt.want[i] == "" && !ran:
				t.Errorf("%v: %s %s (%s), want it run and verified", tt.size, r.Name, r.Outcome, r.Error)
			case tt.want[i] != "" && (r.Outcome != results.Unsupported || !strings.Contains(r.Error, tt.want[i])):
				t.Errorf("%v: %s %s (%s), want unsupported saying %q", tt.size, r.Name, r.Outcome, r.Error, tt.want[i])
			}
		}
		// Every pipeline built has this size's constants.
		m, k := uint32(tt.size.Dim(0)), uint32(tt.size.Dim(1))
		for _, b := range dev.takeBuilt() {
			if len(b.Constants) < 3 || b.Constants[1] != (hal.Constant{ID: 1, Value: m}) || b.Constants[2] != (hal.Constant{ID: 2, Value: k}) {
				t.Errorf("%v: built %s with constants %v, not those of the size", tt.size, b.Label, b.Constants)
			}
		}
		if err := kernels.VerifyCandidate(ctx, dev, op, tt.size, 1, 1); (err == nil) != (tt.want[1] == "") {
			t.Errorf("%v: verifying rows-shared: %v", tt.size, err)
		}
	}
	// So do ab's pairs and a subset of the candidates.
	pair, err := manifest.Pair(op, op, []string{"rows-shared", "rows-wgM"})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := kernels.Subset(op, func(c kernels.Candidate) bool { return c.Name != "rows-wg64" })
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []kernels.Operation{pair, sub} {
		e, err := autotune.Measure(ctx, dev, o, kernels.SizeOf(70, 200), quick)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range e.Results {
			if r.Outcome != results.Measured && r.Outcome != results.Dropped {
				t.Errorf("%s at 70x200: %s %s (%s), want it run and verified", o.Name(), r.Name, r.Outcome, r.Error)
			}
		}
	}
}

// TestManifestSizedSubset: a subset of a size-dependent operation's
// candidates (vkbench run --candidates) and ab's pair of it judge their
// candidates at the size asked, as the operation does (CandidatesAt, what
// a compile-only tune goes by), each under its own index and name: at
// 70x200 none is refused, where the subset and the pair once judged them
// at the default size, at which neither rows-shared's shared memory nor
// rows-wgM's workgroup fits this device.
func TestManifestSizedSubset(t *testing.T) {
	ops, err := manifest.Parse([]byte(sizedManifest), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	op := ops[0]
	info := watch(t).info
	info.Limits.MaxSharedMemory, info.Limits.MaxWorkgroupInvocations, info.Limits.MaxWorkgroupSize[0] = 1024, 256, 256
	re := regexp.MustCompile("shared|wgM")
	sub, err := kernels.Subset(op, func(c kernels.Candidate) bool { return re.MatchString(c.Name) })
	if err != nil {
		t.Fatal(err)
	}
	pair, err := manifest.Pair(op, op, []string{"rows-shared", "rows-wgM"})
	if err != nil {
		t.Fatal(err)
	}
	// What the tests compare of a candidate judged at a size.
	judged := func(c kernels.Candidate, err error) string {
		return fmt.Sprintf("%s: workgroup %v, %d bytes shared, constants %v: %v", c.Name, c.WorkgroupSize, c.Requires.SharedMemory, c.Constants, err)
	}
	for _, tt := range []struct {
		size    kernels.Size
		refused []bool // of rows-shared and rows-wgM
	}{
		{kernels.SizeOf(70, 200), []bool{false, false}},
		{kernels.SizeOf(70, 300), []bool{true, false}},
		{kernels.SizeOf(260, 256), []bool{false, true}},
	} {
		cands, errs := kernels.CandidatesAt(op, tt.size, info)
		var want, wantPair []string
		for i, j := range []int{1, 2} {
			if (errs[j] != nil) != tt.refused[i] {
				t.Errorf("%v: the operation's %s: %v, want refused: %v", tt.size, cands[j].Name, errs[j], tt.refused[i])
			}
			want = append(want, judged(cands[j], errs[j]))
			for _, side := range []string{"old:", "new:"} {
				c := cands[j]
				c.Name = side + c.Name
				wantPair = append(wantPair, judged(c, errs[j]))
			}
		}
		for _, o := range []struct {
			op   kernels.Operation
			want []string
		}{{sub, want}, {pair, wantPair}} {
			var got []string
			cands, errs := kernels.CandidatesAt(o.op, tt.size, info)
			for i, c := range cands {
				got = append(got, judged(c, errs[i]))
			}
			if d := cmp.Diff(o.want, got); d != "" {
				t.Errorf("%v: %T's candidates judged, not as the operation judges them (-want +got):\n%s", tt.size, o.op, d)
			}
		}
	}
}

// tiledSpace is y = A x by a space of kernels that stage x through shared
// memory in PARTS tiles: a kernel needs 4*div_up(K, PARTS) bytes.
const tiledSpace = `{"schema": "vkbench.manifest/v1", "operations": [{"name": "matvec", "dims": {"M": 300, "K": 257},
	"buffers": [{"name": "A", "type": "f32", "len": "M*K", "binding": 0},
		{"name": "x", "type": "f32", "len": "K", "binding": 1},
		{"name": "y", "type": "f32", "len": "M", "binding": 2, "role": "output"}],
	"verify": {"reference": "rows-wg64", "tolerance": {"rel": 1e-4, "abs": 1e-4}},
	"candidates": [
		{"name": "rows-wg64", "spirv": "matvec_const.spv", "workgroup": [64], "constants": {"1": "M", "2": "K"}, "groups": ["div_up(M, 64)"]},
		{"name": "tiled", "spirv": "matvec_tiled.spv", "workgroup": [64], "constants": {"1": "M", "2": "K", "3": "div_up(K, PARTS)"},
			"space": {"PARTS": [1, 2, 4]}, "groups": ["div_up(M, 64)"]}]}]}`

// TestManifestSpaceSizedNeeds: a space's configurations are judged by
// what their kernels need at the size searched, not at the default size:
// on a device of 1 KiB of shared memory, where PARTS=1 does not fit at the
// default size (1,028 bytes), every configuration is a point at K=200,
// and runs and verifies there; at K=600 only PARTS=4 fits, and the others
// are rejected by the device, saying what they need there; at K=2000 none
// fits, and the error says why.
func TestManifestSpaceSizedNeeds(t *testing.T) {
	ctx := context.Background()
	ops, err := manifest.Parse([]byte(tiledSpace), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	s := kernels.SpaceOf(ops[0])
	dev := watch(t)
	dev.info.Limits.MaxSharedMemory = 1024
	small := kernels.SizeOf(70, 200)
	pts, err := s.Points(ops[0].Dims(), small, dev.Info())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, cfg := range pts.Configs {
		names = append(names, s.Name(cfg))
		if err := kernels.VerifyCandidate(ctx, dev, pts.Op, small, pts.Index[i], 1); err != nil {
			t.Errorf("%s at %v: %v", s.Name(cfg), small, err)
		}
	}
	if diff := cmp.Diff([]string{"PARTS=1", "PARTS=2", "PARTS=4"}, names); diff != "" {
		t.Errorf("points at %v (-want +got):\n%s", small, diff)
	}
	large := kernels.SizeOf(70, 600)
	big, err := s.Points(ops[0].Dims(), large, dev.Info())
	if err != nil {
		t.Fatal(err)
	}
	if len(big.Configs) != 1 || big.Configs[0]["PARTS"] != 4 || !cmp.Equal(big.Rejected, map[string]int{"device": 2}) {
		t.Errorf("at %v: points %v, rejected %v; want PARTS=4 alone, 2 rejected by the device", large, big.Configs, big.Rejected)
	}
	// Where none fits, the error says why the first did not.
	_, err = s.Points(ops[0].Dims(), kernels.SizeOf(70, 2000), dev.Info())
	if want := "needs 7.8 KiB of shared memory, device has 1 KiB"; status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), want) {
		t.Errorf("at 70x2000: %v, want NOT_FOUND saying %q", err, want)
	}
	_, refused := kernels.CandidatesAt(pts.Op, large, dev.Info())
	for i, want := range []string{"needs 2.3 KiB of shared memory, device has 1 KiB", "needs 1.2 KiB of shared memory, device has 1 KiB"} {
		if err := refused[pts.Index[i]]; status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), want) {
			t.Errorf("%s at %v: %v, want UNIMPLEMENTED saying %q", s.Name(pts.Configs[i]), large, err, want)
		}
	}
}

// TestManifestSpaceSearchSized: a search of such a space builds each
// point's pipeline once, at the size searched, and the problem builds none
// of a point's: every pipeline built has the size's constants, each
// point's tile among them once, and the compile time the tuning log keeps
// for a point is of that one build.
func TestManifestSpaceSearchSized(t *testing.T) {
	ops, err := manifest.Parse([]byte(tiledSpace), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	dev := watch(t)
	dev.info.Limits.MaxSharedMemory = 1024
	cache := tempCache(t)
	opts := quick
	opts.Level = autotune.Full
	size := kernels.SizeOf(70, 200)
	res, err := autotune.NewTuner(dev, cache, opts).Search(context.Background(), ops[0], size, autotune.SearchOptions{Options: search.Options{Strategy: search.Exhaustive}})
	if err != nil {
		t.Fatal(err)
	}
	tiles := map[uint32]int{} // builds of each tile's pipeline
	for _, b := range dev.takeBuilt() {
		if len(b.Constants) < 3 || b.Constants[1] != (hal.Constant{ID: 1, Value: 70}) || b.Constants[2] != (hal.Constant{ID: 2, Value: 200}) {
			t.Errorf("built %s with constants %v, not those of %v", b.Label, b.Constants, size)
		}
		if len(b.Constants) == 4 {
			tiles[b.Constants[3].Value]++
		}
	}
	if diff := cmp.Diff(map[uint32]int{200: 1, 100: 1, 50: 1}, tiles); diff != "" {
		t.Errorf("builds of each tile's pipeline (-want +got):\n%s", diff)
	}
	log, err := search.ReadLog(context.Background(), cache, res.Log)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Evals) != 3 {
		t.Errorf("the log has %d points, want 3", len(log.Evals))
	}
	for _, r := range log.Evals {
		if !r.Verified() || r.CompileSeconds <= 0 {
			t.Errorf("%s: %s (%s), compiled in %gs; want it verified, with its compile time", r.Name, r.Outcome, r.Error, r.CompileSeconds)
		}
	}
}

// TestManifestCompileSized: Compile builds, at each size asked, every
// pipeline a measurement there builds (each once, and none the device
// cannot run): on a device of 1 KiB of shared memory, tiled (x in one
// tile of 4*K bytes) at K=200 and not at K=600, rows-wg64 at both, and
// each pass of sum-inplace's tree, whose stride is a constant.
func TestManifestCompileSized(t *testing.T) {
	ctx := context.Background()
	ops, err := manifest.Parse([]byte(tiledSpace), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := opNamed(t, loadTestManifest(t), "sum-inplace")
	dev := watch(t)
	dev.info.Limits.MaxSharedMemory = 1024
	// pipelines are the distinct constants of the pipelines built since
	// the last call: the labels of a candidate's own differ.
	pipelines := func() []string {
		var out []string
		for _, b := range dev.takeBuilt() {
			out = append(out, fmt.Sprint(b.Constants))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, tt := range []struct {
		op    kernels.Operation
		sizes []kernels.Size
	}{
		{ops[0], []kernels.Size{kernels.SizeOf(70, 200), kernels.SizeOf(70, 600), kernels.SizeOf(70, 200)}},
		{sum, []kernels.Size{kernels.SizeOf(4097), kernels.SizeOf(1 << 20)}},
	} {
		dev.takeBuilt()
		n, err := autotune.Compile(ctx, dev, []kernels.Operation{tt.op}, [][]kernels.Size{tt.sizes})
		if err != nil {
			t.Fatal(err)
		}
		compiled := pipelines()
		var measured []string
		for _, size := range tt.sizes {
			if _, err := autotune.Measure(ctx, dev, tt.op, size, quick); err != nil {
				t.Fatal(err)
			}
			measured = append(measured, pipelines()...)
		}
		slices.Sort(measured)
		if diff := cmp.Diff(slices.Compact(measured), compiled); diff != "" || n != len(compiled) {
			t.Errorf("%s: compiled %d pipelines (-measured +compiled):\n%s", tt.op.Name(), n, diff)
		}
	}
}

// TestManifestSharedMemoryOfSpecConstantOps: gemm_regblock sizes its
// shared arrays by expressions of its constants (OpSpecConstantOp): 2 BK
// (BM / 4 + 1 - SWZ) vec4s of A and 2 BK BN / 4 of B. At
// M=256,N=256,K=512 on a device of 32 KiB of shared memory, each of
// bench/gemm_sweep.json's candidates of it that declares more (its
// 256x128x16 tilings declare 48 KiB) is unsupported with the catalogue's
// message and no pipeline of its own is built (the reference's is); the
// others are supported. The sweep's candidates of modules that it builds
// itself, and git ignores, are left out.
func TestManifestSharedMemoryOfSpecConstantOps(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile("../bench/gemm_sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	var sweep map[string]any
	if err := json.Unmarshal(data, &sweep); err != nil {
		t.Fatal(err)
	}
	op := sweep["operations"].([]any)[0].(map[string]any)
	want := map[string]string{}
	var kept []any
	for _, c := range op["candidates"].([]any) {
		c := c.(map[string]any)
		if c["spirv"] != "../shaders/gemm_regblock.spv" {
			continue
		}
		kept = append(kept, c)
		value := func(id string) int {
			switch v := c["constants"].(map[string]any)[id].(type) {
			case string:
				return int(c["params"].(map[string]any)[v].(float64))
			case float64:
				return int(v)
			}
			t.Fatalf("%s: constant %s is %v", c["name"], id, c["constants"])
			return 0
		}
		bm, bn, bk, swz := value("2"), value("3"), value("4"), value("6")
		if shared := 2*bk*(bm/4+1-swz)*16 + 2*bk*(bn/4)*16; shared > 32<<10 {
			want[c["name"].(string)] = fmt.Sprintf("needs %d KiB of shared memory, device has 32 KiB", shared>>10)
		}
	}
	if want["regblock-256x128x16-8x8-p2-swz-exact"] != "needs 48 KiB of shared memory, device has 32 KiB" {
		t.Fatalf("gemm_sweep.json no longer has the 48 KiB candidate: %q", want)
	}
	op["candidates"] = kept
	if data, err = json.Marshal(sweep); err != nil {
		t.Fatal(err)
	}
	ops, err := manifest.Parse(data, "../bench")
	if err != nil {
		t.Fatal(err)
	}
	dev := watch(t)
	dev.info.Limits.MaxSharedMemory = 32 << 10
	got := map[string]string{}
	for i, c := range ops[0].Candidates() {
		if err := c.Supported(dev.Info()); err == nil {
			continue
		}
		err := kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(256, 256, 512), i, 1)
		if status.CodeOf(err) != status.Unimplemented {
			t.Errorf("%s: %v, want UNIMPLEMENTED", c.Name, err)
		}
		got[c.Name] = regexp.MustCompile(`needs .*`).FindString(status.Message(err))
		for _, b := range dev.takeBuilt() { // the reference's, which Prepare runs
			if strings.Contains(b.Label, c.Name) {
				t.Errorf("%s: built %v", c.Name, b)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unsupported candidates (-want +got):\n%s", diff)
	}
	if w := manifest.Warnings(ops); len(w) > 0 {
		t.Errorf("warnings: %q", w)
	}
}
