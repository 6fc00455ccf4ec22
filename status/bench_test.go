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
)

//go:noinline
func succeed(i int) error {
	if i < 0 {
		return status.Internal
	}
	return nil
}

//go:noinline
func failWithCode(i int) error {
	if i < 0 {
		return nil
	}
	return status.Aborted
}

//go:noinline
func failWithComputedCode(c status.Code) error {
	// Not a constant: the conversion to error happens at run time.
	return c
}

func BenchmarkReturnNil(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		sinkErr = succeed(i)
	}
}

func BenchmarkReturnCode(b *testing.B) {
	b.Run("constant", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			sinkErr = failWithCode(i)
		}
	})
	b.Run("computed", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			sinkErr = failWithComputedCode(status.Code(i % 19))
		}
	})
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

func BenchmarkAnnotateNil(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		sinkErr = status.Annotate(succeed(i), "while building pipeline")
	}
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
