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
