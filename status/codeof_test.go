package status_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/vkbench/vkbench/status"
)

func TestCodeOf(t *testing.T) {
	_, openErr := os.Open(filepath.Join(t.TempDir(), "missing"))
	var typedNil *status.Status
	tests := []struct {
		name string
		err  error
		want status.Code
	}{
		{"nil", nil, status.OK},
		{"code", status.Aborted, status.Aborted},
		{"unknown code value", status.Code(42), status.Code(42)},
		{"status", status.New(status.NotFound, "x"), status.NotFound},
		{"annotated", status.Annotate(status.New(status.NotFound, "x"), "y"), status.NotFound},
		{"wrapped by Wrap", status.Wrap(status.NotFound, status.Internal, "x"), status.Internal},
		{"wrapped once", fmt.Errorf("a: %w", status.New(status.Unavailable, "x")), status.Unavailable},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", status.ResourceExhausted)), status.ResourceExhausted},
		{"%v drops the chain", fmt.Errorf("a: %v", status.ResourceExhausted), status.Unknown},
		{"errors.Join, first code", errors.Join(errForeign, status.OutOfRange, status.Internal), status.OutOfRange},
		{"errors.Join, nested", fmt.Errorf("a: %w", errors.Join(errForeign, fmt.Errorf("b: %w", context.Canceled))), status.Cancelled},
		{"errors.Join, foreign only", errors.Join(errForeign, errForeign), status.Unknown},
		{"fmt.Errorf with two %w", fmt.Errorf("%w and %w", errForeign, status.DataLoss), status.DataLoss},
		{"status.Join", status.Join(errForeign, status.FailedPrecondition), status.FailedPrecondition},
		{"context.Canceled", context.Canceled, status.Cancelled},
		{"context.DeadlineExceeded", context.DeadlineExceeded, status.DeadlineExceeded},
		{"wrapped context.DeadlineExceeded", fmt.Errorf("wait: %w", context.DeadlineExceeded), status.DeadlineExceeded},
		{"os.ErrDeadlineExceeded", os.ErrDeadlineExceeded, status.DeadlineExceeded},
		{"fs.ErrNotExist", fs.ErrNotExist, status.NotFound},
		{"os.Open of a missing file", openErr, status.NotFound},
		{"fs.ErrExist", fs.ErrExist, status.AlreadyExists},
		{"fs.ErrPermission", fs.ErrPermission, status.PermissionDenied},
		{"fs.ErrInvalid", fs.ErrInvalid, status.InvalidArgument},
		{"errors.ErrUnsupported", errors.ErrUnsupported, status.Unimplemented},
		{"foreign", errForeign, status.Unknown},
		{"foreign wrapping nil", fmt.Errorf("x: %w", nil), status.Unknown},
		{"uncomparable foreign", uncomparableError{[]string{"a"}}, status.Unknown},
		{"typed nil *Status", typedNil, status.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := status.CodeOf(tt.err); got != tt.want {
				t.Errorf("CodeOf(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// uncomparableError panics if compared with == against another value of
// its type.
type uncomparableError struct{ parts []string }

func (e uncomparableError) Error() string { return fmt.Sprint(e.parts) }

func TestCodeOfAllocatesNothing(t *testing.T) {
	err := fmt.Errorf("a: %w", errors.Join(errForeign, fmt.Errorf("b: %w", status.New(status.Aborted, "x"))))
	if n := testing.AllocsPerRun(100, func() { sinkCode = status.CodeOf(err) }); n != 0 {
		t.Errorf("CodeOf allocates %v times, want 0", n)
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{status.Aborted, ""},
		{status.New(status.NotFound, "shader missing"), "shader missing"},
		{status.Annotate(status.Wrap(errForeign, status.Internal, "compile failed"), "while building"), "compile failed"},
		{errForeign, "something foreign"},
		{fmt.Errorf("a: %w", status.New(status.NotFound, "x")), "a: NOT_FOUND: x"},
		{status.Join(status.Aborted, errForeign), "2 errors: [ABORTED] [something foreign]"},
	}
	for _, tt := range tests {
		if got := status.Message(tt.err); got != tt.want {
			t.Errorf("Message(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
