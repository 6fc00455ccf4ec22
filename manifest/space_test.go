package manifest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
)

// spaceManifest is the example with a space: saxpy_vec4's WG × UNROLL.
const spaceManifest = "space.json"

func loadSpace(t testing.TB, edit func(string) string) kernels.Operation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifestDir, spaceManifest))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if edit != nil {
		text = edit(text)
	}
	ops, err := manifest.Parse([]byte(text), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	return ops[0]
}

// smallDevice allows 256 invocations a workgroup.
var smallDevice = hal.DeviceInfo{Name: "small", Limits: hal.Limits{
	MaxWorkgroupSize: [3]uint32{256, 256, 64}, MaxWorkgroupInvocations: 256, MaxWorkgroupCount: [3]uint32{65535, 65535, 65535},
	MaxSharedMemory: 32 << 10, MaxPushConstantsSize: 128, MaxStorageBufferRange: 1 << 30, SubgroupSize: 32,
}}

// TestSpaceManifest reads a candidate's space: the candidate stays one
// named point (what run measures), and the space has its configurations,
// restricted by params when read and by the size and the device's limits
// when enumerated.
func TestSpaceManifest(t *testing.T) {
	op := loadSpace(t, nil)
	var names []string
	for _, c := range op.Candidates() {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"scalar", "vec4"}, names); diff != "" {
		t.Errorf("named candidates (-want +got):\n%s", diff)
	}
	if p := op.Candidates()[1].Params; p["WG"] != 64 || p["UNROLL"] != 1 {
		t.Errorf("vec4's params %v, want its own point WG 64, UNROLL 1", p)
	}
	s := kernels.SpaceOf(op)
	if s == nil {
		t.Fatal("no space")
	}
	pts, err := s.Points(op.Dims(), kernels.SizeOf(100000), smallDevice)
	if err != nil {
		t.Fatal(err)
	}
	// 6 WG × 4 UNROLL, less 3 by WG·UNROLL ≤ 2048, less WG 512 and 1024
	// (5 more) on a device of 256 invocations.
	want := map[string]int{"WG * UNROLL <= 2048": 3, "WG <= max_workgroup_invocations && WG <= max_workgroup_size_x": 5}
	if len(pts.Configs) != 16 || !cmp.Equal(pts.Rejected, want) {
		t.Errorf("%d configurations, rejected %v; want 16, %v", len(pts.Configs), pts.Rejected, want)
	}
	for i, c := range pts.Candidates() {
		cfg := pts.Configs[i]
		if c.Params["WG"] != cfg["WG"] || c.Params["UNROLL"] != cfg["UNROLL"] || c.WorkgroupSize[0] != uint32(cfg["WG"]) {
			t.Errorf("configuration %s has kernel %s (params %v, workgroup %v)", s.Name(cfg), c.Name, c.Params, c.WorkgroupSize)
		}
	}
	small, err := s.Points(op.Dims(), kernels.SizeOf(512), smallDevice)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range small.Configs {
		if 4*c["WG"]*c["UNROLL"] > 512 {
			t.Errorf("N = 512 keeps %s, whose workgroup covers more", s.Name(c))
		}
	}
	if _, err := s.Points(op.Dims(), kernels.SizeOf(64), smallDevice); status.CodeOf(err) != status.NotFound {
		t.Errorf("N = 64, where no configuration fits: %v, want NOT_FOUND", err)
	}
}

// TestSpaceDeviceLimits: a restriction reads the same device limits as
// every other expression of a manifest (kernels.DeviceLimits), the
// device's when the space is enumerated; max_groups_x among them.
func TestSpaceDeviceLimits(t *testing.T) {
	op := loadSpace(t, func(s string) string {
		return strings.Replace(s, `"WG * UNROLL <= 2048"`, `"WG * UNROLL <= 2048", "N / (4 * WG * UNROLL) <= max_groups_x"`, 1)
	})
	few := smallDevice
	few.Limits.MaxWorkgroupCount[0] = 100
	pts, err := kernels.SpaceOf(op).Points(op.Dims(), kernels.SizeOf(100000), few)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pts.Configs {
		if 100000/(4*c["WG"]*c["UNROLL"]) > 100 {
			t.Errorf("%v kept, though it needs more than the device's 100 groups", c)
		}
	}
	if pts.Rejected["N / (4 * WG * UNROLL) <= max_groups_x"] == 0 {
		t.Errorf("rejected %v: the max_groups_x restriction rejected nothing", pts.Rejected)
	}
}

// TestSpaceIdentity: a record of the tuning log stays valid while its
// kernel is unchanged: editing the space (more values, another
// restriction) keeps the configurations' identities; editing the kernel's
// description changes every one.
func TestSpaceIdentity(t *testing.T) {
	ids := func(op kernels.Operation) map[string]string {
		pts, err := kernels.SpaceOf(op).Points(op.Dims(), kernels.SizeOf(1<<20), h200Like)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for i, c := range pts.Configs {
			out[kernels.SpaceOf(op).Name(c)] = pts.IDs[i]
		}
		return out
	}
	base := ids(loadSpace(t, nil))
	wider := ids(loadSpace(t, func(s string) string {
		return strings.Replace(strings.Replace(s, `"UNROLL": [1, 2, 4, 8]`, `"UNROLL": [1, 2, 4, 8, 16]`, 1), `"WG * UNROLL <= 2048"`, `"WG * UNROLL <= 4096"`, 1)
	}))
	if len(wider) <= len(base) {
		t.Fatalf("the wider space has %d configurations, the base %d", len(wider), len(base))
	}
	for name, id := range base {
		if wider[name] != id {
			t.Errorf("%s: identity %s became %s when the space grew", name, id, wider[name])
		}
	}
	named := ids(loadSpace(t, func(s string) string {
		return strings.Replace(s, `"params": {"WG": 64, "UNROLL": 1}`, `"params": {"WG": 128, "UNROLL": 2}`, 1)
	}))
	if !cmp.Equal(named, base) {
		t.Error("choosing another named point changed the configurations' identities")
	}
	changed := ids(loadSpace(t, func(s string) string {
		return strings.Replace(s, `"groups": ["div_up(N / 4, WG * UNROLL)"]`, `"groups": ["div_up(N / 4, WG * UNROLL) + 0"]`, 1)
	}))
	for name, id := range base {
		if changed[name] == id {
			t.Errorf("%s: identity unchanged when the candidate's groups changed", name)
		}
	}
}

var h200Like = hal.DeviceInfo{Name: "big", Limits: hal.Limits{
	MaxWorkgroupSize: [3]uint32{1024, 1024, 64}, MaxWorkgroupInvocations: 1024, MaxWorkgroupCount: [3]uint32{1 << 30, 65535, 65535},
	MaxSharedMemory: 48 << 10, MaxPushConstantsSize: 256, MaxStorageBufferRange: 1 << 32, SubgroupSize: 32,
}}

// TestSpaceManifestErrors: a malformed space is one error naming the
// field.
func TestSpaceManifestErrors(t *testing.T) {
	for _, tt := range []struct{ from, to, want string }{
		{`"UNROLL": [1, 2, 4, 8]`, `"UNROLL": []`, "candidates[1].space.UNROLL: has no values"},
		{`"UNROLL": [1, 2, 4, 8]`, `"UNROLL": [1, 2, 2]`, "repeats a value"},
		{`"UNROLL": [1, 2, 4, 8]`, `"UNROLL": {"pow2": [3, 8]}`, "3 is not a power of two"},
		{`"UNROLL": [1, 2, 4, 8]`, `"UNROLL": {"range": [1, 8], "stride": 2}`, `want {"range": [lo, hi], "step": s}`},
		{`"UNROLL": [1, 2, 4, 8]`, `"max_shared_memory": [1]`, `"max_shared_memory" is reserved`},
		{`"WG * UNROLL <= 2048"`, `"WG * UNROL <= 2048"`, `unknown name "UNROL" (did you mean UNROLL?)`},
		{`"WG * UNROLL <= 2048"`, `"WG * 0.5"`, "is a float"},
		{`"WG * UNROLL <= 2048"`, `"WG < 0"`, "has no configuration that meets its restrictions"},
		{`"params": {"WG": 64, "UNROLL": 1}`, `"params": {"WG": 48, "UNROLL": 1}`, "own point WG=48,UNROLL=1 is not a configuration of its space"},
		{`"space": {`, `"spac": {`, `restricts a space the candidate does not have`},
		{`"groups": ["div_up(N / 4, WG * UNROLL)"]}`, `"groups": ["div_up(N / 4, WG * UNROLL * (WG - 32))"]}`, "in a configuration of the space of candidate \"vec4\""},
	} {
		data, err := os.ReadFile(filepath.Join(manifestDir, spaceManifest))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), tt.from) {
			t.Fatalf("%s does not contain %s", spaceManifest, tt.from)
		}
		_, err = manifest.Parse([]byte(strings.Replace(string(data), tt.from, tt.to, 1)), manifestDir)
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s → %s: %v, want one line of INVALID_ARGUMENT saying %q", tt.from, tt.to, err, tt.want)
		}
	}
}

// TestSpaceManifestSearch searches the manifest's space on the test
// device: every configuration is verified against the reference (a
// candidate outside the space) and the fastest committed.
func TestSpaceManifestSearch(t *testing.T) {
	dev := devtest.Device(t)
	op := loadSpace(t, nil)
	cache := tempCache(t)
	opts := autotune.Options{TargetHalfWidth: 0.05, Budget: 100 * 1e6, MinSamples: stats.MinIntervalSamples, MaxSamples: 12, Warmup: 1e7}
	tuner := autotune.NewTuner(dev, cache, opts)
	res, err := tuner.Search(context.Background(), op, kernels.SizeOf(1<<16), autotune.SearchOptions{Options: search.Options{Strategy: search.Random, Seed: 4, MaxEvals: 6}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Search.Measured != 6 || res.Entry.Fastest < 0 || !strings.HasPrefix(res.Entry.FastestName, "vec4-WG") {
		t.Errorf("searched %d configurations, fastest %q", res.Search.Measured, res.Entry.FastestName)
	}
	for _, r := range res.Entry.Results {
		if r.Outcome != results.Measured && r.Outcome != results.Unevaluated {
			t.Errorf("%s: %s %s", r.Name, r.Outcome, r.Error)
		}
	}
}
