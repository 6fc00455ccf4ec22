package haltest

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// wantCode checks that err has code (status.CodeOf) and, if is is not nil,
// matches is (errors.Is). what names the call.
func wantCode(t testing.TB, what string, err error, code status.Code, is error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: no error, want %v", what, code)
	case status.CodeOf(err) != code:
		t.Errorf("%s: error %q has code %v, want %v", what, err, status.CodeOf(err), code)
	case is != nil && !errors.Is(err, is):
		t.Errorf("%s: error %q does not match %q (errors.Is)", what, err, is)
	}
}

// errOf returns the error of a call that returns a value too.
func errOf[T any](_ T, err error) error { return err }

// unmade returns the error of a call that made x, which it releases if
// the call did not fail.
func unmade[T interface{ Release() error }](x T, err error) error {
	if err == nil {
		_ = x.Release()
	}
	return err
}

func wantLost(t testing.TB, what string, err error) {
	t.Helper()
	wantCode(t, what+" after the device was lost", err, status.DataLoss, hal.ErrDeviceLost)
}

func wantReleased(t testing.TB, what string, err error) {
	t.Helper()
	wantCode(t, what, err, status.FailedPrecondition, hal.ErrReleased)
}

// wantDone checks that f, named by what, has completed without error.
func wantDone(t testing.TB, what string, f hal.Fence) {
	t.Helper()
	if done, err := f.Poll(); !done || err != nil {
		t.Errorf("Poll of %s = %v, %v; want true, nil", what, done, err)
	}
}

// Within runs f and fails t, without waiting any longer, if f has not
// returned after d: for calls that must not block, whose hang would
// otherwise hang the whole test binary. what names the call.
func Within(t testing.TB, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s has not returned after %v: it blocks or hangs", what, d)
	}
}

// diffElems describes how got differs from want, elements farther apart
// than tol: the count of those that differ and the first few, or "" if
// none does.
func diffElems[E uint32 | byte | float32](got, want []E, tol float64) string {
	unit, verb := fmt.Sprintf("values (tolerance %g)", tol), "%v"
	switch any(got).(type) {
	case []byte:
		unit, verb = "bytes", "%#02x"
	case []uint32:
		unit, verb = "words", "%#x"
	}
	if len(got) != len(want) {
		return fmt.Sprintf("got %d %s, want %d", len(got), unit, len(want))
	}
	var b strings.Builder
	n := 0
	for i := range got {
		if math.Abs(float64(got[i])-float64(want[i])) <= tol {
			continue
		}
		if n < 8 {
			fmt.Fprintf(&b, "\n\t[%d] = "+verb+", want "+verb, i, got[i], want[i])
		}
		n++
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d %s differ:%s", n, len(got), unit, b.String())
}

// check fails t if got differs from want by more than tol.
func check[E uint32 | byte | float32](t testing.TB, what string, got, want []E, tol float64) {
	t.Helper()
	if d := diffElems(got, want, tol); d != "" {
		t.Errorf("%s: %s", what, d)
	}
}
