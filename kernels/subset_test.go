package kernels_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/status"
)

// TestSubset measures a subset of an operation's candidates: each must
// run its own kernel with its own geometry (a wrong index would record
// another candidate's dispatch and fail verification), and a problem whose
// runs need resetting must still say so.
func TestSubset(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	user, err := manifest.Load("../testdata/manifests/kernels.json")
	if err != nil {
		t.Fatal(err)
	}
	ops := append([]kernels.Operation{gemm}, user...)
	for _, op := range ops {
		t.Run(op.Name(), func(t *testing.T) {
			all := op.Candidates()
			// Every other candidate, from the last backwards: no index
			// of the subset is the candidate's own.
			var names []string
			for i := len(all) - 1; i >= 0; i -= 2 {
				names = append(names, all[i].Name)
			}
			sub, err := kernels.Subset(op, func(c kernels.Candidate) bool { return slices.Contains(names, c.Name) })
			if err != nil {
				t.Fatal(err)
			}
			// Its candidates depend on the size (CandidatesAt) where the
			// operation's do, and only there.
			_, sizes := op.(kernels.OperationSizer)
			if _, ok := sub.(kernels.OperationSizer); ok != sizes {
				t.Errorf("the subset is an OperationSizer: %v; the operation: %v", ok, sizes)
			}
			got := sub.Candidates()
			if len(got) != len(names) || (len(all) > 1 && len(got) == len(all)) {
				t.Fatalf("subset has %d candidates, want %d of %d", len(got), len(names), len(all))
			}
			for i, c := range got {
				if i > 0 && slices.Index(names, c.Name) > slices.Index(names, got[i-1].Name) {
					t.Errorf("subset order %v is not the operation's", got)
				}
				if !slices.Contains(names, c.Name) {
					t.Errorf("candidate %s is not in the subset", c.Name)
				}
			}
			size := op.DefaultSize(dev.Info())
			for i, c := range got {
				err := kernels.VerifyCandidate(ctx, dev, sub, size, i, 20261130)
				if op.Name()+"/"+c.Name == "saxpy/wrong-alpha" { // wrong on purpose
					if !errors.Is(err, kernels.ErrWrongResult) {
						t.Errorf("%s (subset index %d): got %v, want a wrong result", c.Name, i, err)
					}
					continue
				}
				unsupported := status.CodeOf(err) == status.Unimplemented // too big for this device
				refused := strings.HasPrefix(c.Name, "vec4") && status.CodeOf(err) == status.InvalidArgument
				if err != nil && !unsupported && !refused {
					t.Errorf("%s (subset index %d): %v", c.Name, i, err)
				}
			}
			p, err := op.Prepare(ctx, dev, size, 1)
			if err != nil {
				t.Fatal(err)
			}
			_, resets := p.(kernels.Resetter)
			if err := p.Release(); err != nil {
				t.Fatal(err)
			}
			sp, err := sub.Prepare(ctx, dev, size, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := sp.Release(); err != nil {
					t.Error(err)
				}
			}()
			if _, ok := sp.(kernels.Resetter); ok != resets {
				t.Errorf("the subset's problem is a Resetter: %v; the operation's: %v", ok, resets)
			}
			if err := sp.Verify(ctx, len(got)); status.CodeOf(err) != status.InvalidArgument {
				t.Errorf("Verify of candidate %d of %d: %v, want InvalidArgument", len(got), len(got), err)
			}
		})
	}
	if _, err := kernels.Subset(gemm, func(kernels.Candidate) bool { return false }); status.CodeOf(err) != status.NotFound {
		t.Errorf("an empty subset: %v, want NotFound", err)
	}
	if whole, err := kernels.Subset(gemm, func(kernels.Candidate) bool { return true }); err != nil || whole != gemm {
		t.Errorf("the whole operation as a subset: %v, %v; want the operation itself", whole, err)
	}
}

// TestSubsetKeepsArithmetic checks that a subset's flops run on what its
// operation's do: gemm-f16's candidates picked by --candidates are still
// measured against the matrix units' peak, not the vector units'.
func TestSubsetKeepsArithmetic(t *testing.T) {
	for _, name := range []string{"gemm-f16", "peak-coopmat-s8", "copy"} {
		op, err := catalogue.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		first := op.Candidates()[0].Name
		sub, err := kernels.Subset(op, func(c kernels.Candidate) bool { return c.Name == first })
		if err != nil {
			t.Fatal(err)
		}
		if got, want := kernels.ArithmeticOf(sub), kernels.ArithmeticOf(op); got != want {
			t.Errorf("%s: a subset's arithmetic is %v, want %v (its operation's)", name, got, want)
		}
	}
}
