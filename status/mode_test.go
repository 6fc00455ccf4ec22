package status_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/status"
)

func TestDefaultMode(t *testing.T) {
	// Every test that changes the mode puts it back.
	if got := status.CurrentMode(); got != status.ModeMessages {
		t.Errorf("CurrentMode() = %v, want messages", got)
	}
}

func TestSetMode(t *testing.T) {
	old := status.SetMode(status.ModeStack)
	defer status.SetMode(old)
	if got := status.CurrentMode(); got != status.ModeStack {
		t.Errorf("CurrentMode() = %v after SetMode(stack)", got)
	}
	if got := status.SetMode(status.ModeCode); got != status.ModeStack {
		t.Errorf("SetMode returned %v, want the mode it replaced, stack", got)
	}
	for _, bad := range []status.Mode{-1, status.ModeStack + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetMode(%v) did not panic", bad)
				}
			}()
			status.SetMode(bad)
		}()
	}
	if got := status.CurrentMode(); got != status.ModeCode {
		t.Errorf("a refused SetMode changed the mode to %v", got)
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[status.Mode]string{
		status.ModeCode: "code", status.ModeLocation: "location", status.ModeMessages: "messages",
		status.ModeStack: "stack", 9: "Mode(9)",
	} {
		if got := m.String(); got != want {
			t.Errorf("Mode(%d).String() = %q, want %q", int(m), got, want)
		}
	}
}

// kept describes what one status kept.
type kept struct {
	Bare     bool // a bare Code, not a *Status
	Text     string
	Location bool
	Stack    bool
	Payload  bool
}

func keptOf(err error) kept {
	detail := fmt.Sprintf("%+v", err)
	_, isCode := err.(status.Code)
	_, hasPayload := status.Payload[vkFailure](err)
	return kept{
		Bare:     isCode,
		Text:     err.Error(),
		Location: strings.Contains(detail, "at status/"),
		Stack:    strings.Contains(detail, "stack:"),
		Payload:  hasPayload,
	}
}

func TestModes(t *testing.T) {
	makers := []struct {
		name string
		make func() error
	}{
		{"New", func() error { return status.New(status.NotFound, "shader missing") }},
		{"Newf", func() error { return status.Newf(status.NotFound, "shader %s missing", "x") }},
		{"Wrap", func() error { return status.Wrap(errForeign, status.Internal, "compile failed") }},
		{"Wrapf", func() error { return status.Wrapf(errForeign, status.Internal, "compile %s failed", "x") }},
		{"Annotate a code", func() error { return status.Annotate(status.Aborted, "while waiting") }},
		{"Annotatef a foreign error", func() error { return status.Annotatef(errForeign, "while %s", "loading") }},
		{"WithPayload", func() error { return status.WithPayload(status.Aborted, vkFailure{Call: "vkQueueSubmit"}) }},
		{"Join", func() error { return status.Join(status.Aborted, errForeign) }},
	}
	want := map[status.Mode][]kept{
		status.ModeCode: {
			{Bare: true, Text: "NOT_FOUND"},
			{Bare: true, Text: "NOT_FOUND"},
			{Bare: true, Text: "INTERNAL"},
			{Bare: true, Text: "INTERNAL"},
			{Bare: true, Text: "ABORTED"},
			{Text: "something foreign"}, // returned as it was
			{Bare: true, Text: "ABORTED"},
			{Bare: true, Text: "ABORTED"},
		},
		status.ModeLocation: {
			{Text: "NOT_FOUND", Location: true},
			{Text: "NOT_FOUND", Location: true},
			{Text: "INTERNAL: something foreign", Location: true},
			{Text: "INTERNAL: something foreign", Location: true},
			{Text: "ABORTED", Location: true},
			{Text: "UNKNOWN: something foreign", Location: true},
			{Text: "ABORTED", Location: true, Payload: true},
			{Text: "ABORTED: 2 errors: [ABORTED] [something foreign]"},
		},
		status.ModeMessages: {
			{Text: "NOT_FOUND: shader missing", Location: true},
			{Text: "NOT_FOUND: shader x missing", Location: true},
			{Text: "INTERNAL: compile failed: something foreign", Location: true},
			{Text: "INTERNAL: compile x failed: something foreign", Location: true},
			{Text: "ABORTED: while waiting", Location: true},
			{Text: "UNKNOWN: while loading: something foreign", Location: true},
			{Text: "ABORTED", Location: true, Payload: true},
			{Text: "ABORTED: 2 errors: [ABORTED] [something foreign]"},
		},
		status.ModeStack: {
			{Text: "NOT_FOUND: shader missing", Location: true, Stack: true},
			{Text: "NOT_FOUND: shader x missing", Location: true, Stack: true},
			{Text: "INTERNAL: compile failed: something foreign", Location: true, Stack: true},
			{Text: "INTERNAL: compile x failed: something foreign", Location: true, Stack: true},
			{Text: "ABORTED: while waiting", Location: true, Stack: true},
			{Text: "UNKNOWN: while loading: something foreign", Location: true, Stack: true},
			{Text: "ABORTED", Location: true, Stack: true, Payload: true},
			{Text: "ABORTED: 2 errors: [ABORTED] [something foreign]"},
		},
	}
	for m, wants := range want {
		t.Run(m.String(), func(t *testing.T) {
			defer status.SetMode(status.SetMode(m))
			for i, mk := range makers {
				err := mk.make()
				if diff := cmp.Diff(wants[i], keptOf(err)); diff != "" {
					t.Errorf("%s kept other parts (-want +got):\n%s", mk.name, diff)
				}
			}
		})
	}
}

func TestModeAnnotateStatus(t *testing.T) {
	base := status.New(status.NotFound, "shader missing") // made in the default mode
	for _, tt := range []struct {
		mode status.Mode
		want string
	}{
		{status.ModeCode, "NOT_FOUND: shader missing"},
		{status.ModeLocation, "NOT_FOUND: shader missing"},
		{status.ModeMessages, "NOT_FOUND: while building: shader missing"},
		{status.ModeStack, "NOT_FOUND: while building: shader missing"},
	} {
		func() {
			defer status.SetMode(status.SetMode(tt.mode))
			err := status.Annotate(base, "while building")
			if got := err.Error(); got != tt.want {
				t.Errorf("%v: Annotate = %q, want %q", tt.mode, got, tt.want)
			}
			if tt.mode < status.ModeMessages && err != base {
				t.Errorf("%v: Annotate made a new status", tt.mode)
			}
			if !errors.Is(err, base) {
				t.Errorf("%v: errors.Is(annotated, base) = false", tt.mode)
			}
		}()
	}
}

func TestModeChangesWhileInUse(t *testing.T) {
	defer status.SetMode(status.CurrentMode())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				err := status.Annotate(status.New(status.Aborted, "x"), "y")
				if status.CodeOf(err) != status.Aborted {
					t.Errorf("CodeOf = %v, want ABORTED", status.CodeOf(err))
					return
				}
				_ = fmt.Sprintf("%+v", err)
			}
		})
	}
	for i := range 200 {
		status.SetMode(status.Mode(i % 4))
	}
	wg.Wait()
}

// TestAllocations checks what each path costs in allocations: the OK path
// of every public entry point nothing, in every mode (okPaths); a failure
// in ModeCode nothing (the result is a bare code); a failure with a
// message one.
func TestAllocations(t *testing.T) {
	modes := []status.Mode{status.ModeCode, status.ModeLocation, status.ModeMessages, status.ModeStack}
	for _, m := range modes {
		for _, p := range okPaths {
			func() {
				defer status.SetMode(status.SetMode(m))
				if n := testing.AllocsPerRun(100, p.f); n != 0 {
					t.Errorf("%s in %v: %v allocations, want none", p.name, m, n)
				}
			}()
		}
	}
	base := status.New(status.NotFound, "shader missing")
	tests := []struct {
		name string
		mode status.Mode
		max  float64
		f    func()
	}{
		{"New in ModeCode", status.ModeCode, 0, func() { sinkErr = status.New(status.NotFound, "x") }},
		{"Newf in ModeCode", status.ModeCode, 0, func() { sinkErr = status.Newf(status.NotFound, "shader %s missing", "x") }},
		{"Wrap in ModeCode", status.ModeCode, 0, func() { sinkErr = status.Wrap(errForeign, status.Internal, "x") }},
		{"Annotatef in ModeCode", status.ModeCode, 0, func() { sinkErr = status.Annotatef(status.Aborted, "while %s", "waiting") }},
		{"Join in ModeCode", status.ModeCode, 0, func() { sinkErr = status.Join(status.Aborted, errForeign) }},
		{"New", status.ModeMessages, 1, func() { sinkErr = status.New(status.NotFound, "x") }},
		{"Annotate a status", status.ModeMessages, 1, func() { sinkErr = status.Annotate(base, "x") }},
		{"Annotate a status in ModeStack", status.ModeStack, 1, func() { sinkErr = status.Annotate(base, "x") }},
	}
	for _, tt := range tests {
		func() {
			defer status.SetMode(status.SetMode(tt.mode))
			if n := testing.AllocsPerRun(100, tt.f); n > tt.max {
				t.Errorf("%s: %v allocations, want at most %v", tt.name, n, tt.max)
			}
		}()
	}
}
