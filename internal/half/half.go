// Package half converts between Go's floats and the 16-bit floats, IEEE
// 754 binary16 ("half", float16) and bfloat16 (float32's upper half),
// which Go lacks, as GPUs convert: to the nearest, ties to even, once
// (a float64 is not rounded to float32 first, which would round twice),
// overflow to an infinity, a NaN to a quiet NaN with its payload's upper
// bits; back exactly. The 16-bit data of the built-in operations and of
// manifests moves through it as 16-bit patterns.
package half

import "math"

// FromFloat64 returns the binary16 nearest to f, ties to even, as the
// GPU's conversions round: overflow becomes an infinity, NaN a quiet NaN.
func FromFloat64(f float64) uint16 { return round(f, 5, 10) }

// FromFloat32 is FromFloat64 of f (which float64 holds exactly).
func FromFloat32(f float32) uint16 { return FromFloat64(float64(f)) }

// BFloat16FromFloat64 returns the bfloat16 nearest to f, ties to even:
// overflow becomes an infinity, a NaN a quiet NaN.
func BFloat16FromFloat64(f float64) uint16 { return round(f, 8, 7) }

// BFloat16FromFloat32 is BFloat16FromFloat64 of f (which float64 holds
// exactly).
func BFloat16FromFloat32(f float32) uint16 { return BFloat16FromFloat64(float64(f)) }

// round returns the float of expBits exponent and mantBits fraction bits
// (16 in all, with the sign) nearest to f, ties to even.
func round(f float64, expBits, mantBits uint) uint16 {
	b := math.Float64bits(f)
	sign := uint16(b>>48) & 0x8000
	exp := int(b>>52) & 0x7ff
	mant := b & (1<<52 - 1)
	inf := uint16(1<<expBits-1) << mantBits
	if exp == 0x7ff {
		if mant == 0 {
			return sign | inf
		}
		return sign | inf | 1<<(mantBits-1) | uint16(mant>>(52-mantBits))
	}
	// e is the exponent field the value would have if normal.
	e := exp - 1023 + 1<<(expBits-1) - 1
	if e >= 1<<expBits-1 {
		return sign | inf
	}
	shift := 52 - mantBits
	if e <= 0 {
		// Subnormal (or zero): the implicit bit joins the mantissa, which
		// shifts right by 1 - e more places.
		if e < -int(mantBits) {
			return sign // below half the smallest subnormal: zero
		}
		mant |= 1 << 52
		shift += uint(1 - e)
		e = 0
	}
	half := uint64(1) << (shift - 1)
	rest := mant & (1<<shift - 1)
	out := mant >> shift
	if rest > half || rest == half && out&1 == 1 {
		out++ // may carry into the exponent: that is still right
	}
	return sign | uint16(e)<<mantBits + uint16(out)
}

// ToFloat32 returns the binary16 h as a float32 (exactly).
func ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// Subnormal: mant · 2⁻²⁴, exact in float32.
		f := float32(mant) * 0x1p-24
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | mant<<13)
}

// BFloat16ToFloat32 returns the bfloat16 h as a float32 (exactly).
func BFloat16ToFloat32(h uint16) float32 {
	return math.Float32frombits(uint32(h) << 16)
}
