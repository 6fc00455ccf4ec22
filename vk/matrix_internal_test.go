//go:build cgo

package vk

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
)

// TestCooperativeMatrixFields feeds fixed NV, KHR and NV2 properties through the
// C code that copies them and checks every field lands where hal says: no
// device here has cooperative matrices to show it otherwise.
func TestCooperativeMatrixFields(t *testing.T) {
	want := []hal.CooperativeMatrix{
		{API: hal.MatrixNV, M: 16, N: 8, K: 16, A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeSubgroup},
		{API: hal.MatrixNV, M: 8, N: 8, K: 32, A: hal.ComponentU8, B: hal.ComponentS8, C: hal.ComponentS32, Result: hal.ComponentU32, Scope: hal.ScopeWorkgroup},
		{API: hal.MatrixKHR, M: 32, N: 16, K: 64, A: hal.ComponentBF16, B: hal.ComponentBF16, C: hal.ComponentF32, Result: hal.ComponentF16, SaturatingAccumulation: true, Scope: hal.ScopeSubgroup},
		{API: hal.MatrixNV2, M: 32, N: 16, K: 16, A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeWorkgroup, Invocations: 128},
	}
	if diff := cmp.Diff(want, fixedCooperativeMatrices()); diff != "" {
		t.Errorf("cooperative matrices from fixed properties (-want +got):\n%s", diff)
	}
}
