package kernels_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/internal/testenv"
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
		{"copy_vec4", kernels.Requirements{SPIRV: 0x0105}},
		{"peak_fma_f16", kernels.Requirements{Float16: true, SPIRV: 0x0105}},
		{"reduce_subgroup", kernels.Requirements{Subgroup: hal.SubgroupBasic | hal.SubgroupArithmetic, SPIRV: 0x0105}},
		{"gemm_f16_coopmat2", kernels.Requirements{Float16: true, Storage16: true, VulkanMemoryModel: true,
			CooperativeMatrix: hal.MatrixNV2, NV2: hal.NV2TensorAddressing, SPIRV: 0x0106}},
		{"gemm_bf16_coopmat_khr", kernels.Requirements{Float16: true, Storage16: true, VulkanMemoryModel: true,
			BFloat16: true, BFloat16CooperativeMatrix: true, Subgroup: hal.SubgroupBasic, CooperativeMatrix: hal.MatrixKHR, SPIRV: 0x0106}},
		// The portable kernel widens the patterns itself: 16-bit storage only.
		{"gemm_bf16_regblock", kernels.Requirements{Storage16: true, SPIRV: 0x0105}},
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

// TestModuleRequirementsNV2 compiles a module that reduces a matrix and
// maps its elements (two of VK_NV_cooperative_matrix2's features, on
// subgroup matrices of VK_KHR_cooperative_matrix) and checks that it
// needs NV2, those two features, and nothing of them a device lacks
// passes.
func TestModuleRequirementsNV2(t *testing.T) {
	src := glslc.Vulkan13Directive + `
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(binding = 0) buffer A { float16_t a[]; };
float16_t add(const in float16_t x, const in float16_t y) { return x + y; }
float16_t twice(const in uint r, const in uint c, const in float16_t x) { return x * float16_t(2); }
void main() {
	coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m, r;
	coopMatLoad(m, a, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
	coopMatReduceNV(r, m, gl_CooperativeMatrixReduceRowNV, add);
	coopMatPerElementNV(r, r, twice);
	coopMatStore(r, a, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
`
	if _, err := glslc.Newer("."); err != nil {
		testenv.Unavailable(t, "%v", err)
	}
	code, err := glslc.CompileSource(context.Background(), src, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := spirv.Parse(code)
	if err != nil {
		t.Fatal(err)
	}
	r := kernels.ModuleRequirements(m)
	if r.CooperativeMatrix != hal.MatrixNV2 || r.NV2 != hal.NV2Reductions|hal.NV2PerElementOperations {
		t.Errorf("ModuleRequirements: %v and %v, want nv2 and %v", r.CooperativeMatrix, r.NV2, hal.NV2Reductions|hal.NV2PerElementOperations)
	}
	info := hal.DeviceInfo{Features: hal.Features{Float16: true, Storage16: true, VulkanMemoryModel: true,
		CooperativeMatrixKHR: true, CooperativeMatrixNV2: hal.NV2Reductions | hal.NV2TensorAddressing}}
	err = r.Supported(info)
	if want := "needs cooperativeMatrixPerElementOperations of VK_NV_cooperative_matrix2, which the device lacks"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Supported on a device with %v: %v, want %q", info.Features.CooperativeMatrixNV2, err, want)
	}
	info.Features.CooperativeMatrixNV2 |= hal.NV2PerElementOperations
	if err := r.Supported(info); err != nil {
		t.Errorf("Supported on a device with %v: %v", info.Features.CooperativeMatrixNV2, err)
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

// TestSharedMemoryMessage: the shared memory a kernel needs and the
// device's are written so that two different amounts never read alike:
// in KiB to a tenth where the tenths differ, else both in bytes.
func TestSharedMemoryMessage(t *testing.T) {
	for _, tt := range []struct {
		need, have uint32
		want       string
	}{
		{1028, 1024, "needs 1028 bytes of shared memory, device has 1024 bytes"},
		{33 << 10, 32 << 10, "needs 33 KiB of shared memory, device has 32 KiB"},
		{33280, 32 << 10, "needs 32.5 KiB of shared memory, device has 32 KiB"},
		{32800, 32 << 10, "needs 32800 bytes of shared memory, device has 32768 bytes"},
		{2400, 2048, "needs 2.3 KiB of shared memory, device has 2 KiB"},
	} {
		var info hal.DeviceInfo
		info.Limits.MaxSharedMemory = tt.have
		err := kernels.Requirements{SharedMemory: tt.need}.Supported(info)
		if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("%d bytes on a device of %d: %v, want %q", tt.need, tt.have, err, tt.want)
		}
	}
}

// TestFeatureFlags: the flags of Requirements are listed once. Digests
// write them in the order they always had (one candidate per flag digests
// to what it did before the list was one), and Supported names the first
// a device lacks in that order: a kernel that needs both the Vulkan memory
// model and bfloat16, on a device with neither, needs vulkanMemoryModel
// first (the message's own list, a second copy, named bfloat16 first).
func TestFeatureFlags(t *testing.T) {
	var cands []kernels.Candidate
	for _, set := range []func(*kernels.Requirements){
		func(r *kernels.Requirements) { r.Float16 = true },
		func(r *kernels.Requirements) { r.Int64 = true },
		func(r *kernels.Requirements) { r.Float64 = true },
		func(r *kernels.Requirements) { r.Int16 = true },
		func(r *kernels.Requirements) { r.Int8 = true },
		func(r *kernels.Requirements) { r.Storage16 = true },
		func(r *kernels.Requirements) { r.Storage8 = true },
		func(r *kernels.Requirements) { r.VulkanMemoryModel = true },
		func(r *kernels.Requirements) { r.ImageReadWithoutFormat = true },
		func(r *kernels.Requirements) { r.ImageWriteWithoutFormat = true },
		func(r *kernels.Requirements) { r.BFloat16 = true },
		func(r *kernels.Requirements) { r.BFloat16CooperativeMatrix = true },
	} {
		c := kernels.Candidate{Name: fmt.Sprint(len(cands))}
		set(&c.Requires)
		cands = append(cands, c)
	}
	if got, want := fmt.Sprintf("%x", kernels.Digest(cands)), "7954a4d7a20305ff8a5b957df0d778fe11b9e88766786117ab7f2bd283c9a516"; got != want {
		t.Errorf("the digest of one candidate per flag is %s, was %s", got, want)
	}
	err := kernels.Requirements{BFloat16: true, VulkanMemoryModel: true}.Supported(hal.DeviceInfo{})
	if err == nil || !strings.HasSuffix(err.Error(), "needs vulkanMemoryModel") {
		t.Errorf("a device without the memory model or bfloat16: %v, want needs vulkanMemoryModel", err)
	}
}
