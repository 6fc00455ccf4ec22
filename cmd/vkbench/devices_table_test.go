package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vkbench/vkbench/hal"
)

// TestDevicesTableMatrices checks the end of a device's table where it has
// cooperative matrices: the shapes stand under the coopmat line that
// counts them, and the coopmat2 and left-off lines come after them, not
// between (as they once did, on the H200 under the validation layer).
func TestDevicesTableMatrices(t *testing.T) {
	nv := hal.CooperativeMatrix{API: hal.MatrixNV, M: 16, N: 16, K: 16,
		A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeSubgroup}
	nv2 := hal.CooperativeMatrix{API: hal.MatrixNV2, M: 32, N: 32, K: 16,
		A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32,
		Scope: hal.ScopeWorkgroup, Invocations: 256}
	info := hal.DeviceInfo{Name: "matrices",
		Features:            hal.Features{CooperativeMatrixNV: true, CooperativeMatrixNV2: hal.NV2WorkgroupScope},
		CooperativeMatrices: []hal.CooperativeMatrix{nv, nv2},
		Withheld:            []string{"VK_KHR_cooperative_matrix"},
	}
	var b bytes.Buffer
	if err := writeDevicesTable(&b, []hal.DeviceInfo{info}, []deviceNow{{why: "none here"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "  coopmat ") {
			start = i
		}
	}
	if start < 0 {
		t.Fatalf("no coopmat line in\n%s", b.String())
	}
	var got []string
	for _, l := range lines[start:] {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	want := []string{
		"coopmat VK_NV_cooperative_matrix: 1 shape, VK_NV_cooperative_matrix2: 1 granularity",
		nv.String(),
		nv2.String(),
		"coopmat2 " + strings.Join(flagNames(hal.NV2WorkgroupScope), " "),
		"left off VK_KHR_cooperative_matrix (the validation layer is older than them)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the table's last lines (-want +got):\n%s", d)
	}
}
