package half

import (
	"math"
	"math/rand/v2"
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

// TestFromFloat64RoundsOnce converts float64 values that lie just past a
// tie of the 16-bit format, by less than float32 can hold: rounded to
// float32 first they would become the tie and round to even, the wrong
// way. Then, for random float64 values of every magnitude, the result is
// the nearest of its neighbours, ties to even.
func TestFromFloat64RoundsOnce(t *testing.T) {
	for _, tt := range []struct {
		f        float64
		f16, b16 uint16
	}{
		{1 + 0x1p-11 + 0x1p-40, 0x3c01, 0x3f80},
		{1 + 0x1p-8 + 0x1p-40, 0x3c04, 0x3f81},
		{-(1 + 0x1p-11 + 0x1p-40), 0xbc01, 0xbf80},
		{0x1p-25 + 0x1p-60, 0x0001, 0x3300},    // past half the smallest f16 subnormal
		{65520 - 0x1p-30, 0x7bff, 0x4780},      // below f16's tie to infinity
		{0x1p-134 + 0x1p-170, 0x0000, 0x0001},  // past half the smallest bf16 subnormal
		{math.MaxFloat64, 0x7c00, 0x7f80},      // overflow: infinity
		{math.SmallestNonzeroFloat64, 0, 0},    // underflow: zero
		{math.Copysign(0, -1), 0x8000, 0x8000}, // the sign of zero kept
		{math.Inf(-1), 0xfc00, 0xff80},
	} {
		if got := FromFloat64(tt.f); got != tt.f16 {
			t.Errorf("FromFloat64(%g) = %#04x, want %#04x", tt.f, got, tt.f16)
		}
		if got := BFloat16FromFloat64(tt.f); got != tt.b16 {
			t.Errorf("BFloat16FromFloat64(%g) = %#04x, want %#04x", tt.f, got, tt.b16)
		}
	}
	if h := FromFloat64(math.NaN()); h&0x7c00 != 0x7c00 || h&0x200 == 0 {
		t.Errorf("FromFloat64(NaN) = %#04x, want a quiet NaN", h)
	}
	if h := BFloat16FromFloat64(math.NaN()); h&0x7f80 != 0x7f80 || h&0x40 == 0 {
		t.Errorf("BFloat16FromFloat64(NaN) = %#04x, want a quiet NaN", h)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, format := range []struct {
		name string
		from func(float64) uint16
		to   func(uint16) float32
		emin int
	}{{"binary16", FromFloat64, ToFloat32, -26}, {"bfloat16", BFloat16FromFloat64, BFloat16ToFloat32, -135}} {
		for range 100000 {
			x := math.Ldexp(r.Float64(), format.emin+r.IntN(-format.emin+18))
			h := format.from(x)
			got := float64(format.to(h))
			if math.IsInf(got, 0) {
				continue
			}
			for _, n := range []uint16{h - 1, h + 1} { // a NaN neighbour compares false
				d, dn := math.Abs(got-x), math.Abs(float64(format.to(n))-x)
				if dn < d || dn == d && h&1 == 1 {
					t.Fatalf("%s of %v: %#04x (%v), but %#04x (%v) is nearer or an even tie", format.name, x, h, got, n, format.to(n))
				}
			}
		}
	}
}
