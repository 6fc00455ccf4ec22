package manifest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDimsByDeviceClass: a dimension's "integrated" extent defaults to
// its "default", and "discrete" to "integrated".
func TestDimsByDeviceClass(t *testing.T) {
	for _, tc := range []struct {
		dims string
		want []string
	}{
		{`{"N": 16, "M": {"default": 8, "discrete": 64}}`, []string{"16x8", "16x8", "16x64"}},
		{`{"N": {"default": 8, "integrated": 32}}`, []string{"8", "32", "32"}},
		{`{"N": {"default": 8, "integrated": 32, "discrete": 4}}`, []string{"8", "32", "4"}},
	} {
		m := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "x", "dims": ` + tc.dims + `,
		  "buffers": [{"name": "a", "type": "f32", "len": 4, "binding": 0, "role": "output", "expect": 0},
		              {"name": "b", "type": "f32", "len": 4, "binding": 1, "role": "output", "expect": 0}],
		  "verify": {},
		  "candidates": [{"name": "c", "spirv": "../testdata/manifests/saxpy.spv", "groups": [1],
		                  "push_constants": [{"type": "u32", "value": 1}, {"type": "f32", "value": 1}]}]}]}`
		ops, err := Parse([]byte(m), ".")
		if err != nil {
			t.Fatal(err)
		}
		op := ops[0].(*manifestOp)
		got := []string{op.sizes[0].String(), op.sizes[1].String(), op.sizes[2].String()}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: sizes by class (-want +got):\n%s", tc.dims, diff)
		}
	}
}
