// Package status gives errors a code, IREE's iree_status_t way: success
// costs nothing, a bare code costs nothing, and messages, source locations
// and stack traces are paid for only when something fails.
//
// # Basics
//
// Success is a nil error. A failure is a Code, which is itself an error,
// or a *Status, which adds a message and more:
//
//	if size < 0 {
//		return status.InvalidArgument // no allocation
//	}
//	if !found {
//		return status.Newf(status.NotFound, "kernels: no candidate for %q", op)
//	}
//
// Never return OK as an error: it is the code CodeOf reports for nil.
// Wrap gives an error from elsewhere a code of its own and keeps it as the
// cause, which errors.Unwrap, errors.Is and errors.As see.
//
// # Codes
//
// The codes are those of absl and IREE, 0 to 18, named as IREE names them
// ("INVALID_ARGUMENT"); ParseCode reads the names back. CodeOf returns the
// code of any error, whatever wraps it: fmt.Errorf's %w, errors.Join and
// Join are looked through, the context and io/fs errors have codes of
// their own (context.DeadlineExceeded is DeadlineExceeded), and any other
// error is Unknown.
//
// errors.Is(err, status.NotFound) holds when err or an error it wraps
// carries the code NotFound. Statuses and codes also match the context
// errors they stand for: errors.Is(err, context.Canceled) holds for a
// Cancelled status. errors.As(err, &st), with st a *Status, finds the rich
// status; Payload finds typed data attached to one.
//
// # Annotating
//
// On the way up a caller adds what it was doing, in one line, because
// Annotate(nil, …) is nil:
//
//	return status.Annotatef(build(p), "while building pipeline %q", p.Name)
//
// Annotating never changes the original, so a status shared between
// goroutines, or kept in a package variable, can be annotated freely.
//
// # Formatting
//
// %v, %s and Error() print one line, read as Go's wrapped errors are,
// the outermost first; %+v prints one part a line, with locations, the
// payloads and the stack (see Status.Format):
//
//	INTERNAL: while building pipeline "gemm": compile failed: NOT_FOUND: shader missing
//
// # Keep levels
//
// SetMode chooses, for the whole process, how much a new status keeps, as
// IREE_STATUS_MODE does: from ModeCode (only the code; New returns the
// bare code and nothing is allocated) to ModeStack (also the stack of
// calls); ModeMessages is the default. Code that makes statuses is the
// same in every mode. The setting belongs to a program's main: no package
// of vkbench sets it. A program that makes errors in a hot loop (a tuner
// trying thousands of configurations, most refused) sets ModeCode and
// pays nothing for them; one chasing where an error came from sets
// ModeStack and prints it with %+v.
//
// # Cost
//
// Returning nil or a Code allocates nothing. New allocates one Status and
// records one program counter, without resolving it: files and lines are
// looked up only when a status is printed with %+v. Newf adds what
// fmt.Sprintf costs. Annotate on a *Status allocates once. CodeOf walks
// the chain with type switches, without reflection or allocation. The
// benchmarks in bench_test.go measure each of these.
package status
