package catalogue_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// TestCatalogueWellFormed checks every built-in candidate against its own
// SPIR-V: the entry point exists, every specialization constant is one the
// module declares, the workgroup size is what constant 0 sets, and the
// bindings the module decorates are those the candidate declares.
func TestCatalogueWellFormed(t *testing.T) {
	ops := catalogue.Builtin()
	var names []string
	for _, op := range ops {
		names = append(names, op.Name())
		if len(op.Dims()) == 0 || op.DType().String() == "" || op.Summary() == "" {
			t.Errorf("%s: incomplete description", op.Name())
		}
		cands := op.Candidates()
		if len(cands) < 2 {
			t.Errorf("%s: %d candidates, want several", op.Name(), len(cands))
		}
		seen := map[string]bool{}
		shaders := map[string]bool{}
		for _, c := range cands {
			where := op.Name() + "/" + c.Name
			if c.Name == "" || seen[c.Name] {
				t.Errorf("%s: empty or duplicate name", where)
			}
			seen[c.Name] = true
			shaders[c.Shader] = true
			m, e, err := spirv.Check(c.SPIRV, c.EntryPoint)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			for _, k := range c.Constants {
				if !slices.Contains(m.SpecIDs(), k.ID) {
					t.Errorf("%s: constant %d is not in the module (it has %v)", where, k.ID, m.SpecIDs())
				}
			}
			spec, err := hal.ConstantValues(c.Constants)
			if err != nil {
				t.Errorf("%s: %v", where, err)
			}
			if len(c.Constants) == 0 || c.Constants[0].ID != 0 || c.Constants[0].Value != c.WorkgroupSize[0] {
				t.Errorf("%s: constant 0 must be the workgroup width %d: %v", where, c.WorkgroupSize[0], c.Constants)
			}
			if c.WorkgroupSize[1] > 1 && (len(c.Constants) < 2 || c.Constants[1].Value != c.WorkgroupSize[1]) {
				t.Errorf("%s: constant 1 must be the workgroup height %d: %v", where, c.WorkgroupSize[1], c.Constants)
			}
			var want, got []uint32
			for b := range c.Bindings {
				want = append(want, uint32(b))
			}
			for _, b := range m.Bindings(e) {
				got = append(got, b.Set<<16|b.Binding)
			}
			if diff := cmp.Diff(want, slices.Compact(got)); diff != "" {
				t.Errorf("%s: bindings (-declared +in module):\n%s", where, diff)
			}
			if wg, ok := m.WorkgroupSize(e, spec); !ok || wg != c.WorkgroupSize {
				t.Errorf("%s: the module's workgroup with the candidate's constants is %v (known %v); the candidate says %v", where, wg, ok, c.WorkgroupSize)
			}
			if push, ok := m.PushConstantBytes(e, spec); !ok || push > c.PushConstantSize {
				t.Errorf("%s: the module's push constants are %d bytes (known %v); the candidate pushes %d", where, push, ok, c.PushConstantSize)
			}
			// The catalogue leaves its shared memory to its modules,
			// which must say it.
			if shared, ok := m.SharedMemory(e, spec); !ok || c.Requires.SharedMemory != 0 {
				t.Errorf("%s: the module's shared memory is %d bytes (known %v); the candidate declares %d by hand", where, shared, ok, c.Requires.SharedMemory)
			}
			if c.PushConstantSize%4 != 0 || c.PushConstantSize > 128 {
				t.Errorf("%s: push constants of %d bytes", where, c.PushConstantSize)
			}
			desc := c.Executable()
			if desc.Label != c.Name || desc.Bindings != c.Bindings || len(desc.Constants) != len(c.Constants) {
				t.Errorf("%s: Executable() = %+v", where, desc)
			}
		}
		if len(shaders) < 2 && !strings.HasPrefix(op.Name(), "peak-") {
			t.Errorf("%s: all candidates are one kernel (%v); want genuinely different kernels", op.Name(), shaders)
		}
	}
	want := []string{"copy", "triad", "reduce", "transpose", "gemm", "gemm-f16", "gemm-bf16", "peak-fma-f32", "peak-fma-f16", "peak-mad-i32",
		"peak-coopmat-f16", "peak-coopmat-f16acc", "peak-coopmat-s8", "peak-coopmat-bf16"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Builtin names (-want +got):\n%s", diff)
	}
	for _, name := range want {
		if op, err := catalogue.Lookup(name); err != nil || op.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v", name, op, err)
		}
	}
	if _, err := catalogue.Lookup("fft"); status.CodeOf(err) != status.NotFound {
		t.Errorf(`Lookup("fft") = %v, want NOT_FOUND`, err)
	}
}

// lavapipeInfo and h200Info are device descriptions as the Vulkan backend
// reports them, cut down to what kernels reads.
var (
	lavapipeInfo = hal.DeviceInfo{
		Name: "llvmpipe", Type: hal.CPU,
		Limits: hal.Limits{
			MaxWorkgroupSize: [3]uint32{1024, 1024, 1024}, MaxWorkgroupInvocations: 1024,
			MaxWorkgroupCount: [3]uint32{65535, 65535, 65535}, MaxSharedMemory: 32768,
			MaxPushConstantsSize: 128, MaxStorageBufferRange: 128 << 20, SubgroupSize: 8,
			SubgroupOps: hal.SubgroupBasic | hal.SubgroupVote | hal.SubgroupArithmetic | hal.SubgroupBallot,
		},
		Features:    hal.Features{Float16: true, Int64: true},
		MemoryHeaps: []hal.MemoryHeap{{Size: 8 << 30, DeviceLocal: true}},
	}
	h200Info = hal.DeviceInfo{
		Name: "NVIDIA H200", Type: hal.DiscreteGPU, VendorID: hal.VendorNVIDIA,
		Limits: hal.Limits{
			MaxWorkgroupSize: [3]uint32{1024, 1024, 64}, MaxWorkgroupInvocations: 1024,
			MaxWorkgroupCount: [3]uint32{1<<31 - 1, 65535, 65535}, MaxSharedMemory: 48 << 10,
			MaxPushConstantsSize: 256, MaxStorageBufferRange: 1<<32 - 1, SubgroupSize: 32,
			SubgroupOps: 0xff,
		},
		Features: hal.Features{Float16: true, Int64: true, Float64: true, Int8: true, Int16: true, Storage16: true, Storage8: true,
			VulkanMemoryModel: true, CooperativeMatrixNV: true, CooperativeMatrixKHR: true, CooperativeMatrixNV2: 0x7f,
			BFloat16: true, BFloat16CooperativeMatrix: true},
		MemoryHeaps: []hal.MemoryHeap{{Size: 140 << 30, DeviceLocal: true}, {Size: 64 << 30}},
		CooperativeMatrices: []hal.CooperativeMatrix{nvShape(16, 8, 16, hal.ComponentF16, hal.ComponentF16), nvShape(16, 16, 16, hal.ComponentF16, hal.ComponentF32), nvShape(16, 16, 16, hal.ComponentF16, hal.ComponentF16), nvShape(16, 16, 32, hal.ComponentS8, hal.ComponentS32),
			khrShape(16, 16, 16, hal.ComponentF16, hal.ComponentF32), khrShape(16, 8, 16, hal.ComponentF16, hal.ComponentF32), khrShape(16, 16, 32, hal.ComponentS8, hal.ComponentS32),
			nv2Granularity(16, 16, 16, 64), nv2Granularity(32, 16, 16, 128), nv2Granularity(32, 32, 16, 256),
			khrShape(16, 16, 16, hal.ComponentBF16, hal.ComponentF32),
			bf16(nv2Granularity(16, 16, 16, 64)), bf16(nv2Granularity(32, 16, 16, 128)), bf16(nv2Granularity(32, 32, 16, 256))},
	}
)

// khrShape is a subgroup multiply-add of VK_KHR_cooperative_matrix.
func khrShape(m, n, k uint32, in, sum hal.ComponentType) hal.CooperativeMatrix {
	c := nvShape(m, n, k, in, sum)
	c.API = hal.MatrixKHR
	return c
}

// nv2Granularity is a workgroup-scope fp16 multiply-add with fp32 sums of
// VK_NV_cooperative_matrix2's flexible dimensions, as the H200 lists them
// (driver 580): matrices of multiples of m×n×k in workgroups of
// invocations.
func nv2Granularity(m, n, k, invocations uint32) hal.CooperativeMatrix {
	return hal.CooperativeMatrix{API: hal.MatrixNV2, M: m, N: n, K: k, A: hal.ComponentF16, B: hal.ComponentF16,
		C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeWorkgroup, Invocations: invocations}
}

// bf16 is c with bfloat16 inputs.
func bf16(c hal.CooperativeMatrix) hal.CooperativeMatrix {
	c.A, c.B = hal.ComponentBF16, hal.ComponentBF16
	return c
}

// nvShape is a subgroup multiply-add of VK_NV_cooperative_matrix with
// inputs of type in and sums of type sum.
func nvShape(m, n, k uint32, in, sum hal.ComponentType) hal.CooperativeMatrix {
	return hal.CooperativeMatrix{API: hal.MatrixNV, M: m, N: n, K: k, A: in, B: in, C: sum, Result: sum, Scope: hal.ScopeSubgroup}
}

func TestDefaultSize(t *testing.T) {
	small := lavapipeInfo
	big := h200Info
	narrow := h200Info
	narrow.Limits.MaxStorageBufferRange = 128 << 20
	want := map[string][3]kernels.Size{ // lavapipe, H200, H200 with 128 MiB buffers
		"copy":                {kernels.SizeOf(1 << 20), kernels.SizeOf(1 << 28), kernels.SizeOf(1 << 25)},
		"triad":               {kernels.SizeOf(1 << 20), kernels.SizeOf(1 << 28), kernels.SizeOf(1 << 25)},
		"reduce":              {kernels.SizeOf(1 << 20), kernels.SizeOf(1 << 28), kernels.SizeOf(1 << 25)},
		"transpose":           {kernels.SizeOf(1024, 1024), kernels.SizeOf(16384, 16384), kernels.SizeOf(4096, 4096)},
		"gemm":                {kernels.SizeOf(256, 256, 256), kernels.SizeOf(4096, 4096, 4096), kernels.SizeOf(4096, 4096, 4096)},
		"gemm-f16":            {kernels.SizeOf(256, 256, 256), kernels.SizeOf(4096, 4096, 4096), kernels.SizeOf(4096, 4096, 4096)},
		"gemm-bf16":           {kernels.SizeOf(256, 256, 256), kernels.SizeOf(4096, 4096, 4096), kernels.SizeOf(4096, 4096, 4096)},
		"peak-fma-f32":        {kernels.SizeOf(1<<14, 1<<10), kernels.SizeOf(1<<22, 1<<14), kernels.SizeOf(1<<22, 1<<14)},
		"peak-fma-f16":        {kernels.SizeOf(1<<14, 1<<10), kernels.SizeOf(1<<22, 1<<14), kernels.SizeOf(1<<22, 1<<14)},
		"peak-mad-i32":        {kernels.SizeOf(1<<14, 1<<10), kernels.SizeOf(1<<22, 1<<14), kernels.SizeOf(1<<22, 1<<14)},
		"peak-coopmat-f16":    {kernels.SizeOf(1<<8, 1<<4), kernels.SizeOf(1<<17, 1<<12), kernels.SizeOf(1<<17, 1<<12)},
		"peak-coopmat-f16acc": {kernels.SizeOf(1<<8, 1<<4), kernels.SizeOf(1<<17, 1<<12), kernels.SizeOf(1<<17, 1<<12)},
		"peak-coopmat-s8":     {kernels.SizeOf(1<<8, 1<<4), kernels.SizeOf(1<<17, 1<<12), kernels.SizeOf(1<<17, 1<<12)},
		"peak-coopmat-bf16":   {kernels.SizeOf(1<<8, 1<<4), kernels.SizeOf(1<<17, 1<<12), kernels.SizeOf(1<<17, 1<<12)},
	}
	for _, op := range catalogue.Builtin() {
		got := [3]kernels.Size{op.DefaultSize(small), op.DefaultSize(big), op.DefaultSize(narrow)}
		if diff := cmp.Diff(want[op.Name()], got); diff != "" {
			t.Errorf("%s: DefaultSize for lavapipe, H200, narrow H200 (-want +got):\n%s", op.Name(), diff)
		}
	}
}

func TestSupported(t *testing.T) {
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	reduce, err := catalogue.Lookup("reduce")
	if err != nil {
		t.Fatal(err)
	}
	f16, err := catalogue.Lookup("peak-fma-f16")
	if err != nil {
		t.Fatal(err)
	}
	hgemm, err := catalogue.Lookup("gemm-f16")
	if err != nil {
		t.Fatal(err)
	}
	tensor, err := catalogue.Lookup("peak-coopmat-s8")
	if err != nil {
		t.Fatal(err)
	}
	find := func(op kernels.Operation, name string) kernels.Candidate {
		for _, c := range op.Candidates() {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("%s has no candidate %s", op.Name(), name)
		return kernels.Candidate{}
	}
	noSubgroups := lavapipeInfo
	noSubgroups.Limits.SubgroupOps = hal.SubgroupBasic
	noF16 := lavapipeInfo
	noF16.Features.Float16 = false
	small := lavapipeInfo
	small.Limits.MaxWorkgroupInvocations = 256
	noStorage16 := lavapipeInfo
	noStorage16.Features.Storage16 = false
	lavapipeAll := lavapipeInfo // as vk reports Mesa 22's lavapipe
	lavapipeAll.Features.Storage16, lavapipeAll.Features.VulkanMemoryModel = true, true
	storageOnly := lavapipeAll // 16-bit storage, no shaderFloat16
	storageOnly.Features.Float16 = false
	only16x8 := h200Info
	only16x8.CooperativeMatrices = only16x8.CooperativeMatrices[:1]
	wave64 := h200Info
	wave64.Limits.SubgroupSize = 64
	no256 := h200Info // no workgroup-scope matrices of 256 invocations
	no256.CooperativeMatrices = slices.DeleteFunc(slices.Clone(h200Info.CooperativeMatrices), func(m hal.CooperativeMatrix) bool { return m.Invocations == 256 })
	validated := h200Info // under Debian 12's validation layer
	validated.Features.CooperativeMatrixKHR, validated.Features.CooperativeMatrixNV2 = false, 0
	validated.Withheld = []string{"VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix2"}
	vulkan12 := h200Info
	vulkan12.APIVersion = 1<<22 | 2<<12
	huge := find(gemm, "regblock-128x128x8-8x8") // 2³² invocations: 0 in 32 bits
	huge.WorkgroupSize = [3]uint32{1 << 16, 1 << 16, 1}
	wide := h200Info // a device whose limit in x and y is past 2¹⁶
	wide.Limits.MaxWorkgroupSize = [3]uint32{1 << 20, 1 << 20, 64}
	coarse := h200Info // a granularity that 128x128x32 is no multiple of
	coarse.CooperativeMatrices = []hal.CooperativeMatrix{nv2Granularity(48, 16, 16, 128)}
	tests := []struct {
		c    kernels.Candidate
		info hal.DeviceInfo
		want string // "" for supported
	}{
		{find(gemm, "regblock-128x128x16-8x8"), h200Info, ""},
		{find(gemm, "regblock-128x128x16-8x8"), lavapipeInfo, "needs 32.5 KiB of shared memory, device has 32 KiB"},
		{find(gemm, "regblock-128x128x8-8x8"), lavapipeInfo, ""},
		{find(gemm, "tiled-32"), small, "needs 1024 invocations per workgroup, device allows 256"},
		{huge, wide, "needs 4294967296 invocations per workgroup, device allows 1024"},
		{find(reduce, "subgroup-vec4-u4-wg256"), noSubgroups, "needs subgroup operations basic+arithmetic, device has basic"},
		{find(reduce, "tree-wg256-ept4"), noSubgroups, ""},
		{find(f16, "acc8-unroll8-wg256"), noF16, "needs shaderFloat16"},
		{find(f16, "acc8-unroll8-wg256"), lavapipeInfo, ""},
		{find(hgemm, "regblock-64x64x16-4x4"), lavapipeAll, ""},
		{find(hgemm, "regblock-64x64x16-4x4"), noStorage16, "needs storageBuffer16BitAccess"},
		{find(hgemm, "regblock-64x64x16-4x4"), storageOnly, ""}, // it widens with unpackHalf2x16: no float16 arithmetic
		{find(hgemm, "nv-128x128x32-w64x32"), lavapipeAll, "needs cooperative matrices (VK_NV_cooperative_matrix), which the device lacks"},
		{find(hgemm, "nv-128x128x32-w64x32"), h200Info, ""},
		{find(hgemm, "nv-128x128x32-w64x32"), only16x8, "needs the cooperative-matrix multiply-add 16x16x16 f16*f16+f32=f32 subgroup (nv), which the device does not list"},
		{find(hgemm, "nv-128x128x32-w64x32"), wave64, "needs a subgroup size of 32, device has 64"},
		{find(tensor, "acc8-unroll4-wg256"), h200Info, ""},
		{find(tensor, "khr-acc12-unroll4-wg128"), h200Info, ""},
		{find(tensor, "khr-acc12-unroll4-wg128"), lavapipeAll, "needs cooperative matrices (VK_KHR_cooperative_matrix), which the device lacks"},
		{find(tensor, "khr-acc12-unroll4-wg128"), validated, "which the device has and vkbench leaves off"},
		{find(hgemm, "nv2-128x128x32-t128"), h200Info, ""},
		{find(hgemm, "khr-128x256x32-w64x64-1buf-d2"), h200Info, ""},
		{find(hgemm, "khr-128x256x32-w64x64-1buf-d2"), lavapipeAll, "needs cooperative matrices (VK_KHR_cooperative_matrix), which the device lacks"},
		{find(hgemm, "khr-128x256x32-w64x64-1buf-d2"), wave64, "needs a subgroup size of 32, device has 64"},
		{find(hgemm, "khr-128x256x32-w64x64-1buf-d2"), validated, "needs cooperative matrices (VK_KHR_cooperative_matrix), which the device has and vkbench leaves off under this validation layer"},
		{find(hgemm, "nv2-128x128x32-t128"), validated, "(VK_NV_cooperative_matrix2), which the device has and vkbench leaves off"},
		{find(hgemm, "nv-128x256x32-w64x64-1buf-d2"), validated, ""},
		{find(hgemm, "nv2-128x128x32-t128"), lavapipeAll, "needs cooperative matrices (VK_NV_cooperative_matrix2), which the device lacks"},
		{find(hgemm, "nv2-128x256x32-t256"), no256, "needs the cooperative-matrix multiply-add 128x256x32 f16*f16+f32=f32 workgroup:256 (nv2), which the device does not list"},
		{find(hgemm, "nv2-128x256x32-t256"), h200Info, ""},
		{find(hgemm, "nv2-128x128x32-t128"), coarse, "which the device does not list"},
		{find(hgemm, "nv2-128x128x32-t128"), vulkan12, "needs SPIR-V 1.6, newer than Vulkan 1.2 devices accept (1.5)"},
		{find(hgemm, "nv-128x128x32-w64x32"), vulkan12, ""},
	}
	for _, tt := range tests {
		err := tt.c.Supported(tt.info)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s on %s: %v, want supported", tt.c.Name, tt.info.Name, err)
		case tt.want != "" && status.CodeOf(err) != status.Unimplemented:
			t.Errorf("%s: %v, want UNIMPLEMENTED", tt.c.Name, err)
		case tt.want != "" && !strings.Contains(err.Error(), tt.want):
			t.Errorf("%s: %q does not say %q", tt.c.Name, err, tt.want)
		}
	}
}

func TestDigest(t *testing.T) {
	op, err := catalogue.Lookup("copy")
	if err != nil {
		t.Fatal(err)
	}
	base := op.Candidates()
	d := kernels.Digest(base)
	if d != kernels.Digest(op.Candidates()) {
		t.Fatal("Digest is not deterministic")
	}
	changes := map[string]func([]kernels.Candidate){
		"order":     func(c []kernels.Candidate) { c[0], c[1] = c[1], c[0] },
		"name":      func(c []kernels.Candidate) { c[0].Name += "x" },
		"constant":  func(c []kernels.Candidate) { c[0].Constants = []hal.Constant{{ID: 0, Value: 32}} },
		"workgroup": func(c []kernels.Candidate) { c[0].WorkgroupSize[0]++ },
		"spirv":     func(c []kernels.Candidate) { c[0].SPIRV = append(slices.Clone(c[0].SPIRV), 0, 0, 0, 0) },
		"param":     func(c []kernels.Candidate) { c[0].Params = map[string]int{"WG": 1} },
		"dropped":   func(c []kernels.Candidate) { c[len(c)-1] = kernels.Candidate{} },
	}
	for what, change := range changes {
		c := op.Candidates()
		change(c)
		if kernels.Digest(c) == d {
			t.Errorf("changing the %s leaves the digest unchanged", what)
		}
	}
}

func ExampleBuiltin() {
	for _, op := range catalogue.Builtin() {
		fmt.Printf("%-19s %-3s %-13s %v\n", op.Name(), op.DType(), kernels.ArithmeticOf(op), op.Dims())
	}
	// Output:
	// copy                u32 vector        [N]
	// triad               f32 vector        [N]
	// reduce              f32 vector        [N]
	// transpose           f32 vector        [M N]
	// gemm                f32 vector        [M N K]
	// gemm-f16            f16 matrix-f16    [M N K]
	// gemm-bf16           bf16 matrix-bf16   [M N K]
	// peak-fma-f32        f32 vector        [N ITERS]
	// peak-fma-f16        f16 vector        [N ITERS]
	// peak-mad-i32        i32 vector        [N ITERS]
	// peak-coopmat-f16    f16 matrix-f16    [N ITERS]
	// peak-coopmat-f16acc f16 matrix-f16acc [N ITERS]
	// peak-coopmat-s8     i8  matrix-s8     [N ITERS]
	// peak-coopmat-bf16   bf16 matrix-bf16   [N ITERS]
}

// TestBFloat16Unsupported checks what a device without bfloat16 is told of
// gemm-bf16's cooperative-matrix candidates: the missing feature by name,
// and, where the device has it and the validation layer is too old to
// know it, that vkbench left it off.
func TestBFloat16Unsupported(t *testing.T) {
	op, err := catalogue.Lookup("gemm-bf16")
	if err != nil {
		t.Fatal(err)
	}
	var khr kernels.Candidate
	for _, c := range op.Candidates() {
		if c.Shader == "gemm_bf16_coopmat_khr" {
			khr = c
		}
	}
	info := h200Info
	if err := khr.Supported(info); err != nil {
		t.Fatalf("on an H200: %v", err)
	}
	for _, tc := range []struct {
		edit func(*hal.DeviceInfo)
		want string
	}{
		{func(i *hal.DeviceInfo) { i.Features.BFloat16CooperativeMatrix = false }, "needs shaderBFloat16CooperativeMatrix"},
		{func(i *hal.DeviceInfo) { i.Features.BFloat16, i.Features.BFloat16CooperativeMatrix = false, false }, "needs shaderBFloat16Type"},
		{func(i *hal.DeviceInfo) {
			i.Features.BFloat16, i.Features.BFloat16CooperativeMatrix = false, false
			i.Withheld = []string{"VK_KHR_shader_bfloat16"}
		}, "leaves off under this validation layer"},
	} {
		i := info
		tc.edit(&i)
		if err := khr.Supported(i); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error that says %q", khr.Name, err, tc.want)
		}
	}
}
