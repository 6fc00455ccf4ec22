package status_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/vkbench/vkbench/status"
)

func TestOKIsNil(t *testing.T) {
	okAsError := error(status.OK)
	for name, err := range map[string]error{
		"New(OK)":                   status.New(status.OK, "fine"),
		"Newf(OK)":                  status.Newf(status.OK, "fine %d", 1),
		"Wrap(nil)":                 status.Wrap(nil, status.Internal, "x"),
		"Wrapf(nil)":                status.Wrapf(nil, status.Internal, "x %d", 1),
		"Wrap(OK)":                  status.Wrap(okAsError, status.Internal, "x"),
		"Annotate(nil)":             status.Annotate(nil, "x"),
		"Annotatef(nil)":            status.Annotatef(nil, "x %d", 1),
		"Annotate(OK)":              status.Annotate(okAsError, "x"),
		"WithPayload(nil)":          status.WithPayload(nil, 1),
		"Join()":                    status.Join(),
		"Join(nil, nil)":            status.Join(nil, nil),
		"Join(nil, OK as an error)": status.Join(nil, okAsError),
	} {
		if err != nil {
			t.Errorf("%s = %v, want nil", name, err)
		}
	}
}

func TestNew(t *testing.T) {
	err := status.New(status.NotFound, "shader missing")
	if got, want := err.Error(), "NOT_FOUND: shader missing"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var st *status.Status
	if !errors.As(err, &st) {
		t.Fatalf("errors.As(%v, *Status) = false", err)
	}
	if st.Code() != status.NotFound || st.Message() != "shader missing" || st.Unwrap() != nil {
		t.Errorf("status = {%v, %q, %v}, want {NOT_FOUND, \"shader missing\", <nil>}", st.Code(), st.Message(), st.Unwrap())
	}
	if got := status.Newf(status.OutOfRange, "index %d of %d", 7, 3).Error(); got != "OUT_OF_RANGE: index 7 of 3" {
		t.Errorf("Newf: Error() = %q", got)
	}
	if got := status.New(status.Internal, "").Error(); got != "INTERNAL" {
		t.Errorf("New(Internal, \"\").Error() = %q, want INTERNAL", got)
	}
	if got := status.New(77, "odd").Error(); got != "CODE(77): odd" {
		t.Errorf("New(77, odd).Error() = %q, want CODE(77): odd", got)
	}
}

func TestWrap(t *testing.T) {
	cause := status.New(status.NotFound, "shader missing")
	err := status.Wrap(cause, status.Internal, "compile failed")
	if got, want := err.Error(), "INTERNAL: compile failed: NOT_FOUND: shader missing"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if status.CodeOf(err) != status.Internal {
		t.Errorf("CodeOf = %v, want INTERNAL", status.CodeOf(err))
	}
	if errors.Unwrap(err) != cause {
		t.Errorf("Unwrap = %v, want the cause", errors.Unwrap(err))
	}
	// errors.Is looks through the whole chain, CodeOf only at the top.
	for _, target := range []error{status.Internal, status.NotFound, cause} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(err, %v) = false, want true", target)
		}
	}
	if errors.Is(err, status.Aborted) {
		t.Error("errors.Is(err, ABORTED) = true, want false")
	}

	keep := status.Wrapf(cause, status.OK, "in %s", "gemm")
	if status.CodeOf(keep) != status.NotFound {
		t.Errorf("Wrapf with OK: CodeOf = %v, want the cause's NOT_FOUND", status.CodeOf(keep))
	}
	foreign := status.Wrap(errForeign, status.OK, "x")
	if status.CodeOf(foreign) != status.Unknown {
		t.Errorf("Wrap(foreign, OK): CodeOf = %v, want UNKNOWN", status.CodeOf(foreign))
	}
}

func TestAnnotateOrder(t *testing.T) {
	err := status.New(status.NotFound, "shader missing")
	err = status.Annotate(err, "first")
	err = status.Annotatef(err, "second %d", 2)
	err = status.Annotate(err, "third")
	if got, want := err.Error(), "NOT_FOUND: third: second 2: first: shader missing"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := status.Message(err); got != "shader missing" {
		t.Errorf("Message = %q, want the message without annotations", got)
	}
}

func TestAnnotateLeavesTheOriginal(t *testing.T) {
	base := status.New(status.DataLoss, "device lost")
	a := status.Annotate(base, "while waiting")
	b := status.Annotate(base, "while submitting")
	if got := base.Error(); got != "DATA_LOSS: device lost" {
		t.Errorf("base changed: %q", got)
	}
	if got := a.Error(); got != "DATA_LOSS: while waiting: device lost" {
		t.Errorf("a = %q", got)
	}
	if got := b.Error(); got != "DATA_LOSS: while submitting: device lost" {
		t.Errorf("b = %q", got)
	}
	// Identity survives annotation, so a status kept in a variable works
	// as a sentinel.
	if !errors.Is(a, base) || !errors.Is(status.Annotate(a, "again"), base) {
		t.Error("errors.Is(annotated, base) = false, want true")
	}
	if errors.Is(base, a) || errors.Is(a, b) {
		t.Error("errors.Is matched a status against one annotated from it or a sibling")
	}
	if status.Annotate(base, "") != base {
		t.Error("Annotate with an empty message made a new status")
	}
}

func TestAnnotateConcurrently(t *testing.T) {
	base := status.New(status.DataLoss, "device lost")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				err := status.Annotatef(base, "goroutine %d, try %d", i, j)
				if want := fmt.Sprintf("DATA_LOSS: goroutine %d, try %d: device lost", i, j); err.Error() != want {
					t.Errorf("got %q, want %q", err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestAnnotateOther(t *testing.T) {
	err := status.Annotate(status.Aborted, "while waiting")
	var st *status.Status
	if !errors.As(err, &st) {
		t.Fatalf("Annotate(code) = %T, want a *Status", err)
	}
	if st.Code() != status.Aborted || st.Message() != "while waiting" || st.Unwrap() != nil {
		t.Errorf("Annotate(code) = {%v, %q, %v}, want {ABORTED, \"while waiting\", <nil>}", st.Code(), st.Message(), st.Unwrap())
	}

	err = status.Annotate(errForeign, "while loading")
	if got, want := err.Error(), "UNKNOWN: while loading: something foreign"; got != want {
		t.Errorf("Annotate(foreign) = %q, want %q", got, want)
	}
	if !errors.Is(err, errForeign) {
		t.Error("errors.Is(annotated, foreign) = false, want true")
	}

	err = status.Annotate(fmt.Errorf("waiting: %w", context.DeadlineExceeded), "on fence 3")
	if status.CodeOf(err) != status.DeadlineExceeded || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Annotate(deadline): CodeOf = %v, errors.Is(context.DeadlineExceeded) = %v", status.CodeOf(err), errors.Is(err, context.DeadlineExceeded))
	}
}

func TestIs(t *testing.T) {
	tests := []struct {
		err    error
		target error
		want   bool
	}{
		{status.New(status.DeadlineExceeded, "x"), status.DeadlineExceeded, true},
		{status.New(status.DeadlineExceeded, "x"), context.DeadlineExceeded, true},
		{status.New(status.DeadlineExceeded, "x"), context.Canceled, false},
		{status.New(status.Cancelled, "x"), context.Canceled, true},
		{status.New(status.Cancelled, "x"), status.Cancelled, true},
		{status.New(status.Internal, "x"), context.Canceled, false},
		{status.New(status.Internal, "x"), status.Unknown, false},
		{status.Cancelled, context.Canceled, true},
		{status.DeadlineExceeded, context.DeadlineExceeded, true},
		{status.Aborted, context.Canceled, false},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", status.New(status.DeadlineExceeded, "x"))), status.DeadlineExceeded, true},
		{fmt.Errorf("a: %w", status.Annotate(status.Cancelled, "x")), context.Canceled, true},
		{errors.Join(errForeign, status.New(status.NotFound, "x")), status.NotFound, true},
		{status.Annotate(status.New(status.NotFound, "x"), "y"), status.NotFound, true},
	}
	for _, tt := range tests {
		if got := errors.Is(tt.err, tt.target); got != tt.want {
			t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, tt.target, got, tt.want)
		}
	}
}

func TestAs(t *testing.T) {
	inner := status.New(status.NotFound, "shader missing")
	err := fmt.Errorf("a: %w", fmt.Errorf("b: %w", status.Annotate(inner, "while building")))
	var st *status.Status
	if !errors.As(err, &st) {
		t.Fatal("errors.As found no *Status")
	}
	if st.Code() != status.NotFound || st.Error() != "NOT_FOUND: while building: shader missing" {
		t.Errorf("errors.As found %v", st)
	}
	if st2, ok := errors.AsType[*status.Status](errForeign); ok || st2.Code() != status.OK {
		t.Errorf("AsType(foreign) = %v, %v; want a nil *Status, false", st2, ok)
	}
}
