package status_test

import (
	"fmt"
	"testing"

	"github.com/vkbench/vkbench/status"
)

// Sinks keep the compiler from dropping the work being measured.
var (
	sinkErr    error
	sinkCode   status.Code
	sinkString string
	sinkBool   bool
)

// okErr and okCode return what a call that succeeded returns, out of the
// compiler's sight, so that no OK check is folded away where an entry
// point is inlined.
//
//go:noinline
func okErr() error { return nil }

//go:noinline
func okCode() status.Code { return status.OK }

// okPaths call every public entry point of the package that takes an
// error or a code the way a caller does when nothing failed: with nil, or
// with the code OK. Each must cost nothing in every mode: messages are
// formatted, locations and stacks captured, only for failures.
var okPaths = []struct {
	name string
	f    func()
}{
	{"New(OK)", func() { sinkErr = status.New(okCode(), "shader missing") }},
	{"Newf(OK)", func() { sinkErr = status.Newf(okCode(), "shader %s missing", "x") }},
	{"Wrap(nil)", func() { sinkErr = status.Wrap(okErr(), status.Internal, "compile failed") }},
	{"Wrap(OK)", func() { sinkErr = status.Wrap(okCode(), status.Internal, "compile failed") }},
	{"Wrapf(nil)", func() { sinkErr = status.Wrapf(okErr(), status.Internal, "compile %s failed", "x") }},
	{"Annotate(nil)", func() { sinkErr = status.Annotate(okErr(), "while building") }},
	{"Annotate(OK)", func() { sinkErr = status.Annotate(okCode(), "while building") }},
	{"Annotatef(nil)", func() { sinkErr = status.Annotatef(okErr(), "while building %s", "gemm") }},
	{"Annotatef(OK)", func() { sinkErr = status.Annotatef(okCode(), "while building %s", "gemm") }},
	{"WithPayload(nil)", func() { sinkErr = status.WithPayload(okErr(), okPayload) }},
	{"Payload(nil)", func() { _, sinkBool = status.Payload[vkFailure](okErr()) }},
	{"Join()", func() { sinkErr = status.Join() }},
	{"Join(nil, nil)", func() { sinkErr = status.Join(okErr(), okErr()) }},
	{"Join(nil, OK)", func() { sinkErr = status.Join(okErr(), okCode()) }},
	{"CodeOf(nil)", func() { sinkCode = status.CodeOf(okErr()) }},
	{"Message(nil)", func() { sinkString = status.Message(okErr()) }},
	{"ParseCode(OK)", func() { sinkCode, sinkErr = status.ParseCode("OK") }},
	{"OK.String", func() { sinkString = okCode().String() }},
	{"OK.Error", func() { sinkString = okCode().Error() }},
	{"(*Status)(nil).Code", func() { sinkCode = nilStatus.Code() }},
	{"(*Status)(nil).Message", func() { sinkString = nilStatus.Message() }},
	{"CurrentMode", func() { sinkCode = status.Code(status.CurrentMode()) }},
}

// okPayload is a payload that costs nothing to pass.
var okPayload any = vkFailure{Result: -4, Call: "vkQueueSubmit"}

// nilStatus is a nil *Status, as a function that returns one for OK has.
var nilStatus *status.Status

// BenchmarkOK measures the OK path of every entry point (okPaths).
func BenchmarkOK(b *testing.B) {
	for _, p := range okPaths {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				p.f()
			}
		})
	}
}

// eachMode runs bench once per keep level.
func eachMode(b *testing.B, bench func(b *testing.B)) {
	for _, m := range []status.Mode{status.ModeCode, status.ModeLocation, status.ModeMessages, status.ModeStack} {
		b.Run(m.String(), func(b *testing.B) {
			defer status.SetMode(status.SetMode(m))
			bench(b)
		})
	}
}

func BenchmarkNew(b *testing.B) {
	eachMode(b, func(b *testing.B) {
		for b.Loop() {
			sinkErr = status.New(status.NotFound, "shader missing")
		}
	})
}

func BenchmarkNewf(b *testing.B) {
	eachMode(b, func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			sinkErr = status.Newf(status.NotFound, "shader %d missing", i)
		}
	})
}

func BenchmarkAnnotate(b *testing.B) {
	eachMode(b, func(b *testing.B) {
		base := status.New(status.NotFound, "shader missing")
		for b.Loop() {
			sinkErr = status.Annotate(base, "while building pipeline")
		}
	})
}

func BenchmarkCodeOfWrappedTwice(b *testing.B) {
	err := fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", status.New(status.DeadlineExceeded, "fence timed out")))
	for b.Loop() {
		sinkCode = status.CodeOf(err)
	}
}

func BenchmarkCodeOf(b *testing.B) {
	cases := []struct {
		name string
		err  error
	}{
		{"nil", nil},
		{"code", status.Aborted},
		{"status", status.New(status.Aborted, "x")},
		{"context", fmt.Errorf("waiting: %w", errContextCanceled)},
		{"foreign", errForeign},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sinkCode = status.CodeOf(c.err)
			}
		})
	}
}

func BenchmarkFormat(b *testing.B) {
	err := status.Annotate(status.Annotatef(status.Wrap(status.New(status.NotFound, "shader missing"),
		status.Internal, "compile failed"), "while building pipeline %q", "gemm"), "while tuning")
	b.Run("v", func(b *testing.B) {
		for b.Loop() {
			sinkString = err.Error()
		}
	})
	b.Run("+v", func(b *testing.B) {
		for b.Loop() {
			sinkString = fmt.Sprintf("%+v", err)
		}
	})
}
