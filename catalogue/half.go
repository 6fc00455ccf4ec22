package catalogue

import (
	"math"

	"github.com/vkbench/vkbench/internal/half"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
)

// The 16-bit float operations' data is made and checked as float32 or
// float64 values that are exactly representable in their format, and
// moves as their 16-bit patterns (internal/half converts).

// format16 is a 16-bit float format: binary16 or bfloat16.
type format16 struct {
	from func(float32) uint16
	to   func(uint16) float32
	// mant is the bits of the significand after the point; minNormal the
	// smallest normal number.
	mant      int
	minNormal float64
}

var (
	binary16 = format16{from: half.FromFloat32, to: half.ToFloat32, mant: 10, minNormal: 0x1p-14}
	bfloat16 = format16{from: half.BFloat16FromFloat32, to: half.BFloat16ToFloat32, mant: 7, minNormal: 0x1p-126}
)

// format16Of is the format of a 16-bit float DType: F16 or BF16.
func format16Of(d kernels.DType) format16 {
	if d == kernels.BF16 {
		return bfloat16
	}
	return binary16
}

// ulp is the spacing of the format's numbers at |v| (that of the
// subnormals below the smallest normal).
func (f format16) ulp(v float64) float64 {
	v = math.Max(math.Abs(v), f.minNormal)
	_, e := math.Frexp(v) // v = m · 2^e, m in [0.5, 1)
	return math.Ldexp(1, e-1-f.mant)
}

// pack rounds values to the nearest of the format, in place (the
// reference then works with what the device holds), and packs them two to
// a little-endian word, element 2i in the low half of word i, as a buffer
// of them holds them.
func (f format16) pack(values []float32) []uint32 {
	w := make([]uint32, (len(values)+1)/2)
	par.Range(len(w), 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for k := 2 * i; k < min(2*i+2, len(values)); k++ {
				h := f.from(values[k])
				values[k] = f.to(h)
				w[i] |= uint32(h) << (16 * (k - 2*i))
			}
		}
	})
	return w
}
