package catalogue_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

func gemmSpace(t testing.TB) (kernels.Operation, *kernels.Space) {
	t.Helper()
	op, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	s := kernels.SpaceOf(op)
	if s == nil {
		t.Fatal("gemm has no space")
	}
	return op, s
}

// TestGEMMSpace checks the size of gemm's space (1152 valid
// configurations at 4096³ on an H200), that every hand-written regblock
// candidate, swizzled and exact ones included, is a point of it there
// (the same kernel, constants and all: a search can find the catalogue's
// best), and that no rejected configuration reaches the device's own
// check.
func TestGEMMSpace(t *testing.T) {
	op, s := gemmSpace(t)
	size := kernels.SizeOf(4096, 4096, 4096)
	h200, err := s.Points(op.Dims(), size, h200Info)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h200.Configs); n != 1152 {
		t.Errorf("%d valid configurations on an H200, want the 1152 Space's doc says (rejected: %v)", n, h200.Rejected)
	}
	if h200.Rejected["device"] != 0 {
		t.Errorf("%d configurations passed every restriction and still do not fit an H200: a restriction is missing", h200.Rejected["device"])
	}
	lava, err := s.Points(op.Dims(), size, lavapipeInfo)
	if err != nil {
		t.Fatal(err)
	}
	if len(lava.Configs) >= len(h200.Configs) {
		t.Errorf("%d configurations with 32 KiB of shared memory, %d with 48: the limit is not applied", len(lava.Configs), len(h200.Configs))
	}
	t.Logf("gemm space: %d configurations, %d valid on an H200, %d on lavapipe", h200.Total, len(h200.Configs), len(lava.Configs))
	points := map[string]kernels.Candidate{}
	for _, c := range h200.Candidates() {
		points[c.Name] = c
	}
	named := 0
	for _, c := range op.Candidates() {
		if c.Shader != "gemm_regblock" {
			continue
		}
		named++
		checkVariant(t, s, c)
		p, ok := points[c.Name]
		if !ok {
			t.Errorf("hand-written candidate %s is not a point of the space", c.Name)
			continue
		}
		if diff := cmp.Diff(c, p, cmpopts.IgnoreFields(kernels.Candidate{}, "SPIRV", "Applies")); diff != "" || (c.Applies == nil) != (p.Applies == nil) {
			t.Errorf("%s: the space's point differs from the hand-written candidate (-hand +space):\n%s", c.Name, diff)
		}
	}
	if named < 8 {
		t.Errorf("only %d hand-written regblock candidates", named)
	}
	// A small problem rejects blocks larger than itself.
	small, err := s.Points(op.Dims(), kernels.SizeOf(40, 200, 64), h200Info)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range small.Configs {
		if c["BM"] > 64 {
			t.Errorf("M = 40 and BM = %d: the block is larger than the problem", c["BM"])
		}
	}
}

// checkVariant checks what a hand-written candidate's SWZ and EXACT
// change: A's rows swizzled take two buffers of BK vec4s less shared
// memory than the same tiling padded, and loads without their checks
// apply only where M, N and K are multiples of BM, BN and BK.
func checkVariant(t *testing.T, s *kernels.Space, c kernels.Candidate) {
	t.Helper()
	if c.Params["SWZ"] == 1 {
		cfg := kernels.Config{"PH": 1, "EXACT": 0}
		for name, v := range c.Params {
			cfg[name] = v
		}
		cfg["SWZ"] = 0
		p, err := s.Candidate(cfg)
		if err != nil {
			t.Fatalf("%s: the space's candidate of %v: %v", c.Name, cfg, err)
		}
		if want := p.Needs().SharedMemory - 2*16*uint32(cfg["BK"]); c.Needs().SharedMemory != want {
			t.Errorf("%s: %d bytes of shared memory, want %d (%s's less its padding)", c.Name, c.Needs().SharedMemory, want, p.Name)
		}
	}
	if c.Params["EXACT"] != 1 {
		if c.Applies != nil {
			t.Errorf("%s: has an Applies rule, but its loads are checked at every size", c.Name)
		}
		return
	}
	bm, bn, bk := c.Params["BM"], c.Params["BN"], c.Params["BK"]
	for _, tc := range []struct {
		size kernels.Size
		want bool
	}{
		{kernels.SizeOf(bm, bn, bk), true},
		{kernels.SizeOf(3*bm, 5*bn, 7*bk), true},
		{kernels.SizeOf(bm+1, bn, bk), false},
		{kernels.SizeOf(bm, bn+4, bk), false},
		{kernels.SizeOf(bm, bn, bk+4), false},
		{kernels.SizeOf(bm/2, bn, bk), false},
		{kernels.SizeOf(bm + 1), true}, // not gemm's: Prepare refuses it, saying why
	} {
		if c.Applies == nil || c.Applies(tc.size) != tc.want {
			t.Errorf("%s: applies to %v: %v, want %v", c.Name, tc.size, c.Applies != nil && c.Applies(tc.size), tc.want)
		}
	}
	if where := fmt.Sprintf("multiples of %d, %d and %d", bm, bn, bk); !strings.Contains(c.AppliesWhere, where) {
		t.Errorf("%s: AppliesWhere %q does not say %q", c.Name, c.AppliesWhere, where)
	}
}

// TestSpaceCheck refuses malformed spaces with one clear error.
func TestSpaceCheck(t *testing.T) {
	_, g := gemmSpace(t)
	for what, s := range map[string]*kernels.Space{
		"no params":      {Candidate: g.Candidate, Operation: g.Operation},
		"repeated name":  {Params: []kernels.Param{{Name: "A", Values: []int{1}}, {Name: "A", Values: []int{2}}}, Candidate: g.Candidate, Operation: g.Operation},
		"no values":      {Params: []kernels.Param{{Name: "A"}}, Candidate: g.Candidate, Operation: g.Operation},
		"repeated value": {Params: []kernels.Param{{Name: "A", Values: []int{1, 1}}}, Candidate: g.Candidate, Operation: g.Operation},
		"no candidate":   {Params: []kernels.Param{{Name: "A", Values: []int{1}}}},
	} {
		if err := s.Check(); status.CodeOf(err) != status.InvalidArgument || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Check() = %v, want one line of INVALID_ARGUMENT", what, err)
		}
	}
	if got := kernels.Pow2(8, 64); !cmp.Equal(got, []int{8, 16, 32, 64}) {
		t.Errorf("Pow2(8, 64) = %v", got)
	}
	if got := kernels.Range(2, 9, 3); !cmp.Equal(got, []int{2, 5, 8}) {
		t.Errorf("Range(2, 9, 3) = %v", got)
	}
}

// TestGEMMSpaceVerifies verifies a seeded sample of the space's points on
// the test device at a size that is a multiple of no block, so that the
// tilings no hand-written candidate has are checked too.
func TestGEMMSpaceVerifies(t *testing.T) {
	op, s := gemmSpace(t)
	dev := devtest.Device(t)
	size := kernels.SizeOf(131, 97, 45)
	pts, err := s.Points(op.Dims(), size, dev.Info())
	if err != nil {
		t.Fatal(err)
	}
	n := 3 // lavapipe compiles one in about 4 s
	if testing.Short() {
		n = 1
	}
	rng := rand.New(rand.NewPCG(20, 1))
	for range n {
		i := rng.IntN(len(pts.Configs))
		name := pts.Candidates()[i].Name
		if err := kernels.VerifyCandidate(context.Background(), dev, pts.Op, size, pts.Index[i], 7); err != nil {
			t.Errorf("%s (%s): %v", name, s.Name(pts.Configs[i]), err)
		}
	}
}

// TestOnlyGEMMHasASpace checks that of the built-in operations only gemm
// spans a space: gemm-f16 and gemm-bf16, of gemm's type, have none (a
// search of theirs would explore gemm's fp32 kernels).
func TestOnlyGEMMHasASpace(t *testing.T) {
	for _, op := range catalogue.Builtin() {
		if has := kernels.SpaceOf(op) != nil; has != (op.Name() == "gemm") {
			t.Errorf("%s: has a space: %v, want %v", op.Name(), has, !has)
		}
	}
}
