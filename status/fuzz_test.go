package status_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/status"
)

// FuzzFormat builds a status from a fuzzed code, message and annotations,
// in a fuzzed mode, and checks what must hold whatever they are.
func FuzzFormat(f *testing.F) {
	f.Add(uint32(5), `shader "gemm.spv" missing`, "while building", "while tuning", uint8(2), false)
	f.Add(uint32(0), "", "", "", uint8(2), false)
	f.Add(uint32(13), "multi\nline", "a; b", "caused by: x", uint8(3), true)
	f.Add(uint32(18), "%v %d %!", "%+v", "\x00\xff", uint8(1), true)
	f.Add(uint32(4294967295), "odd code", "", "x", uint8(0), false)
	f.Fuzz(func(t *testing.T, code uint32, msg, note1, note2 string, mode uint8, wrap bool) {
		m := status.Mode(mode % 4)
		defer status.SetMode(status.SetMode(m))
		c := status.Code(code)

		var err error
		if wrap {
			err = status.Wrap(errForeign, c, msg)
		} else {
			err = status.New(c, msg)
		}
		err = status.Annotate(err, note1)
		err = status.Annotatef(err, "%s", note2)

		if c == status.OK {
			if err != nil && !wrap {
				t.Fatalf("New(OK) annotated = %v, want nil", err)
			}
			if wrap && status.CodeOf(err) != status.Unknown {
				t.Fatalf("Wrap(foreign, OK): CodeOf = %v, want UNKNOWN", status.CodeOf(err))
			}
			return
		}
		if got := status.CodeOf(err); got != c {
			t.Fatalf("CodeOf = %v, want %v", got, c)
		}
		if !errors.Is(err, c) {
			t.Fatalf("errors.Is(err, %v) = false", c)
		}
		if got := status.CodeOf(fmt.Errorf("a: %w", fmt.Errorf("b: %w", err))); got != c {
			t.Fatalf("CodeOf(wrapped) = %v, want %v", got, c)
		}
		back, perr := status.ParseCode(c.String())
		if perr != nil || back != c {
			t.Fatalf("ParseCode(%q) = %v, %v", c.String(), back, perr)
		}

		text := err.Error()
		if !strings.HasPrefix(text, c.String()) {
			t.Fatalf("Error() = %q, want it to start with %s", text, c)
		}
		if got := fmt.Sprintf("%v", err); got != text {
			t.Fatalf("%%v = %q, Error() = %q", got, text)
		}
		if got := fmt.Sprintf("%q", err); got != strconv.Quote(text) {
			t.Fatalf("%%q = %s, want %s", got, strconv.Quote(text))
		}
		detail := fmt.Sprintf("%+v", err)
		if !strings.HasPrefix(detail, c.String()) {
			t.Fatalf("%%+v = %q, want it to start with %s", detail, c)
		}
		if m >= status.ModeMessages {
			for _, part := range []string{msg, note1, note2} {
				if !strings.Contains(text, part) {
					t.Fatalf("Error() = %q, lost %q", text, part)
				}
			}
		}

		joined := status.Join(errForeign, err, status.Aborted)
		if got := status.CodeOf(joined); got != c {
			t.Fatalf("CodeOf(Join) = %v, want %v", got, c)
		}
		if !strings.HasPrefix(joined.Error(), c.String()) {
			t.Fatalf("Join's Error() = %q, want it to start with %s", joined.Error(), c)
		}
		_ = fmt.Sprintf("%+v", joined)
	})
}

// FuzzParseCode checks that whatever ParseCode accepts, String gives back.
func FuzzParseCode(f *testing.F) {
	for _, s := range []string{"OK", "NOT_FOUND", "CODE(42)", "CODE(5)", "CODE(042)", "", "CODE(4294967296)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := status.ParseCode(s)
		if err != nil {
			if status.CodeOf(err) != status.InvalidArgument {
				t.Fatalf("ParseCode(%q) error has code %v", s, status.CodeOf(err))
			}
			return
		}
		if c.String() != s {
			t.Fatalf("ParseCode(%q) = %v, whose name differs", s, c)
		}
	})
}
