package half

import (
	"math"
	"testing"
)

// TestHalfRoundTrip converts every binary16 to float32 and back.
func TestHalfRoundTrip(t *testing.T) {
	for h := range 1 << 16 {
		f := ToFloat32(uint16(h))
		back := FromFloat32(f)
		isNaN := h&0x7c00 == 0x7c00 && h&0x3ff != 0
		switch {
		case isNaN && (!math.IsNaN(float64(f)) || back&0x7c00 != 0x7c00 || back&0x3ff == 0):
			t.Errorf("NaN %#04x: float %v, back %#04x", h, f, back)
		case !isNaN && back != uint16(h):
			t.Errorf("%#04x -> %v -> %#04x", h, f, back)
		}
	}
}

// TestHalfRounding checks rounding to nearest, ties to even, at the edges:
// between normals, into and out of the subnormals, and to infinity.
func TestHalfRounding(t *testing.T) {
	for _, tt := range []struct {
		f    float32
		want uint16
	}{
		{1, 0x3c00},
		{-2, 0xc000},
		{1 + 0x1p-11, 0x3c00},           // a tie: to even (down)
		{1 + 3*0x1p-11, 0x3c02},         // a tie: to even (up)
		{1 + 0x1p-11 + 0x1p-20, 0x3c01}, // past the tie
		{65504, 0x7bff},                 // the largest finite
		{65520, 0x7c00},                 // halfway to the next: to even, infinity
		{65519, 0x7bff},                 // below it
		{0x1p-14, 0x0400},               // the smallest normal
		{0x1p-24, 0x0001},               // the smallest subnormal
		{0x1p-25, 0x0000},               // half of it: a tie, to even (zero)
		{0x1.8p-25, 0x0001},             // past half: up
		{3 * 0x1p-25, 0x0002},           // 1.5 subnormals: a tie, to even (2)
		{0x1p-14 - 0x1p-25, 0x0400},     // rounds up into the normals
		{float32(math.Inf(-1)), 0xfc00},
	} {
		if got := FromFloat32(tt.f); got != tt.want {
			t.Errorf("FromFloat32(%g) = %#04x, want %#04x", tt.f, got, tt.want)
		}
	}
}

// TestBFloat16 converts every bfloat16 to float32 and back, and checks
// rounding to nearest, ties to even, at the edges.
func TestBFloat16(t *testing.T) {
	for h := range 1 << 16 {
		f := BFloat16ToFloat32(uint16(h))
		back := BFloat16FromFloat32(f)
		isNaN := h&0x7f80 == 0x7f80 && h&0x7f != 0
		switch {
		case isNaN && (!math.IsNaN(float64(f)) || back&0x7f80 != 0x7f80 || back&0x40 == 0):
			t.Errorf("NaN %#04x: float %v, back %#04x", h, f, back)
		case !isNaN && back != uint16(h):
			t.Errorf("%#04x -> %v -> %#04x", h, f, back)
		}
	}
	for _, tt := range []struct {
		f    float32
		want uint16
	}{
		{1, 0x3f80},
		{-2, 0xc000},
		{1 + 0x1p-8, 0x3f80},           // a tie: to even (down)
		{1 + 3*0x1p-8, 0x3f82},         // a tie: to even (up)
		{1 + 0x1p-8 + 0x1p-20, 0x3f81}, // past the tie
		{math.MaxFloat32, 0x7f80},      // rounds up past the largest finite: infinity
		{0x1.fep127, 0x7f7f},           // the largest finite bfloat16
		{0x1p-133, 0x0001},             // the smallest subnormal
		{float32(math.Inf(-1)), 0xff80},
	} {
		if got := BFloat16FromFloat32(tt.f); got != tt.want {
			t.Errorf("BFloat16FromFloat32(%g) = %#04x, want %#04x", tt.f, got, tt.want)
		}
	}
}
