package kernels_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// TestCandidateClone: a clone's slices and maps are its own: changing
// every one of them leaves the candidate it was cloned from as it was.
func TestCandidateClone(t *testing.T) {
	orig := func() kernels.Candidate {
		return kernels.Candidate{
			Name: "c", Sets: []int{0, 1}, BindingKinds: []hal.BindingKind{0, 1},
			Constants: []hal.Constant{{ID: 0, Value: 64}}, Params: map[string]int{"WG": 64},
			Requires: kernels.Requirements{
				CooperativeMatrices: []hal.CooperativeMatrix{{M: 16, N: 16, K: 16}},
				Images:              []kernels.ImageUse{{Format: 1}},
			},
		}
	}
	c := orig()
	d := c.Clone()
	d.Sets[0], d.BindingKinds[0], d.Constants[0].Value, d.Params["WG"] = 9, 9, 9, 9
	d.Requires.CooperativeMatrices[0].M, d.Requires.Images[0].Format = 9, 9
	if diff := cmp.Diff(orig(), c, cmp.Comparer(func(a, b func(kernels.Size) bool) bool { return a == nil && b == nil })); diff != "" {
		t.Errorf("changing a clone changed its original (-want +got):\n%s", diff)
	}
}
