package manifest_test

import (
	"slices"
	"testing"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
)

// TestCandidatesAreCopies: a candidate an operation, its pair or its space
// returns has constants of its own; a caller that changes them changes
// nothing the next caller gets.
func TestCandidatesAreCopies(t *testing.T) {
	op := loadSpace(t, nil)
	pair, err := manifest.Pair(op, op, []string{"vec4"})
	if err != nil {
		t.Fatal(err)
	}
	space := kernels.SpaceOf(op)
	for what, get := range map[string]func() kernels.Candidate{
		"operation": func() kernels.Candidate { return op.Candidates()[1] },
		"pair":      func() kernels.Candidate { return pair.Candidates()[1] },
		"space": func() kernels.Candidate {
			c, err := space.Candidate(kernels.Config{"WG": 128, "UNROLL": 2})
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
	} {
		c := get()
		want := slices.Clone(c.Constants)
		if len(want) == 0 {
			t.Fatalf("%s: %s has no constants to change", what, c.Name)
		}
		c.Constants[0].Value++
		if got := get().Constants; !slices.Equal(got, want) {
			t.Errorf("%s: %s's constants are %v after a caller changed its copy, want %v", what, c.Name, got, want)
		}
	}
}
