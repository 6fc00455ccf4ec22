// Package kernels is vkbench's catalogue of operations: for each, the
// candidate kernels that compute it, the buffers and dispatch geometry of
// a problem of a given size, a CPU reference that checks every result,
// and the bytes and arithmetic one run does, for GB/s, FLOP/s and percent
// of peak. The autotuner measures candidates through it and the command
// line lists and runs them.
//
// # Basics
//
// An Operation ("copy", "triad", "reduce", "transpose", "gemm", "gemm-f16",
// "gemm-bf16", "peak-fma-f32", "peak-fma-f16", "peak-mad-i32", "peak-coopmat-f16",
// "peak-coopmat-f16acc", "peak-coopmat-s8", "peak-coopmat-bf16"; see Builtin
// and Lookup)
// has named dimensions (Dims) and an ordered list of Candidates. A
// Candidate is a SPIR-V entry point with specialization constants
// (workgroup size and tunables), the parameters its geometry uses, and its
// Requirements; Candidate.Supported says whether a device can run it (from
// its Requirements and what its module's capabilities need, one mapping
// for every kernel: ModuleRequirements), naming what is missing, such as
// "needs cooperative matrices (VK_NV_cooperative_matrix)", and
// Candidate.Executable describes its pipeline, which can be built without
// any problem (a compile-only pass). Digest hashes a candidate list, so
// that a cache of tuning results notices when any kernel changes.
//
// Operation.Prepare allocates a Problem of one Size on a device and fills
// its inputs with seeded random data. Problem.Record records one run of a
// candidate (one or more dispatches) into a command buffer, and
// Problem.Verify reads the outputs back and compares them with the CPU
// reference:
//
//	op, _ := kernels.Lookup("gemm")
//	p, err := op.Prepare(ctx, dev, kernels.SizeOf(1024, 1024, 1024), seed)
//	defer p.Release()
//	for i, c := range op.Candidates() {
//		if c.Supported(dev.Info()) != nil {
//			continue // code Unimplemented, with the reason
//		}
//		exe, err := dev.CreateExecutable(c.Executable())
//		err = kernels.Run(ctx, dev, p, exe, i) // poison outputs, record, submit, wait
//		err = p.Verify(ctx, i)                 // errors.Is(err, kernels.ErrWrongResult) if wrong
//		// ... time runs of p.Record(cb, exe, i) between timestamps;
//		// GB/s = p.Bytes() / t, FLOP/s = p.Flops() / t.
//	}
//
// VerifyCandidate does all of this for one candidate.
//
// # Parameter spaces
//
// An operation whose kernels are the points of a space of tunable
// parameters implements Searchable: its Space names the params and their
// values, the Restrictions (conditions of the params, the problem's dims
// and the device's limits) and how a configuration becomes a Candidate.
// Space.Points enumerates the configurations valid for a size on a device
// without compiling any. gemm's space is gemm_regblock's tilings (BM, BN,
// BK, TX, TY, PH) with A's rows padded in shared memory; its hand-written
// regblock candidates are points of it, but for those whose rows of A are
// swizzled instead (SWZ, a layout, which fits 128x256x16 into 48 KiB) and
// those without the checked path of their loads (EXACT, for sizes that
// are multiples of their tiles: Candidate.Applies).
// Candidates lists the named points, which vkbench run measures; a search
// (package autotune) explores the rest.
//
// # Verifying
//
// Integer and data-movement results (copy, transpose, peak-mad-i32) are
// compared exactly; peak-fma-f32 and -f16 and the peak-coopmat operations
// are built so that their results are exact too. Floating-point arithmetic is compared with a tolerance
// that each operation's Verify states and justifies: for triad two
// roundings of |b| + |s·c|; for reduce and gemm bounds relative to the sum
// of magnitudes (Σ|x|, Σ|a·b|), because results of mixed signs can be far
// smaller than the rounding errors of their parts. A mismatch error names
// the element, the value got, the value wanted and the tolerance. Run
// fills outputs with Poison first, so that a candidate that writes nothing
// cannot pass on what another left behind.
//
// # Matrix units
//
// gemm-f16 and the peak-coopmat operations have candidates on cooperative
// matrices of one subgroup of 32, through GL_NV_cooperative_matrix and,
// as "khr-" candidates, through GL_KHR_cooperative_matrix (the same code;
// KHR is what other vendors' devices offer, and NVIDIA's driver runs
// gemm-f16's KHR twin faster: it loads B's fragments transposing, where
// the NV code transposes them in registers). Their tiles that lie wholly
// inside A and B load without tests, so the largest tiles, with the most
// multiply-adds an instruction, win where the problem divides (see
// bench/RESULTS.md for where their time goes). gemm-f16 also has "nv2-" candidates on
// GL_NV_cooperative_matrix2's matrices of a whole workgroup, which win
// where the tile does not divide the problem. A device without an
// extension reports its candidates unsupported;
// gemm-f16 has portable candidates besides.
//
// gemm-bf16 is gemm-f16 on bfloat16 (VK_KHR_shader_bfloat16): its "khr-"
// and "nv2-" candidates are gemm-f16's kernels, whose modules only move
// their 16-bit floats and multiply them in matrices, with their float16
// type made bfloat16 after compiling (no compiler pinned here knows
// bfloat16: see internal/glslc); its portable candidates widen and round
// the bfloat16 patterns themselves, so they verify on any device.
// peak-coopmat-bf16 is peak-coopmat-f16's KHR kernel made bfloat16 the
// same way, and gemm-bf16's percent of peak is of its rate. The code the cooperative-matrix
// kernels share with their twins (shaders' *_emu kernels, which hold the
// fragments in every invocation's registers) is verified by the tests on
// any device; the twins are not in the catalogue. Operations say which
// arithmetic bounds their flops (ArithmeticOf): the matrix units' for
// these, so that percent of peak is of the peak-coopmat rate.
//
// # Measuring
//
// BenchmarkCandidates (go test -run '^$' -bench Candidates -benchtime 50x
// ./kernels) times every candidate at its operation's default size on the
// default device in GPU time, after a warm-up long enough for the clocks to
// leave idle (without one, an H200 reads at half its bandwidth).
//
// # Writing an operation
//
// An Operation need not be built in: one described by a manifest (named
// dimensions, buffers with an element type and a size expression, push
// constants, and the dispatch grid as expressions; package manifest reads
// them) implements the same interfaces. Its candidates carry their SPIR-V and constants; its
// Problem lists its buffers (Buffers, with roles), records its dispatches,
// and checks its outputs. Record must be idempotent (runs leave the same
// results whatever ran before); an operation that cannot promise that
// implements Resetter. A problem whose work differs between candidates (a
// manifest's "flops" that use a candidate's unroll factor) implements
// CandidateWorker, so that each candidate's rates come from its own work.
//
// # Caveats
//
// Kernels index with 32-bit integers, so no dimension and no buffer may
// reach 2³¹ elements; Prepare says so (OutOfRange). Buffers must also fit
// the device's maxStorageBufferRange (128 MiB on lavapipe), which
// DefaultSize respects.
package kernels
