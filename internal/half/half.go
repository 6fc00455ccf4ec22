// Package half converts between float32 and the 16-bit floats, IEEE 754
// binary16 ("half", float16) and bfloat16 (float32's upper half), which Go
// lacks, as GPUs convert: to the nearest, ties to even, overflow to an
// infinity, a NaN to a quiet NaN; back exactly. The 16-bit data of the
// built-in operations and of manifests moves through it as 16-bit
// patterns.
package half

import "math"

// FromFloat32 returns the binary16 nearest to f, ties to even, as the
// GPU's conversions round: overflow becomes an infinity, NaN a quiet NaN.
func FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff && mant != 0:
		return sign | 0x7e00
	case exp == 0xff:
		return sign | 0x7c00
	}
	// e is the binary16 exponent field the value would have if normal.
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	var shift int
	var m uint32
	if e <= 0 {
		// Subnormal (or zero) in binary16: the implicit bit joins the
		// mantissa, which shifts right by 1 - e more places.
		if e < -10 {
			return sign // rounds to zero (below half the smallest subnormal)
		}
		m = mant | 0x800000
		shift = 13 + 1 - e
		e = 0
	} else {
		m = mant
		shift = 13
	}
	half := uint32(1) << (shift - 1)
	rest := m & (1<<shift - 1)
	out := m >> shift
	if rest > half || rest == half && out&1 == 1 {
		out++ // may carry into the exponent: that is still right
	}
	return sign | uint16(e)<<10 + uint16(out)
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

// BFloat16FromFloat32 returns the bfloat16 nearest to f, ties to even:
// float32's upper 16 bits, rounded on the lower 16. Overflow becomes an
// infinity (the carry reaches the exponent), a NaN a quiet NaN.
func BFloat16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// BFloat16ToFloat32 returns the bfloat16 h as a float32 (exactly).
func BFloat16ToFloat32(h uint16) float32 {
	return math.Float32frombits(uint32(h) << 16)
}
