// Package kernels is the contract between the operations vkbench measures
// and everything that measures them: what an operation, its candidate
// kernels and a problem of one size are, and the one way to run and check
// a candidate. Two packages produce operations: catalogue (the built-in
// ones) and manifest (users' kernels described in JSON). The tuner
// (autotune), the library's face and the command consume them, and need
// nothing else.
//
// # Basics
//
// An Operation has a name, an element type (DType), named dimensions
// (Dims) and an ordered list of Candidates: SPIR-V entry points with
// specialization constants, the parameters their geometry uses, and
// Requirements. Candidate.Supported says whether a device can run one
// (its Requirements and its module's capabilities: ModuleRequirements),
// naming what is missing; Candidate.Executable describes its pipeline,
// which builds without a problem. Digest hashes a candidate list, so that
// a cache of tuning results notices when any kernel changes.
//
// A Size is a problem's extent in each dimension: a small comparable
// value (SizeOf(1024, 1024, 1024)), which ParseSize reads as "67x45x33"
// or "K=33,M=67,N=45" and String writes back. Operation.Prepare allocates
// a Problem of one Size on a device and fills its inputs with seeded
// random data (NewRand). Problem.Record records one run of a candidate
// into a command buffer, and Problem.Verify reads the outputs back and
// compares them with a reference:
//
//	p, err := op.Prepare(ctx, dev, kernels.SizeOf(1024, 1024, 1024), seed)
//	defer p.Release()
//	exe, err := dev.CreateExecutable(op.Candidates()[i].Executable())
//	err = kernels.Run(ctx, dev, p, exe, i) // poison outputs, record, submit, wait
//	err = p.Verify(ctx, i)                 // errors.Is(err, kernels.ErrWrongResult) if wrong
//	// time runs of p.Record(cb, exe, i) between timestamps:
//	// GB/s = p.Bytes() / t, FLOP/s = p.Flops() / t.
//
// A problem whose candidates' pipelines depend on its size (a manifest's
// constants worked out from its dims) is a Sizer: CandidateAt gives the
// candidate as it runs there, the one to judge and to build for Record.
// Its operation is then an OperationSizer, which says the same without a
// problem or a device (CandidatesAt).
// VerifyCandidate does all of this for one candidate. Execute is the one
// record-submit-wait of the module: Run and the root package's Device go
// through it. Run fills outputs with Poison first, so that a candidate
// that writes nothing cannot pass on what another left behind; Check
// also looks at the guard past each output's end (GuardBytes).
//
// # Parameter spaces
//
// An operation whose kernels are the points of a space of tunable
// parameters implements Searchable: its Space names the params and their
// values, the Restrictions (of the params, the problem's dims and the
// device's limits) and how a configuration becomes a Candidate.
// Space.Points enumerates the configurations valid for a size on a
// device, compiling none; a search (packages search and autotune)
// explores them.
//
// # Writing an operation
//
// A Problem lists its buffers (Buffers, with roles), records its
// dispatches, and checks its outputs (Mismatches collects and reports
// the differences). Record must be idempotent, or the problem a
// Resetter; a problem whose work differs between candidates is a
// CandidateWorker. Subset narrows an operation to some of its candidates.
// DefaultSize should give a device work in proportion to its kind
// (ClassOf) and fit its buffers (Fits).
//
// # Caveats
//
// The catalogue's and a manifest's kernels index with 32-bit integers, so
// no dimension of theirs may reach 2³¹ (CheckSize), and no operation has
// more than MaxDims dimensions.
package kernels
