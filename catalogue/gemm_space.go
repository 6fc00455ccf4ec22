package catalogue

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// gemmParams are gemm_regblock's specialization constants: the block of C
// a workgroup computes (BM×BN), the depth of a slice of K (BK), the
// workgroup (TX×TY), the phases a slice is loaded in (PH), A's rows
// swizzled rather than padded (SWZ) and loads without their bounds checks
// (EXACT, for sizes that are multiples of the block).
var gemmParams = []kernels.Param{
	{Name: "BM", Values: kernels.Pow2(32, 256)},
	{Name: "BN", Values: kernels.Pow2(32, 256)},
	{Name: "BK", Values: kernels.Pow2(8, 32)},
	{Name: "TX", Values: kernels.Pow2(8, 32)},
	{Name: "TY", Values: kernels.Pow2(8, 32)},
	{Name: "PH", Values: kernels.Pow2(1, 4)},
	{Name: "SWZ", Values: []int{0, 1}},
	{Name: "EXACT", Values: []int{0, 1}},
}

// gemmRestrictions are what the shader's code assumes (micro-tiles of
// whole vec4s, phases of whole vec4 rows), what keeps its accumulators in
// registers (at most 64 a invocation: the hand-written kernels' largest;
// more spill), what the device allows, and blocks no larger than the
// problem rounded up to the smallest block.
var gemmRestrictions = []kernels.Restriction{
	rule("BM % (4*TY) == 0", func(e kernels.Env) bool { return e.Param("BM")%(4*e.Param("TY")) == 0 }),
	rule("BN % (4*TX) == 0", func(e kernels.Env) bool { return e.Param("BN")%(4*e.Param("TX")) == 0 }),
	rule("BK % (4*PH) == 0", func(e kernels.Env) bool { return e.Param("BK")%(4*e.Param("PH")) == 0 }),
	rule("(BM/TY) * (BN/TX) <= 64", func(e kernels.Env) bool { return e.Param("BM")/e.Param("TY")*(e.Param("BN")/e.Param("TX")) <= 64 }),
	// What Candidate.Supported checks of the device (the workgroup, the
	// module's shared memory), which the expression writes out.
	rule("TX*TY <= max_workgroup_invocations && TX <= max_workgroup_size_x && TY <= max_workgroup_size_y && 16 * (2*BK*(BM/4 + 1 - SWZ) + 2*BK*BN/4) <= max_shared_memory", func(e kernels.Env) bool {
		c, _ := regblockOf(e.Config)
		return c.Supported(hal.DeviceInfo{Limits: e.Limits}) == nil
	}),
	rule("EXACT == 0 || M % BM == 0 && N % BN == 0 && K % BK == 0", func(e kernels.Env) bool {
		return e.Param("EXACT") == 0 || e.Dim("M")%e.Param("BM") == 0 && e.Dim("N")%e.Param("BN") == 0 && e.Dim("K")%e.Param("BK") == 0
	}),
	rule("BM <= round_up(M, 32) && BN <= round_up(N, 32)", func(e kernels.Env) bool {
		return e.Param("BM") <= roundUp(e.Dim("M"), 32) && e.Param("BN") <= roundUp(e.Dim("N"), 32)
	}),
}

// rule is a restriction that cannot fail to evaluate.
func rule(expr string, holds func(kernels.Env) bool) kernels.Restriction {
	return kernels.Restriction{Expr: expr, Holds: func(e kernels.Env) (bool, error) { return holds(e), nil }}
}

func roundUp(a, b int) int { return (a + b - 1) / b * b }

// regblockOf is the gemm_regblock candidate of configuration cfg.
func regblockOf(cfg kernels.Config) (kernels.Candidate, error) {
	bm, bn, bk := uint32(cfg["BM"]), uint32(cfg["BN"]), uint32(cfg["BK"])
	tx, ty, ph := uint32(cfg["TX"]), uint32(cfg["TY"]), uint32(cfg["PH"])
	// PH = 1, SWZ = 0 and EXACT = 0 are the kernel's defaults: no
	// constant, no param, as the hand-written candidates have them.
	c := regblock(bm, bn, bk, tx, ty)
	if ph > 1 {
		c = regblockPhased(bm, bn, bk, tx, ty, ph)
	}
	if cfg["SWZ"] == 1 {
		c = regblockSwizzled(c)
	}
	if cfg["EXACT"] == 1 {
		c = regblockExact(c)
	}
	return c, nil
}

// gemmSpace is the space of gemm_regblock kernels.
var gemmSpace = &kernels.Space{
	Params:       gemmParams,
	Restrictions: gemmRestrictions,
	Candidate:    regblockOf,
	Operation: func(cands []kernels.Candidate) (kernels.Operation, []int) {
		return gemmOf(kernels.F32, cands), kernels.Range(0, len(cands)-1, 1)
	},
}

// Space is gemm's space of gemm_regblock kernels (BM, BN, BK, TX, TY, PH,
// SWZ, EXACT), 1152 valid configurations at 4096³ on a device with 48 KiB
// of shared memory and 1024 invocations a workgroup; nil for gemm-f16
// and gemm-bf16, which have none.
func (op *gemmOp) Space() *kernels.Space {
	if op.dtype != kernels.F32 {
		return nil
	}
	return gemmSpace
}
