package manifest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
)

// setsManifest is saxpy with y in descriptor set 1 (saxpy_sets.spv),
// checked against the plain kernel with both in set 0.
const setsManifest = `{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy", "dims": {"N": 1000},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0},
		{"name": "y", "type": "f32", "len": "N", "set": 1, "binding": 0, "role": "inout"}],
	"push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
	"verify": {"reference": "plain"},
	"candidates": [
		{"name": "plain", "spirv": "saxpy.spv", "bindings": ["x", "y"], "groups": ["div_up(N, 256)"]},
		{"name": "sets", "spirv": "saxpy_sets.spv", "groups": ["div_up(N, 256)"]}]}]}`

// TestManifestDescriptorSets: a module with a buffer in descriptor set 1
// binds the manifest buffer that says "set": 1, runs, and computes what
// the reference does (the validation layers, when on, report nothing);
// without "set" the buffer is in set 0 and the manifest is refused,
// naming the set and binding that lack a buffer.
func TestManifestDescriptorSets(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	ops, err := manifest.Parse([]byte(setsManifest), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	op, cands := opNamed(t, ops, "saxpy")
	if got := cands[1].Executable().Sets; fmt.Sprint(got) != "[1 1]" {
		t.Errorf("candidate sets' pipeline has bindings by set %v, want [1 1]", got)
	}
	if err := kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(1000), 1, 1); err != nil {
		t.Errorf("saxpy with y in set 1: %v", err)
	}
	bad := strings.Replace(setsManifest, `"set": 1, `, ``, 1)
	bad = strings.Replace(bad, `"binding": 0, "role"`, `"binding": 1, "role"`, 1)
	if _, err := manifest.Parse([]byte(bad), manifestDir); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "binding 0 of set 1") {
		t.Errorf("y in set 0 for a module that reads it in set 1: %v; want INVALID_ARGUMENT naming binding 0 of set 1", err)
	}
}

// TestManifestTooManySets: a kernel whose buffer is in a set past every
// device's limit (set 32: 33 sets, where the most generous driver binds
// 32) is unsupported, saying how many sets it needs and the device has;
// the operation's other candidate still runs.
func TestManifestTooManySets(t *testing.T) {
	dev := devtest.Device(t)
	limit := dev.Info().Limits.MaxBoundDescriptorSets
	if limit >= 33 {
		t.Skipf("the device binds %d sets", limit)
	}
	dir := t.TempDir()
	compileInto(t, dir, map[string]string{"set32": `#version 450
layout(local_size_x = 64) in;
layout(set = 32, binding = 0) buffer Y { float y[]; };
void main() { y[gl_GlobalInvocationID.x] = 1.0; }`, "set0": `#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Y { float y[]; };
void main() { y[gl_GlobalInvocationID.x] = 1.0; }`})
	text := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "ones", "dims": {"N": 64},
	"buffers": [{"name": "y", "type": "f32", "len": "N", "set": 32, "binding": 0, "role": "output", "expect": "1.0"}],
	"verify": {}, "candidates": [{"name": "set32", "spirv": "set32.spv", "groups": [1]},
		{"name": "set0", "spirv": "set0.spv", "bindings": ["y"], "groups": [1]}]}]}`
	ops, err := manifest.Parse([]byte(text), dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := autotune.Measure(context.Background(), dev, ops[0], kernels.SizeOf(64), quick)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("needs 33 descriptor sets, device has %d", limit)
	if r := e.Results[0]; r.Outcome != results.Unsupported || !strings.Contains(r.Error, want) {
		t.Errorf("a kernel of 33 sets: %s %q, want unsupported saying %q", r.Outcome, r.Error, want)
	}
	if r := e.Results[1]; r.Outcome != results.Measured && r.Outcome != results.Dropped {
		t.Errorf("the other candidate: %s %q, want measured", r.Outcome, r.Error)
	}
}

// TestManifestImageSets: a module that writes its image in descriptor set
// 1 (downscale_storage with dst moved there) computes what the reference
// with both images in set 0 does, its image bound in the set the buffer
// says.
func TestManifestImageSets(t *testing.T) {
	dev := devtest.Device(t)
	dir := t.TempDir()
	compileInto(t, dir, map[string]string{"downscale_set1": `#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D dst;
void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	if (any(greaterThanEqual(p, imageSize(dst)))) {
		return;
	}
	ivec2 q = 2 * p;
	vec4 sum = imageLoad(src, q) + imageLoad(src, q + ivec2(1, 0))
		+ imageLoad(src, q + ivec2(0, 1)) + imageLoad(src, q + ivec2(1, 1));
	imageStore(dst, p, sum * 0.25);
}`})
	ref, err := os.ReadFile(filepath.Join(manifestDir, "downscale_storage.spv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "downscale_storage.spv"), ref, 0o644); err != nil {
		t.Fatal(err)
	}
	text := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "downscale", "dtype": "f32", "dims": {"W": 64, "H": 32},
	"buffers": [{"name": "src", "image": {"format": "rgba8", "width": "W", "height": "H"}, "binding": 0},
		{"name": "dst", "image": {"format": "rgba8", "width": "W / 2", "height": "H / 2"}, "set": 1, "binding": 0, "role": "output"}],
	"verify": {"reference": "storage"},
	"candidates": [
		{"name": "storage", "spirv": "downscale_storage.spv", "bindings": ["src", "dst"], "groups": ["div_up(W / 2, 16)", "div_up(H / 2, 16)"]},
		{"name": "set1", "spirv": "downscale_set1.spv", "groups": ["div_up(W / 2, 16)", "div_up(H / 2, 16)"]}]}]}`
	ops, err := manifest.Parse([]byte(text), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := kernels.VerifyCandidate(context.Background(), dev, ops[0], kernels.SizeOf(64, 32), 1, 1); err != nil {
		t.Errorf("downscale with dst in set 1: %v", err)
	}
}
