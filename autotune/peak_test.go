package autotune_test

import (
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/kernels"
)

// TestComputeOf checks which peak bounds which operation: the matrix
// units' rate at the operation's precision where it was measured, else
// the FMA rate of its element type.
func TestComputeOf(t *testing.T) {
	lookup := func(name string) kernels.Operation {
		op, err := catalogue.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
	h200 := &autotune.Peak{GFLOPs: 62700, FP16GFLOPs: 125000, Int32GOPs: 31000,
		MatrixF16GFLOPs: 650000, MatrixF16AccGFLOPs: 660000, MatrixS8GOPs: 1300000, MatrixBF16GFLOPs: 640000}
	older := *h200 // stored before peak-coopmat-bf16
	older.MatrixBF16GFLOPs = 0
	lavapipe := &autotune.Peak{GFLOPs: 95, FP16GFLOPs: 22, Int32GOPs: 100}
	for _, tt := range []struct {
		op   string
		peak *autotune.Peak
		want float64
	}{
		{"gemm-f16", h200, 650000},
		{"gemm-f16", lavapipe, 22}, // no matrix units: the fp16 rate
		{"peak-coopmat-f16acc", h200, 660000},
		{"peak-coopmat-s8", h200, 1300000},
		{"gemm-bf16", h200, 640000},
		{"peak-coopmat-bf16", h200, 640000},
		{"gemm-bf16", &older, 650000}, // the fp16 matrix rate stands in
		{"gemm-bf16", lavapipe, 95},   // no matrix units: the fp32 rate
		{"peak-fma-f16", h200, 125000},
		{"gemm", h200, 62700},
		{"peak-mad-i32", h200, 31000},
		{"gemm-f16", nil, 0},
	} {
		if got := tt.peak.ComputeOf(lookup(tt.op)); got != tt.want {
			t.Errorf("ComputeOf(%s) with %+v = %g, want %g", tt.op, tt.peak, got, tt.want)
		}
	}
}
