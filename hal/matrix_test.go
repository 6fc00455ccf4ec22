package hal_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
)

// matrices are multiply-adds of the extensions, of the kinds NVIDIA's
// drivers list: fp16 with fp16 and fp32 sums, int8, bfloat16, and a
// granularity of NV2's workgroup-scope matrices.
var matrices = []hal.CooperativeMatrix{
	{API: hal.MatrixNV, M: 16, N: 8, K: 16, A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF16, Result: hal.ComponentF16, Scope: hal.ScopeSubgroup},
	{API: hal.MatrixNV, M: 16, N: 16, K: 16, A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeSubgroup},
	{API: hal.MatrixKHR, M: 16, N: 16, K: 32, A: hal.ComponentS8, B: hal.ComponentS8, C: hal.ComponentS32, Result: hal.ComponentS32, SaturatingAccumulation: true, Scope: hal.ScopeSubgroup},
	{API: hal.MatrixKHR, M: 16, N: 16, K: 16, A: hal.ComponentBF16, B: hal.ComponentBF16, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeWorkgroup},
	{API: hal.MatrixNV2, M: 32, N: 32, K: 16, A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeWorkgroup, Invocations: 256},
}

func TestCooperativeMatrixString(t *testing.T) {
	want := []string{
		"16x8x16 f16*f16+f16=f16 subgroup (nv)",
		"16x16x16 f16*f16+f32=f32 subgroup (nv)",
		"16x16x32 s8*s8+s32=s32 sat subgroup (khr)",
		"16x16x16 bf16*bf16+f32=f32 workgroup (khr)",
		"32x32x16 f16*f16+f32=f32 workgroup:256 (nv2)",
	}
	for i, m := range matrices {
		if got := m.String(); got != want[i] {
			t.Errorf("String() = %q, want %q", got, want[i])
		}
		back, err := hal.ParseCooperativeMatrix(m.String())
		if err != nil {
			t.Errorf("ParseCooperativeMatrix(%q): %v", m, err)
			continue
		}
		if diff := cmp.Diff(m, back); diff != "" {
			t.Errorf("ParseCooperativeMatrix(String()) differs (-want +got):\n%s", diff)
		}
	}
	for _, bad := range []string{
		"", "16x16 f16*f16+f32=f32 subgroup (nv)", "16x16x16 f16*f16+f32 subgroup (nv)",
		"16x16x16 f16*q7+f32=f32 subgroup (nv)", "16x16x16 f16*f16+f32=f32 warp (nv)",
		"16x16x16 f16*f16+f32=f32 subgroup (amd)", "16x16x16x f16*f16+f32=f32 subgroup (nv)",
		"32x32x16 f16*f16+f32=f32 workgroup:0 (nv2)", "32x32x16 f16*f16+f32=f32 workgroup:x (nv2)",
		"32x32x16 f16*f16+f32=f32 workgroup:0256 (nv2)",
	} {
		if m, err := hal.ParseCooperativeMatrix(bad); err == nil {
			t.Errorf("ParseCooperativeMatrix(%q) = %v, want an error", bad, m)
		}
	}
	text, err := json.Marshal(matrices)
	if err != nil {
		t.Fatal(err)
	}
	var back []hal.CooperativeMatrix
	if err := json.Unmarshal(text, &back); err != nil {
		t.Fatalf("json.Unmarshal(%s): %v", text, err)
	}
	if diff := cmp.Diff(matrices, back); diff != "" {
		t.Errorf("JSON round trip of %s (-want +got):\n%s", text, diff)
	}
	if got := hal.ComponentType(99).String(); got != "type(99)" {
		t.Errorf("ComponentType(99) = %q", got)
	}
	if got := hal.MatrixKHR.Extension(); got != "VK_KHR_cooperative_matrix" {
		t.Errorf("MatrixKHR.Extension() = %q", got)
	}
}

func TestHasCooperativeMatrix(t *testing.T) {
	info := hal.DeviceInfo{CooperativeMatrices: matrices}
	if !info.HasCooperativeMatrix(matrices[1]) {
		t.Errorf("HasCooperativeMatrix(%v) = false for a listed shape", matrices[1])
	}
	khr := matrices[1]
	khr.API = hal.MatrixKHR
	f16acc := matrices[1]
	f16acc.C, f16acc.Result = hal.ComponentF16, hal.ComponentF16
	for _, m := range []hal.CooperativeMatrix{khr, f16acc} {
		if info.HasCooperativeMatrix(m) {
			t.Errorf("HasCooperativeMatrix(%v) = true for a shape not listed", m)
		}
	}
	// NV2's entries are granularities, for workgroups of their size.
	g := matrices[4]
	for _, tt := range []struct {
		m, n, k, invocations uint32
		want                 bool
	}{
		{32, 32, 16, 256, true}, {128, 256, 64, 256, true}, {32, 32, 16, 128, false},
		{48, 32, 16, 256, false}, {32, 32, 8, 256, false},
	} {
		m := g
		m.M, m.N, m.K, m.Invocations = tt.m, tt.n, tt.k, tt.invocations
		if got := info.HasCooperativeMatrix(m); got != tt.want {
			t.Errorf("HasCooperativeMatrix(%v) = %v, want %v (the device lists %v)", m, got, tt.want, g)
		}
	}
	f16out := g
	f16out.C, f16out.Result = hal.ComponentF16, hal.ComponentF16
	if info.HasCooperativeMatrix(f16out) {
		t.Errorf("HasCooperativeMatrix(%v) = true for types not listed", f16out)
	}
	f := hal.Features{CooperativeMatrixKHR: true}
	if f.CooperativeMatrix(hal.MatrixNV) || !f.CooperativeMatrix(hal.MatrixKHR) {
		t.Errorf("Features%+v.CooperativeMatrix: want KHR only", f)
	}
}

func TestClone(t *testing.T) {
	info := hal.DeviceInfo{MemoryHeaps: []hal.MemoryHeap{{Size: 1}}, CooperativeMatrices: []hal.CooperativeMatrix{matrices[0]},
		Withheld: []string{"VK_KHR_cooperative_matrix"}}
	c := info.Clone()
	c.MemoryHeaps[0].Size = 2
	c.CooperativeMatrices[0].M = 64
	c.Withheld[0] = "changed"
	if info.MemoryHeaps[0].Size != 1 || info.CooperativeMatrices[0].M != 16 || info.Withheld[0] != "VK_KHR_cooperative_matrix" {
		t.Errorf("Clone shares memory with the original: %+v", info)
	}
}
