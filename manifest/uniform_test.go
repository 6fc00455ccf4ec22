package manifest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/status"
)

// uniformManifest is saxpy with a in a uniform buffer (saxpy_uniform.spv
// reads it at binding 2), checked against the plain kernel with a as a
// push constant.
const uniformManifest = `{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy", "dims": {"N": 1000},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0},
		{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout"},
		{"name": "coef", "type": "f32", "len": 4, "binding": 2, "init": {"fill": 2.5}}],
	"push_constants": [{"type": "u32", "value": "N"}],
	"verify": {"reference": "push"},
	"candidates": [
		{"name": "push", "spirv": "saxpy.spv", "bindings": ["x", "y"], "groups": ["div_up(N, 256)"],
		 "push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}]},
		{"name": "uniform", "spirv": "saxpy_uniform.spv", "groups": ["div_up(N, 256)"]}]}]}`

// TestManifestUniformBuffer: a module that reads a uniform buffer binds
// a manifest buffer as one, and computes what the reference does; with
// another value in it, it does not.
func TestManifestUniformBuffer(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	for _, tt := range []struct {
		fill string
		pass bool
	}{{`{"fill": 2.5}`, true}, {`{"fill": 2.25}`, false}} {
		ops, err := manifest.Parse([]byte(strings.Replace(uniformManifest, `{"fill": 2.5}`, tt.fill, 1)), manifestDir)
		if err != nil {
			t.Fatal(err)
		}
		err = kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(1000), 1, 1)
		if tt.pass && err != nil || !tt.pass && !errors.Is(err, kernels.ErrWrongResult) {
			t.Errorf("a uniform buffer of %s: %v (want pass: %v)", tt.fill, err, tt.pass)
		}
	}
	bad := strings.Replace(uniformManifest, `"init": {"fill": 2.5}`, `"image": {"format": "r32f", "width": 2, "height": 2}`, 1)
	bad = strings.Replace(bad, `"type": "f32", "len": 4, `, ``, 1)
	if _, err := manifest.Parse([]byte(bad), manifestDir); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "is an image") {
		t.Errorf("an image bound at a uniform buffer: %v", err)
	}
}
