package catalogue_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/kernels"
)

// TestStreamCandidates pins what the one builder of copy's and triad's
// candidates makes of each: shader, name, bindings, push-constant bytes,
// workgroup, params and specialization constants. The names are the keys
// of tuned answers, so a rename would orphan every stored one.
func TestStreamCandidates(t *testing.T) {
	want := map[string][]string{
		"copy": {
			"copy_scalar scalar-wg64 2 4 [64 1 1] map[WG:64] [{0 64}]",
			"copy_scalar scalar-wg256 2 4 [256 1 1] map[WG:256] [{0 256}]",
			"copy_vec4 vec4-wg128 2 4 [128 1 1] map[WG:128] [{0 128}]",
			"copy_vec4 vec4-wg256 2 4 [256 1 1] map[WG:256] [{0 256}]",
			"copy_vec4 vec4-wg512 2 4 [512 1 1] map[WG:512] [{0 512}]",
			"copy_vec4_unroll vec4-unroll4-wg128 2 4 [128 1 1] map[U:4 WG:128] [{0 128} {1 4}]",
			"copy_vec4_unroll vec4-unroll4-wg256 2 4 [256 1 1] map[U:4 WG:256] [{0 256} {1 4}]",
			"copy_vec4_unroll vec4-unroll8-wg256 2 4 [256 1 1] map[U:8 WG:256] [{0 256} {1 8}]",
			"copy_gridstride gridstride-vec4-u2-wg256-g2048 2 4 [256 1 1] map[GROUPS:2048 U:2 WG:256] [{0 256} {1 2}]",
			"copy_gridstride gridstride-vec4-u4-wg256-g1024 2 4 [256 1 1] map[GROUPS:1024 U:4 WG:256] [{0 256} {1 4}]",
			"copy_gridstride gridstride-vec4-u4-wg512-g1024 2 4 [512 1 1] map[GROUPS:1024 U:4 WG:512] [{0 512} {1 4}]",
		},
		"triad": {
			"triad_scalar scalar-wg256 3 8 [256 1 1] map[WG:256] [{0 256}]",
			"triad_vec4 vec4-wg128 3 8 [128 1 1] map[WG:128] [{0 128}]",
			"triad_vec4 vec4-wg256 3 8 [256 1 1] map[WG:256] [{0 256}]",
			"triad_vec4 vec4-wg512 3 8 [512 1 1] map[WG:512] [{0 512}]",
			"triad_gridstride gridstride-vec4-u2-wg256-g2048 3 8 [256 1 1] map[GROUPS:2048 U:2 WG:256] [{0 256} {1 2}]",
			"triad_gridstride gridstride-vec4-u4-wg256-g1024 3 8 [256 1 1] map[GROUPS:1024 U:4 WG:256] [{0 256} {1 4}]",
		},
	}
	for name, want := range want {
		op, err := catalogue.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range op.Candidates() {
			if !reflect.DeepEqual(c.Requires, kernels.Requirements{}) {
				t.Errorf("%s/%s requires %v, want nothing", name, c.Name, c.Requires)
			}
			got = append(got, fmt.Sprintf("%s %s %d %d %v %v %v", c.Shader, c.Name, c.Bindings, c.PushConstantSize, c.WorkgroupSize, c.Params, c.Constants))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s's candidates (-want +got):\n%s", name, diff)
		}
	}
}
