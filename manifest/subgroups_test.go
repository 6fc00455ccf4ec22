package manifest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
)

// subgroupDevice records the subgroup settings of every pipeline built,
// by label, and may claim less of subgroup size control than the device
// has.
type subgroupDevice struct {
	hal.Device
	info hal.DeviceInfo
	mu   sync.Mutex
	got  map[string][2]uint32 // label: size, full (0 or 1)
}

func (d *subgroupDevice) Info() hal.DeviceInfo { return d.info }

func (d *subgroupDevice) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	d.mu.Lock()
	full := uint32(0)
	if desc.FullSubgroups {
		full = 1
	}
	d.got[desc.Label] = [2]uint32{desc.SubgroupSize, full}
	d.mu.Unlock()
	return d.Device.CreateExecutable(desc)
}

// TestManifestRequiredSubgroupSize: rms_norm.json's candidates reduce in
// subgroups of the size their pipeline requires (subgroup_size,
// full_subgroups), and compute right only with it. Each runs and
// verifies where the device can require its size (lavapipe's 8, an
// H200's 32), its pipeline built with the size and full subgroups; the
// others are unsupported, saying why; and on a device without subgroup
// size control, none of them runs.
func TestManifestRequiredSubgroupSize(t *testing.T) {
	ctx := context.Background()
	ops, err := manifest.Load(filepath.Join(manifestDir, "rms_norm.json"))
	if err != nil {
		t.Fatal(err)
	}
	op, cands := opNamed(t, ops, "rms-norm")
	real := devtest.Device(t)
	dev := &subgroupDevice{Device: real, info: real.Info(), got: map[string][2]uint32{}}
	l := dev.info.Limits
	e, err := autotune.Measure(ctx, dev, op, kernels.SizeOf(96, 200), quick)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for i, c := range cands[1:] {
		r := e.Results[i+1]
		sg := uint32(c.Params["SG"])
		if c.SubgroupSize != sg || !c.FullSubgroups || c.Executable().SubgroupSize != sg || !c.Executable().FullSubgroups {
			t.Errorf("%s: candidate's subgroups %d, full %v (its pipeline: %d, %v), want %d and full",
				c.Name, c.SubgroupSize, c.FullSubgroups, c.Executable().SubgroupSize, c.Executable().FullSubgroups, sg)
		}
		if !dev.info.Features.RequiredSubgroupSize || sg < l.MinSubgroupSize || sg > l.MaxSubgroupSize {
			if r.Outcome != results.Unsupported || !strings.Contains(r.Error, "subgroup size of") {
				t.Errorf("%s on a device of subgroups %d to %d: %s %q, want unsupported naming the subgroup size", c.Name, l.MinSubgroupSize, l.MaxSubgroupSize, r.Outcome, r.Error)
			}
			continue
		}
		ran++
		if r.Outcome != results.Measured && r.Outcome != results.Dropped {
			t.Errorf("%s: %s %q, want measured", c.Name, r.Outcome, r.Error)
		}
		label := c.Name
		if got := dev.got[label]; got != [2]uint32{sg, 1} {
			t.Errorf("pipeline %s was built with subgroup size %d, full %d; want %d, 1 (built: %v)", label, got[0], got[1], sg, dev.got)
		}
	}
	if ran == 0 {
		t.Errorf("no candidate ran on %s (subgroups %d to %d); rms_norm.json should have one of its size", dev.info.Name, l.MinSubgroupSize, l.MaxSubgroupSize)
	}

	dev.info.Features.RequiredSubgroupSize = false
	err = kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(96, 200), 1, 1)
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "requiredSubgroupSizeStages") {
		t.Errorf("sg8-wg64 without subgroup size control: %v; want UNIMPLEMENTED naming it", err)
	}
	dev.info.Features.RequiredSubgroupSize = true
	dev.info.Features.ComputeFullSubgroups = false
	dev.info.Limits.MinSubgroupSize, dev.info.Limits.MaxSubgroupSize = 8, 64
	err = kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(96, 200), 1, 1)
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "computeFullSubgroups") {
		t.Errorf("sg8-wg64 without full subgroups: %v; want UNIMPLEMENTED naming computeFullSubgroups", err)
	}
}

// TestManifestSubgroupErrors: a required subgroup size that is no power
// of two, and full subgroups of a workgroup whose x is not a multiple of
// the size, are errors of the manifest, wherever it runs.
func TestManifestSubgroupErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(manifestDir, "rms_norm.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ old, new, says string }{
		{`"params": {"SG": 8, "WG": 64}`, `"params": {"SG": 12, "WG": 96}`, "is 12; a required subgroup size is a power of two"},
		{`"params": {"SG": 8, "WG": 64}`, `"params": {"SG": 8, "WG": 60}`, "requires full subgroups of 8, but the workgroup's size in x is 60"},
		{`"full_subgroups": true, "groups": ["R"]}`, `"full_subgroups": 1, "groups": ["R"]}`, "full_subgroups"},
		{`"subgroup_size": "SG", "full_subgroups": true, "groups": ["R"]}`, `"subgroup_size": "C", "groups": ["R"]}`, "it is a dimension"},
	} {
		text := strings.Replace(string(data), tt.old, tt.new, 1)
		if text == string(data) {
			t.Fatalf("%q is not in rms_norm.json", tt.old)
		}
		_, err := manifest.Parse([]byte(text), manifestDir)
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("with %s: %v; want INVALID_ARGUMENT saying %q", tt.new, err, tt.says)
		}
	}
}
