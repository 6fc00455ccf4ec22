package catalogue_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/shaders"
)

// remapSize is where the remapped GEMMs' grouped order has an incomplete
// last group after whole ones: 2304 rows are 9, 18 and 36 rows of blocks
// of 256, 128 and 64 (groups of 8: 1, 2 and 4 rows left over), 384
// columns 3 blocks of 128 or 1.5 of 256. M·N·K is under 2²⁶, so Verify
// checks every element of C; the exact variants apply.
var remapSize = kernels.SizeOf(2304, 384, 32)

// TestGEMMRemapped verifies the remapped variants (warp layout WL = 1,
// grouped rasterization GM = 8, both) of every gemm_regblock candidate,
// at gemm's test sizes and remapSize, on every device; those a device
// cannot run through their fitted twins, as
// TestCandidatesTooLargeForTheDevice does for the catalogue. The variants
// are not gemm's candidates, and each carries the constants its name
// says.
func TestGEMMRemapped(t *testing.T) {
	ctx := context.Background()
	op := catalogue.RemappedGEMM()
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	// Each variant is its candidate with constants 8 (WL) and 9 (GM)
	// added, as its name says: a variant that lost one would compute C
	// correctly, with today's mapping, and pass the runs below.
	var want []string
	for _, c := range gemm.Candidates() {
		if strings.Contains(c.Name, "-wl") || strings.Contains(c.Name, "-gm") {
			t.Errorf("gemm's candidate %s is remapped: the variants enter the list only when one wins on a GPU", c.Name)
		}
		if c.Shader != "gemm_regblock" {
			continue
		}
		for _, v := range []struct {
			suffix string
			add    []hal.Constant
		}{
			{"-wl", []hal.Constant{{ID: 8, Value: 1}}},
			{"-gm8", []hal.Constant{{ID: 9, Value: 8}}},
			{"-wl-gm8", []hal.Constant{{ID: 8, Value: 1}, {ID: 9, Value: 8}}},
		} {
			want = append(want, fmt.Sprintf("%s%s %v", c.Name, v.suffix, append(slices.Clone(c.Constants), v.add...)))
		}
	}
	var got []string
	for _, c := range op.Candidates() {
		got = append(got, fmt.Sprintf("%s %v", c.Name, c.Constants))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("remapped variants (-want +got):\n%s", diff)
	}
	sizes := append(slices.Clone(testSizes["gemm"]), remapSize)
	for _, dev := range devices(t) {
		t.Run(deviceName(dev), func(t *testing.T) {
			testOperationAt(t, ctx, dev, op, sizes)
			twins, missing := catalogue.FittedTwins(op, dev.Info())
			for _, name := range missing {
				t.Errorf("%s: too large for %s, and no smaller twin of it runs there: its code is verified nowhere here", name, dev.Info().Name)
			}
			if twins != nil {
				t.Run("fitted", func(t *testing.T) {
					// A twin keeps its candidate's remapping (the name
					// before -as-), or its runs check today's mapping
					// instead.
					for _, c := range twins.Candidates() {
						of, _, _ := strings.Cut(c.Name, "-as-")
						wl := slices.Contains(c.Constants, hal.Constant{ID: 8, Value: 1})
						gm := slices.Contains(c.Constants, hal.Constant{ID: 9, Value: 8})
						if wl != strings.Contains(of, "-wl") || gm != strings.HasSuffix(of, "-gm8") {
							t.Errorf("twin %s: constants %v, want WL and GM as the name says", c.Name, c.Constants)
						}
					}
					testOperationAt(t, ctx, dev, twins, sizes)
				})
			}
		})
	}
}

// TestGEMMRemapCatchesBrokenMapping checks that TestGEMMRemapped's
// verification would catch a remapping that is not a bijection: the
// kernel's source, compiled here as it is, passes at remapSize, and
// compiled with a broken mapping (the last group of rows taken as whole;
// a warp's patch of 8×2 rows twice over, for 8×4) leaves blocks or
// micro-tiles of C unwritten, which Verify must report.
func TestGEMMRemapCatchesBrokenMapping(t *testing.T) {
	if _, err := exec.LookPath("glslc"); err != nil {
		testenv.Unavailable(t, "glslc is not on the PATH")
	}
	src, err := shaders.Source("gemm_regblock")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dev := devices(t)[0]
	op := catalogue.RemappedGEMM()
	p, err := op.Prepare(ctx, dev, remapSize, seed)
	if err != nil {
		t.Fatal(err)
	}
	releaseAtCleanup(t, p)
	for _, tc := range []struct {
		name, cand, from, to string
	}{
		{"as-is-gm", "regblock-128x128x8-8x8-gm8", "", ""},
		{"as-is-wl", "regblock-128x128x8-8x8-wl", "", ""},
		{"last-group-whole", "regblock-128x128x8-8x8-gm8", "uint rows = min(gl_NumWorkGroups.y - first, GM);", "uint rows = GM;"},
		{"patch-rows-twice", "regblock-128x128x8-8x8-wl", "* 4u + lane / 8u);", "* 4u + lane / 8u % 2u);"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := slices.IndexFunc(op.Candidates(), func(c kernels.Candidate) bool { return c.Name == tc.cand })
			if i < 0 {
				t.Fatalf("no candidate %s", tc.cand)
			}
			text := src
			if tc.from != "" {
				if n := strings.Count(text, tc.from); n != 1 {
					t.Fatalf("%q is in gemm_regblock.comp %d times, want once: the test must follow the kernel", tc.from, n)
				}
				text = strings.Replace(text, tc.from, tc.to, 1)
			}
			code, err := glslc.CompileSource(ctx, text, "")
			if err != nil {
				t.Fatal(err)
			}
			desc := op.Candidates()[i].Executable()
			desc.SPIRV = code
			exe, err := dev.CreateExecutable(desc)
			if err != nil {
				t.Fatal(err)
			}
			releaseAtCleanup(t, exe)
			if err := kernels.Run(ctx, dev, p, exe, i); err != nil {
				t.Fatal(err)
			}
			err = p.Verify(ctx, i)
			if tc.from == "" {
				if err != nil {
					t.Fatalf("the kernel as it is: %v", err)
				}
				return
			}
			if !errors.Is(err, kernels.ErrWrongResult) {
				t.Fatalf("Verify with the mapping broken = %v, want ErrWrongResult", err)
			}
			t.Logf("caught: %v", err)
		})
	}
}
