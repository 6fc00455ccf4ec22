// Package catalogue is vkbench's built-in operations: fourteen
// computations, each with the candidate kernels that compute it (SPIR-V
// embedded from package shaders), the buffers and dispatch geometry of a
// problem of a given size, a CPU reference that checks every result, and
// the bytes and arithmetic one run does, for GB/s, FLOP/s and percent of
// peak. They implement the contract of package kernels, as the operations
// a manifest describes (package manifest) do; the tuner and the command
// treat both alike.
//
// # Basics
//
// Builtin lists the operations and Lookup finds one by name: "copy",
// "triad", "reduce", "transpose" (memory bandwidth), "gemm", "gemm-f16",
// "gemm-bf16" (matrix products), "peak-fma-f32", "peak-fma-f16",
// "peak-mad-i32" (the vector units' peak rates), "peak-coopmat-f16",
// "peak-coopmat-f16acc", "peak-coopmat-s8" and "peak-coopmat-bf16" (the
// matrix units'). Each has a DefaultSize per kind of device (megabytes
// on lavapipe, enough to fill an H200 on a discrete GPU, never past the
// device's buffer limits):
//
//	op, _ := catalogue.Lookup("gemm")
//	size := op.DefaultSize(dev.Info())
//	for i, c := range op.Candidates() {
//		if c.Supported(dev.Info()) != nil {
//			continue // code Unimplemented, with the reason
//		}
//		err := kernels.VerifyCandidate(ctx, dev, op, size, i, seed)
//		// errors.Is(err, kernels.ErrWrongResult) if the kernel is wrong
//	}
//
// # Verifying
//
// Integer and data-movement results (copy, transpose, peak-mad-i32) are
// compared exactly; peak-fma-f32 and -f16 and the peak-coopmat operations
// are built so that their results are exact too. Floating-point
// arithmetic is compared with a tolerance that each operation's Verify
// states and justifies: for triad two roundings of |b| + |s·c|; for
// reduce and gemm bounds relative to the sum of magnitudes (Σ|x|,
// Σ|a·b|), because results of mixed signs can be far smaller than the
// rounding errors of their parts. A mismatch names the element, the value
// got, the value wanted and the tolerance. Copy and transpose compare
// first a 64-bit digest of the output, computed on the device
// (shaders/digest.comp), with the one the host works out from its
// inputs, and read the output back only where the two differ, to name
// the wrong elements.
//
// # Parameter spaces
//
// gemm is Searchable: its space is gemm_regblock's tilings (BM, BN, BK,
// TX, TY, PH), with A's rows padded or swizzled in shared memory (SWZ)
// and loads checked or not (EXACT, for sizes that are multiples of the
// tile: Candidate.Applies). Its hand-written regblock candidates, which
// vkbench run measures, are named points of it; a search explores the
// rest.
//
// # Matrix units
//
// gemm-f16 and the peak-coopmat operations have candidates on cooperative
// matrices of one subgroup of 32, through GL_NV_cooperative_matrix and,
// as "khr-" candidates, through GL_KHR_cooperative_matrix (the same code;
// KHR is what other vendors' devices offer, and NVIDIA's driver runs
// gemm-f16's KHR twin faster: it loads B's fragments transposing, where
// the NV code transposes them in registers). Their tiles that lie wholly
// inside A and B load without tests, so the largest tiles win where the
// problem divides (see bench/RESULTS.md). gemm-f16 also has "nv2-"
// candidates on GL_NV_cooperative_matrix2's matrices of a whole
// workgroup, which win where the tile does not divide the problem. A
// device without an extension reports its candidates unsupported;
// gemm-f16 has portable candidates besides.
//
// gemm-bf16 is gemm-f16 on bfloat16 (VK_KHR_shader_bfloat16): its "khr-"
// and "nv2-" candidates are gemm-f16's kernels with their float16 type
// made bfloat16 after compiling (no compiler pinned here knows bfloat16:
// see internal/glslc); its portable candidates widen and round the
// bfloat16 patterns themselves, so they verify on any device.
// peak-coopmat-bf16 is peak-coopmat-f16's KHR kernel made bfloat16 the
// same way. The cooperative-matrix operations say that their flops run on
// the matrix units (kernels.ArithmeticOf), so that percent of peak is of
// the peak-coopmat rate.
//
// # Measuring
//
// BenchmarkCandidates (go test -run '^$' -bench Candidates -benchtime 50x
// ./catalogue) times every candidate at its operation's default size on
// the default device in GPU time, after a warm-up long enough for the
// clocks to leave idle (without one, an H200 reads at half its
// bandwidth).
//
// # Caveats
//
// The kernels index with 32-bit integers, so no dimension and no buffer
// may reach 2³¹ elements; Prepare says so (OutOfRange).
package catalogue
