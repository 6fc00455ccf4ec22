package kernels

import (
	"math"

	"github.com/vkbench/vkbench/internal/half"
)

// The fp16 operations' data is made and checked as float32 or float64
// values that are exactly representable in binary16, and moves as their
// 16-bit patterns (internal/half converts).

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
			lo16 := uint32(half.FromFloat32(values[2*i]))
			hi16 := uint32(0)
			if 2*i+1 < len(values) {
				hi16 = uint32(half.FromFloat32(values[2*i+1]))
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
			values[i] = half.ToFloat32(half.FromFloat32(values[i]))
		}
	})
}
