package kernels

import "math"

// IEEE 754 binary16 ("half", float16), which Go lacks: the fp16
// operations' data is made and checked as float32 or float64 values that
// are exactly representable in binary16, and moves as their 16-bit
// patterns.

// halfFromFloat returns the binary16 nearest to f, ties to even, as the
// GPU's conversions round: overflow becomes an infinity, NaN a quiet NaN.
func halfFromFloat(f float32) uint16 {
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

// floatFromHalf returns the binary16 h as a float32 (exactly).
func floatFromHalf(h uint16) float32 {
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

// ulpHalf is the spacing of binary16 numbers at |v| (that of the
// subnormals, 2⁻²⁴, below the smallest normal 2⁻¹⁴).
func ulpHalf(v float64) float64 {
	v = math.Abs(v)
	if v < 0x1p-14 {
		return 0x1p-24
	}
	_, e := math.Frexp(v) // v = f · 2^e, f in [0.5, 1)
	return math.Ldexp(1, e-1-10)
}

// minNormal16 is the smallest normal binary16: tolerances add it so that
// a device that flushes fp16 denormals is not called wrong.
const minNormal16 = 0x1p-14

// packHalves packs values (binary16-exact) two to a little-endian word,
// element 2i in the low half of word i, as a buffer of halves holds them.
func packHalves(values []float32) []uint32 {
	w := make([]uint32, (len(values)+1)/2)
	spread(len(w), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			lo16 := uint32(halfFromFloat(values[2*i]))
			hi16 := uint32(0)
			if 2*i+1 < len(values) {
				hi16 = uint32(halfFromFloat(values[2*i+1]))
			}
			w[i] = lo16 | hi16<<16
		}
	})
	return w
}

// roundToHalves rounds every value to the nearest binary16, in place.
func roundToHalves(values []float32) {
	spread(len(values), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			values[i] = floatFromHalf(halfFromFloat(values[i]))
		}
	})
}
