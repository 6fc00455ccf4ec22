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

// ShapeOfSize converts a kernels.Size to a Shape. A size of more than
// MaxDims dimensions is a programming error: operations have at most
// that many (kernels.CheckSize, the manifests and the root package's Op
// refuse more).
func ShapeOfSize(s kernels.Size) Shape {
	if len(s) > MaxDims {
		// Dropping dimensions would give different sizes one key: a size
		// of more is refused where it is made (kernels.CheckSize).
		panic("autotune: a size of more than kernels.MaxDims dimensions")
	}
	var sh Shape
	n := len(s)
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
