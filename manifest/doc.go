// Package manifest reads kernel manifests: JSON files that describe a
// user's own compute kernels as operations vkbench can verify, measure and
// tune, without changing their source. An operation names its dimensions,
// its buffers (how long, how filled, which are checked), its push
// constants and dispatch geometry as expressions of the dimensions, and
// its candidates: SPIR-V files with their entry points, specialization
// constants and parameters.
//
// # Basics
//
// Load reads a manifest and returns its operations, which are
// kernels.Operation values like the built-in ones:
//
//	ops, err := manifest.Load("kernels.json")
//	if err != nil {
//		return err // one line, naming the file, line and field at fault
//	}
//	e, err := autotune.Measure(ctx, dev, ops[0], kernels.SizeOf(1<<20), opts)
//
// The format is described in docs/manifest.md of the repository, with
// working examples in testdata/manifests.
//
// # Parameter spaces
//
// A candidate with "space" and "restrict" spans a parameter space (params
// to lists or ranges of values, restrictions as expressions of the params,
// the dims and the device's limits): the operation is then a
// kernels.Searchable whose Space a search (autotune's Tuner.Search,
// vkbench tune --strategy) explores, while the candidate itself stays one
// named point.
//
// # Checking
//
// Everything that can be checked when the manifest is read is: its files,
// entry points, the bindings against the module's descriptors (buffers,
// and images of the format and texel kind it declares), constants,
// workgroup sizes, push constants, and every expression, evaluated at the
// default size; docs/manifest.md lists it all under "What is checked, and
// when". Each problem is an error with code InvalidArgument (NotFound for
// a missing file) that names the file, line and column, the field's path
// (operations[0].candidates[1].groups[0]) and, in an expression, the
// column. A candidate that cannot run at a size is reported as such when
// the size is prepared, naming the assertion or the device limit.
// Problems that do not stop the work are warnings (Warnings), named the
// same way, such as a constant_id the module does not declare (glslc -O
// drops the constants a kernel does not use), which is not passed.
//
// # Sizes in pipelines
//
// A specialization constant may be an expression of the dimensions, the
// device's limits and the pass of a repeated dispatch, as many kernels
// take their sizes. Each distinct set of constant values is a pipeline,
// shared by every dispatch, pass and candidate with those values; Prepare
// builds those of its size beyond each candidate's own (which a
// measurement builds from its SizedCandidate; the candidate's Executable
// is the default size's), so that no run pays a compilation. Without a
// device, the operation says what each candidate is at a size and which
// pipelines its problem builds there (kernels.OperationSizer): a space's
// points are judged, and a compile-only pass builds, by that.
package manifest
