package kernels

import "testing"

// TestHalfHelpers checks the spacing of binary16 numbers and the packing
// of halves into words (the conversions are internal/half's).
func TestHalfHelpers(t *testing.T) {
	for _, tt := range []struct{ v, want float64 }{{1, 0x1p-10}, {1.5, 0x1p-10}, {2, 0x1p-9}, {-1000, 0.5}, {0x1p-20, 0x1p-24}} {
		if got := ulpHalf(tt.v); got != tt.want {
			t.Errorf("ulpHalf(%g) = %g, want %g", tt.v, got, tt.want)
		}
	}
	w := packHalves([]float32{1, -2, 0.5})
	if len(w) != 2 || w[0] != 0xc0003c00 || w[1] != 0x3800 {
		t.Errorf("packHalves(1, -2, 0.5) = %#x", w)
	}
}
