package catalogue

import (
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// FittedTwins returns, for the built-in operation op, an operation whose
// candidates are the fitted twins (see fitted) of op's candidates that
// info cannot run for want of shared memory or workgroup size, or nil if
// there are none; and the names of such candidates that have no twin.
// Candidates a device lacks a feature for are neither.
func FittedTwins(op kernels.Operation, info hal.DeviceInfo) (kernels.Operation, []string) {
	// What info would run with limits no device has: the candidates
	// that are merely too large.
	roomy := info
	roomy.Limits.MaxSharedMemory = 1 << 30
	roomy.Limits.MaxWorkgroupInvocations = 1 << 30
	roomy.Limits.MaxWorkgroupSize = [3]uint32{1 << 30, 1 << 30, 1 << 30}
	var twins []kernels.Candidate
	var missing []string
	for _, c := range op.Candidates() {
		if c.Supported(info) == nil || c.Supported(roomy) != nil {
			continue
		}
		if twin, ok := fitted(c, info); ok {
			twins = append(twins, twin)
		} else {
			missing = append(missing, c.Name)
		}
	}
	if len(twins) == 0 {
		return nil, missing
	}
	// Only the register-blocked GEMMs have twins.
	return gemmOf(op.DType(), twins), missing
}

// fitted returns, for a gemm_regblock candidate c that info cannot run
// for want of shared memory or of a large enough workgroup, a candidate of
// the same shader that it can: the workgroup, and with it the block,
// halved in x and y until it fits, with the micro-tile of each invocation
// (BM/TY × BN/TX), the slice depth BK, the phases PH, the layout of A
// (SWZ) and the unchecked loads (EXACT, with the smaller block's rule)
// kept. Its code is
// c's code: the same micro-tile arithmetic, slice loop and phases, each
// invocation loading twice the vec4s of a slice per halving (the load
// loops, unrolled, run more times). The tests verify it where c cannot
// run, so that a small device (lavapipe has 32 KiB of shared memory)
// still checks c's code. ok is false when c runs on info, is not a
// gemm_regblock candidate, or cannot be halved enough.
func fitted(c kernels.Candidate, info hal.DeviceInfo) (kernels.Candidate, bool) {
	build := map[string]func(bm, bn, bk, tx, ty, ph uint32) kernels.Candidate{
		"gemm_regblock": func(bm, bn, bk, tx, ty, ph uint32) kernels.Candidate {
			if ph > 1 {
				return regblockPhased(bm, bn, bk, tx, ty, ph)
			}
			return regblock(bm, bn, bk, tx, ty)
		},
		"gemm_f16_regblock": func(bm, bn, bk, tx, ty, ph uint32) kernels.Candidate {
			return regblockHalf("gemm_f16_regblock", bm, bn, bk, tx, ty, ph)
		},
		"gemm_bf16_regblock": func(bm, bn, bk, tx, ty, ph uint32) kernels.Candidate {
			return regblockHalf("gemm_bf16_regblock", bm, bn, bk, tx, ty, ph)
		},
	}[c.Shader]
	if build == nil || c.Supported(info) == nil {
		return kernels.Candidate{}, false
	}
	p := func(name string) uint32 { return uint32(c.Params[name]) }
	bm, bn, bk, tx, ty, ph := p("BM"), p("BN"), p("BK"), p("TX"), p("TY"), max(p("PH"), 1)
	for {
		if tx%2 != 0 || ty%2 != 0 {
			return kernels.Candidate{}, false
		}
		bm, bn, tx, ty = bm/2, bn/2, tx/2, ty/2
		twin := build(bm, bn, bk, tx, ty, ph)
		if c.Params["SWZ"] == 1 {
			twin = regblockSwizzled(twin)
		}
		if c.Params["EXACT"] == 1 {
			twin = regblockExact(twin)
		}
		if twin.Supported(info) == nil {
			twin.Name = c.Name + "-as-" + strings.TrimPrefix(twin.Name, "regblock-")
			return twin, true
		}
	}
}
