package catalogue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
)

// emulatedGEMMF16 are gemm-f16's twins on gemm_f16_coopmat_emu: the code
// of the NV cooperative-matrix candidates (tiling, staging, both buffer
// counts, the epilogue) with fragments every device can hold. They cover
// one and several fragments per warp in each direction, slices of one and
// two 16s of k, one and two buffers, and one to three slices in flight
// in registers.
var emulatedGEMMF16 = []kernels.Candidate{
	coopmatGEMM("gemm_f16_coopmat_emu", 64, 64, 32, 32, 32, 2, 1),
	coopmatGEMM("gemm_f16_coopmat_emu", 64, 64, 32, 32, 32, 1, 1),
	coopmatGEMM("gemm_f16_coopmat_emu", 32, 64, 16, 16, 32, 2, 1),
	coopmatGEMM("gemm_f16_coopmat_emu", 64, 32, 32, 32, 16, 1, 1),
	coopmatGEMM("gemm_f16_coopmat_emu", 32, 64, 16, 16, 32, 2, 2),
	coopmatGEMM("gemm_f16_coopmat_emu", 64, 32, 16, 32, 16, 1, 3),
	coopmatGEMM("gemm_f16_coopmat_emu", 64, 64, 32, 32, 32, 2, 2),
	coopmatGEMM("gemm_f16_coopmat_emu", 64, 32, 16, 32, 16, 2, 3),
}

// TestCoopmatGeometry checks what the cooperative-matrix shader assumes of
// its constants, for every NV candidate and every twin: warp tiles that
// divide the tile into 16×16 fragments, 128-bit rows, loads that step by
// whole rows of a slice, and an epilogue whose staging fits the shared
// memory it reuses.
func TestCoopmatGeometry(t *testing.T) {
	cands := append(newGEMMF16().Candidates(), emulatedGEMMF16...)
	n := 0
	for _, c := range cands {
		if c.Shader != "gemm_f16_coopmat_nv" && c.Shader != "gemm_f16_coopmat_khr" && c.Shader != "gemm_f16_coopmat_emu" {
			continue
		}
		n++
		p := func(name string) int { return c.Params[name] }
		bm, bn, bk, wm, wn, nbuf, depth := p("BM"), p("BN"), p("BK"), p("WM"), p("WN"), p("NBUF"), p("DEPTH")
		switch {
		case bm%wm != 0 || bn%wn != 0 || wm%16 != 0 || wn%16 != 0 || bk%16 != 0:
			t.Errorf("%s: a %dx%d tile is not made of %dx%d warp tiles of 16x16 fragments, or BK = %d is not a multiple of 16", c.Name, bm, bn, wm, wn, bk)
		case nbuf != 1 && nbuf != 2:
			t.Errorf("%s: NBUF = %d", c.Name, nbuf)
		case depth < 1 || depth > 3:
			t.Errorf("%s: DEPTH = %d", c.Name, depth)
		case !coopmatEpilogueFits(c):
			t.Errorf("%s: the epilogue's staging does not fit the %d bytes of shared memory", c.Name, c.Needs().SharedMemory)
		case int(c.WorkgroupSize[0])%(bk/8) != 0 || int(c.WorkgroupSize[0])%(bn/8) != 0:
			t.Errorf("%s: a workgroup of %d does not step through a slice by whole rows (%d and %d uvec4s)", c.Name, c.WorkgroupSize[0], bk/8, bn/8)
		case int(c.WorkgroupSize[0]) != 32*(bm/wm)*(bn/wn):
			t.Errorf("%s: workgroup of %d for %d warps", c.Name, c.WorkgroupSize[0], (bm/wm)*(bn/wn))
		}
		if c.Shader != "gemm_f16_coopmat_emu" && (c.Needs().SharedMemory > h200SharedMemory || c.Requires.SubgroupSize != 32 || len(c.Requires.CooperativeMatrices) != 1) {
			t.Errorf("%s: requires %+v; want at most the H200's 48 KiB, subgroups of 32 and the NV fp16 multiply-add", c.Name, c.Requires)
		}
	}
	if n < 8 {
		t.Errorf("only %d cooperative-matrix candidates", n)
	}
}

// coopmatEpilogueFits reports whether the epilogue's staging (16 rows of
// WN+8 halves per warp) fits the shared memory of the slices, which it
// reuses: a candidate for which it does not would write past it.
func coopmatEpilogueFits(c kernels.Candidate) bool {
	p := func(name string) uint32 { return uint32(c.Params[name]) }
	warps := (p("BM") / p("WM")) * (p("BN") / p("WN"))
	return 16*warps*16*((p("WN")+8)/8) <= c.Needs().SharedMemory
}

// h200SharedMemory is an H200's maxComputeSharedMemorySize.
const h200SharedMemory = 48 << 10

// TestCoopmatEmulated verifies the emulated twins of the NV candidates on
// the default device, at sizes that take every path: a multiple of every
// tile, and sizes whose M, N and K are multiples of nothing (the checked
// loads and stores of single halves, partial tiles, a K shorter than a
// slice).
func TestCoopmatEmulated(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	op := gemmOf(kernels.F16, emulatedGEMMF16)
	for _, size := range []kernels.Size{kernels.SizeOf(128, 128, 64), kernels.SizeOf(96, 160, 64), kernels.SizeOf(67, 45, 33), kernels.SizeOf(100, 72, 8), kernels.SizeOf(33, 130, 70)} {
		for i, c := range op.Candidates() {
			t.Run(fmt.Sprintf("%s/%v", c.Name, size), func(t *testing.T) {
				if err := kernels.VerifyCandidate(ctx, dev, op, size, i, 7); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestCoopmatPeakEmulated verifies the emulated twin of peak-coopmat-f16's
// candidates: the chains, the alternation of B and -B, the sums of a
// warp's chains and the chains past n left out.
func TestCoopmatPeakEmulated(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	// The twin holds 16×16×16 fragments: the body's chains and sums are
	// the same whatever the fragments' shape.
	k := peakCoopmatF16
	k.shape, k.sized = [3]uint32{16, 16, 16}, false
	op := newCoopmatPeak(k)
	op.cands = []kernels.Candidate{
		k.candidate("peak_coopmat_f16_emu", 4, 2, 2),
		k.candidate("peak_coopmat_f16_emu", 8, 1, 4),
	}
	for _, size := range []kernels.Size{kernels.SizeOf(37, 5), kernels.SizeOf(64, 8), kernels.SizeOf(100, 7)} {
		for i, c := range op.Candidates() {
			t.Run(fmt.Sprintf("%s/%v", c.Name, size), func(t *testing.T) {
				if err := kernels.VerifyCandidate(ctx, dev, op, size, i, 11); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestCoopmatPeakLastWarp checks that the check of peak-coopmat's sums
// reaches the last warp, which has fewer chains than the others: after a
// correct run, the last sum checked is changed, and the check must say so.
func TestCoopmatPeakLastWarp(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	k := peakCoopmatF16
	k.shape, k.sized = [3]uint32{16, 16, 16}, false
	op := newCoopmatPeak(k)
	op.cands = []kernels.Candidate{k.candidate("peak_coopmat_f16_emu", 8, 1, 4)}
	p, err := op.Prepare(ctx, dev, kernels.SizeOf(100, 7), 11) // 13 warps, the last of 4 chains
	if err != nil {
		t.Fatal(err)
	}
	exe, err := dev.CreateExecutable(op.cands[0].Executable())
	if err != nil {
		t.Fatal(errors.Join(err, p.Release()))
	}
	t.Cleanup(func() {
		if err := errors.Join(exe.Release(), p.Release()); err != nil {
			t.Error(err)
		}
	})
	if err := kernels.Run(ctx, dev, p, exe, 0); err != nil {
		t.Fatal(err)
	}
	if err := kernels.Check(ctx, p, 0); err != nil {
		t.Fatalf("the candidate's own result: %v", err)
	}
	y, last := p.(*coopmatPeakProblem).bufY, int64(13*256-1)
	if err := y.Write(ctx, 4*last, f32bytes(12345)); err != nil {
		t.Fatal(err)
	}
	err = p.Verify(ctx, 0)
	if want := "1 of 3328 checked values wrong: Y[12][15][15] (warp 12): got 12345"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Verify = %v, want it to say %q", err, want)
	}
}
