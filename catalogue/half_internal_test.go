package catalogue

import "testing"

// TestHalfHelpers checks the spacing of binary16 and bfloat16 numbers and
// the packing of halves into words (the conversions are internal/half's).
func TestHalfHelpers(t *testing.T) {
	for _, tt := range []struct {
		f       format16
		v, want float64
	}{
		{binary16, 1, 0x1p-10}, {binary16, 1.5, 0x1p-10}, {binary16, 2, 0x1p-9}, {binary16, -1000, 0.5}, {binary16, 0x1p-20, 0x1p-24},
		{bfloat16, 1, 0x1p-7}, {bfloat16, -3, 0x1p-6}, {bfloat16, 1000, 4}, {bfloat16, 0x1p-130, 0x1p-133},
	} {
		if got := tt.f.ulp(tt.v); got != tt.want {
			t.Errorf("ulp(%g) with %d bits of significand = %g, want %g", tt.v, tt.f.mant, got, tt.want)
		}
	}
	w := binary16.pack([]float32{1, -2, 0.5})
	if len(w) != 2 || w[0] != 0xc0003c00 || w[1] != 0x3800 {
		t.Errorf("binary16.pack(1, -2, 0.5) = %#x", w)
	}
	if w := bfloat16.pack([]float32{1, -2}); len(w) != 1 || w[0] != 0xc0003f80 {
		t.Errorf("bfloat16.pack(1, -2) = %#x", w)
	}
}
