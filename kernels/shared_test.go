package kernels_test

import (
	"math"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/shaders"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// TestSharedMemoryFromModule: a candidate that does not say its shared
// memory needs what its module declares with its specialization
// constants. gemm_regblock at 128x128x16 declares 32.5 KiB (two padded
// slices of A and two of B), so it is unsupported on lavapipe's 32 KiB
// with the message a hand-declared figure gave, and supported at 64x64x16
// (16.5 KiB); an explicit figure overrides the module's; and the digest
// is the one the hand-declared figure gave, so cached answers still apply.
func TestSharedMemoryFromModule(t *testing.T) {
	info := hal.DeviceInfo{Limits: hal.Limits{MaxWorkgroupSize: [3]uint32{1024, 1024, 64}, MaxWorkgroupInvocations: 1024,
		MaxPushConstantsSize: 128, MaxSharedMemory: 32 << 10}}
	regblock := func(bm, bn, bk uint32) kernels.Candidate {
		c := kernels.Candidate{Name: "regblock", SPIRV: shaders.MustGet("gemm_regblock"), Bindings: 3, PushConstantSize: 12,
			WorkgroupSize: [3]uint32{16, 16, 1}}
		for i, v := range []uint32{16, 16, bm, bn, bk} {
			c.Constants = append(c.Constants, hal.Constant{ID: uint32(i), Value: v})
		}
		return c
	}
	big := regblock(128, 128, 16)
	if got := big.Needs().SharedMemory; got != 33280 {
		t.Errorf("128x128x16 needs %d bytes of shared memory, want 33280", got)
	}
	err := big.Supported(info)
	if status.CodeOf(err) != status.Unimplemented || !strings.HasSuffix(err.Error(), "regblock: needs 32.5 KiB of shared memory, device has 32 KiB") {
		t.Errorf("128x128x16 on 32 KiB: %v; want UNIMPLEMENTED saying it needs 32.5 KiB", err)
	}
	if err := regblock(64, 64, 16).Supported(info); err != nil {
		t.Errorf("64x64x16 on 32 KiB: %v", err)
	}
	over := big
	over.Requires.SharedMemory = 1024
	if err := over.Supported(info); err != nil {
		t.Errorf("128x128x16 declaring 1 KiB: %v; want the declared figure to override the module's", err)
	}
	hand := big
	hand.Requires.SharedMemory = 33280
	if kernels.Digest([]kernels.Candidate{big}) != kernels.Digest([]kernels.Candidate{hand}) {
		t.Error("the digest of a candidate whose shared memory comes from its module differs from that of one declaring the same figure")
	}
}

// TestModuleSharedMemory: a module's shared memory, as the candidates of
// the catalogue and of manifests count it, is what it declares with the
// constants given, and past 4 GiB it is math.MaxUint32, never wrapped to
// a figure a device could hold.
func TestModuleSharedMemory(t *testing.T) {
	m, e, err := spirv.Check(shaders.MustGet("gemm_regblock"), "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bm, bk uint32
		want   uint32
	}{{128, 16, 33280}, {1 << 21, 256, math.MaxUint32}} {
		spec := map[uint32]uint32{0: 16, 1: 16, 2: c.bm, 3: c.bm, 4: c.bk}
		if got, ok := kernels.ModuleSharedMemory(m, e, spec); got != c.want || !ok {
			t.Errorf("%dx%dx%d: %d bytes (known %v), want %d", c.bm, c.bm, c.bk, got, ok, c.want)
		}
	}
}
