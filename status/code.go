package status

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/internal/enum"
)

// Code says what kind of failure an error is. The values and their meaning
// are those of absl::StatusCode and IREE's iree_status_code_t, so a code
// means the same thing on both sides of a binding.
//
// A Code is itself an error: a function that has nothing more to say than
// the code returns it as is, and that costs no allocation.
type Code uint32

// The codes, numbered as in absl and IREE.
const (
	// OK is success: as an error, nil; OK is what CodeOf(nil) reports.
	OK Code = iota
	// Cancelled: the operation was cancelled, usually by its caller.
	Cancelled
	// Unknown: an error that says nothing about its kind, such as an error
	// from outside this package that CodeOf cannot place.
	Unknown
	// InvalidArgument: the caller passed something that is wrong whatever
	// the state of the system (a malformed name, a negative size).
	InvalidArgument
	// DeadlineExceeded: the deadline passed before the operation finished.
	DeadlineExceeded
	// NotFound: something asked for does not exist.
	NotFound
	// AlreadyExists: something to be created exists already.
	AlreadyExists
	// PermissionDenied: the caller may not do this.
	PermissionDenied
	// ResourceExhausted: memory, a quota or another resource ran out.
	ResourceExhausted
	// FailedPrecondition: the system is not in the state the operation
	// needs; retrying will not help until that state is fixed.
	FailedPrecondition
	// Aborted: the operation was stopped, typically by a concurrency
	// conflict; a retry at a higher level may succeed.
	Aborted
	// OutOfRange: a value or position lies past the valid range.
	OutOfRange
	// Unimplemented: the operation is not supported by this implementation.
	Unimplemented
	// Internal: an invariant that should hold did not; a bug.
	Internal
	// Unavailable: the service or device cannot be reached now; a retry
	// may succeed.
	Unavailable
	// DataLoss: data was lost or corrupted beyond recovery.
	DataLoss
	// Unauthenticated: the caller has no valid credentials.
	Unauthenticated
	// Deferred: the operation did not fail but will finish later (IREE's
	// IREE_STATUS_DEFERRED).
	Deferred
	// Incompatible: what was given is well formed but made for something
	// else, such as a binary built for another version or device (IREE's
	// IREE_STATUS_INCOMPATIBLE).
	Incompatible
)

// codeNames holds the name of each known code, indexed by its value.
var codeNames = [...]string{
	OK:                 "OK",
	Cancelled:          "CANCELLED",
	Unknown:            "UNKNOWN",
	InvalidArgument:    "INVALID_ARGUMENT",
	DeadlineExceeded:   "DEADLINE_EXCEEDED",
	NotFound:           "NOT_FOUND",
	AlreadyExists:      "ALREADY_EXISTS",
	PermissionDenied:   "PERMISSION_DENIED",
	ResourceExhausted:  "RESOURCE_EXHAUSTED",
	FailedPrecondition: "FAILED_PRECONDITION",
	Aborted:            "ABORTED",
	OutOfRange:         "OUT_OF_RANGE",
	Unimplemented:      "UNIMPLEMENTED",
	Internal:           "INTERNAL",
	Unavailable:        "UNAVAILABLE",
	DataLoss:           "DATA_LOSS",
	Unauthenticated:    "UNAUTHENTICATED",
	Deferred:           "DEFERRED",
	Incompatible:       "INCOMPATIBLE",
}

// String returns the code's name as IREE spells it, such as
// "INVALID_ARGUMENT"; a value outside the known codes reads "CODE(42)".
func (c Code) String() string { return enum.Name(c, codeNames[:], "CODE(%d)") }

// Error returns the code's name, as String does.
func (c Code) Error() string { return c.String() }

// Is reports whether c stands for target when target is one of the
// context package's errors: Cancelled is context.Canceled and
// DeadlineExceeded is context.DeadlineExceeded, so that
// errors.Is(err, context.Canceled) holds whatever form the error took.
// Two codes match through ==, which errors.Is tries first.
func (c Code) Is(target error) bool {
	switch target {
	case context.Canceled:
		return c == Cancelled
	case context.DeadlineExceeded:
		return c == DeadlineExceeded
	}
	return false
}

// MarshalText encodes the code as its name, so that JSON and other text
// formats hold "NOT_FOUND" rather than 5.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText decodes what MarshalText wrote, as ParseCode does.
func (c *Code) UnmarshalText(text []byte) error {
	parsed, err := ParseCode(string(text))
	if err == nil {
		*c = parsed
	}
	return err
}

// ParseCode returns the code that String names: a known name such as
// "NOT_FOUND", or "CODE(n)" for any other value. It is the inverse of
// String. Anything else is an InvalidArgument error.
func ParseCode(s string) (Code, error) {
	if c := slices.Index(codeNames[:], s); c >= 0 {
		return Code(c), nil
	}
	if digits, ok := strings.CutPrefix(s, "CODE("); ok {
		if digits, ok := strings.CutSuffix(digits, ")"); ok {
			n, err := strconv.ParseUint(digits, 10, 32)
			// Only the canonical spelling, so that String(ParseCode(s)) == s.
			if err == nil && int(n) >= len(codeNames) && strconv.FormatUint(n, 10) == digits {
				return Code(n), nil
			}
		}
	}
	return OK, Newf(InvalidArgument, "status: unknown code %q", s)
}
