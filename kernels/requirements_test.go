package kernels_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/shaders"
	"github.com/vkbench/vkbench/spirv"
)

// TestModuleRequirements reads what built-in modules' capabilities need.
func TestModuleRequirements(t *testing.T) {
	for _, tt := range []struct {
		shader string
		want   kernels.Requirements
	}{
		{"copy_vec4", kernels.Requirements{}},
		{"peak_fma_f16", kernels.Requirements{Float16: true}},
		{"reduce_subgroup", kernels.Requirements{Subgroup: hal.SubgroupBasic | hal.SubgroupArithmetic}},
	} {
		m, err := spirv.Parse(shaders.MustGet(tt.shader))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, kernels.ModuleRequirements(m)); diff != "" {
			t.Errorf("ModuleRequirements(%s) (-want +got):\n%s", tt.shader, diff)
		}
	}
}

func TestMergeRequirements(t *testing.T) {
	nv := hal.CooperativeMatrix{API: hal.MatrixNV, M: 16, N: 16, K: 16, A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeSubgroup}
	f16acc := nv
	f16acc.C, f16acc.Result = hal.ComponentF16, hal.ComponentF16
	a := kernels.Requirements{Float16: true, SharedMemory: 1024, MinSubgroupSize: 8, CooperativeMatrices: []hal.CooperativeMatrix{nv},
		Images: []kernels.ImageUse{{Format: hal.RGBA8, Features: hal.FormatSampled}}}
	b := kernels.Requirements{Storage16: true, SharedMemory: 512, MinSubgroupSize: 16, SubgroupSize: 32, CooperativeMatrix: hal.MatrixNV,
		Subgroup: hal.SubgroupBasic, CooperativeMatrices: []hal.CooperativeMatrix{nv, f16acc},
		Images: []kernels.ImageUse{{Format: hal.R32Uint, Features: hal.FormatStorage}, {Format: hal.RGBA8, Features: hal.FormatStorage}}}
	want := kernels.Requirements{Float16: true, Storage16: true, SharedMemory: 1024, MinSubgroupSize: 16, SubgroupSize: 32,
		CooperativeMatrix: hal.MatrixNV, Subgroup: hal.SubgroupBasic, CooperativeMatrices: []hal.CooperativeMatrix{nv, f16acc},
		Images: []kernels.ImageUse{{Format: hal.RGBA8, Features: hal.FormatSampled | hal.FormatStorage}, {Format: hal.R32Uint, Features: hal.FormatStorage}}}
	if diff := cmp.Diff(want, a.Merge(b)); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	if len(a.CooperativeMatrices) != 1 || a.Images[0].Features != hal.FormatSampled {
		t.Errorf("Merge changed its receiver: shapes %v, images %v", a.CooperativeMatrices, a.Images)
	}
}
