package status_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/vkbench/vkbench/status"
)

func TestJoinOfOne(t *testing.T) {
	err := status.New(status.NotFound, "x")
	if got := status.Join(nil, err, nil); got != err {
		t.Errorf("Join(nil, err, nil) = %v, want err itself", got)
	}
	if got := status.Join(errForeign); got != errForeign {
		t.Errorf("Join(foreign) = %v, want it unchanged", got)
	}
}

func TestJoin(t *testing.T) {
	missing := status.New(status.NotFound, "shader missing")
	bad := status.Annotate(status.New(status.Internal, "bad SPIR-V"), "candidate 2")
	errs := []error{nil, errForeign, missing, nil, bad}
	err := status.Join(errs...)
	errs[2] = nil // Join keeps its own list.

	if got := status.CodeOf(err); got != status.NotFound {
		t.Errorf("CodeOf = %v, want NOT_FOUND, the first code found", got)
	}
	const want = "NOT_FOUND: 3 errors: [something foreign] [NOT_FOUND: shader missing] [INTERNAL: candidate 2: bad SPIR-V]"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	u, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Join returned %T, without Unwrap() []error", err)
	}
	if got := u.Unwrap(); !slices.Equal(got, []error{errForeign, missing, bad}) {
		t.Errorf("Unwrap() = %v, want the three errors in order", got)
	}
	for _, target := range []error{errForeign, missing, bad, status.NotFound, status.Internal} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(join, %v) = false", target)
		}
	}
	var st *status.Status
	if !errors.As(err, &st) || st != missing {
		t.Errorf("errors.As(join) = %v, want the first *Status", st)
	}
}

func TestJoinCodes(t *testing.T) {
	tests := []struct {
		name string
		errs []error
		want status.Code
	}{
		{"foreign only", []error{errForeign, errForeign}, status.Unknown},
		{"first of two codes", []error{status.Aborted, status.Internal}, status.Aborted},
		{"OK as an error is skipped", []error{error(status.OK), status.Internal, status.Aborted}, status.Internal},
		{"a join in a join", []error{errForeign, status.Join(errForeign, status.DataLoss)}, status.DataLoss},
	}
	for _, tt := range tests {
		if got := status.CodeOf(status.Join(tt.errs...)); got != tt.want {
			t.Errorf("%s: CodeOf(Join) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
