package autotune

import (
	"encoding/hex"

	"github.com/vkbench/vkbench/kernels"
)

// Checksum identifies a candidate list (kernels.Digest: names, SPIR-V
// bytes, entry points, specialization constants, workgroup sizes and the
// rest, in order) in the cache's keys. Change any candidate and answers
// tuned under the old list stop applying.
func Checksum(cands []kernels.Candidate) string {
	d := kernels.Digest(cands)
	return hex.EncodeToString(d[:16])
}

// ShapeOfSize converts a kernels.Size to a Shape. Sizes of more than
// MaxDims dimensions keep the first MaxDims.
func ShapeOfSize(s kernels.Size) Shape {
	var sh Shape
	n := min(len(s), MaxDims)
	sh.n = uint8(n)
	for i := 0; i < n; i++ {
		sh.dims[i] = int64(s[i])
	}
	return sh
}

// Size converts s back to a kernels.Size.
func (s Shape) Size() kernels.Size {
	out := make(kernels.Size, s.n)
	for i := range out {
		out[i] = int(s.dims[i])
	}
	return out
}
