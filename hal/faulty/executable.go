package faulty

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

type executable struct{ wrapped[hal.Executable] }

func (e *executable) Label() string { return e.inner.Label() }

var _ hal.CompilerReporter = (*executable)(nil)

// CompilerStats passes the wrapped executable's statistics through (no
// fault is injected into it); a lost device answers with its loss, an
// executable without statistics with Unimplemented.
func (e *executable) CompilerStats() ([]hal.CompilerStat, error) {
	if err := e.dev.Err(); err != nil {
		return nil, err
	}
	r, ok := e.inner.(hal.CompilerReporter)
	if !ok {
		return nil, status.Newf(status.Unimplemented, "faulty: executable %q does not report compiler statistics", e.inner.Label())
	}
	return r.CompilerStats()
}
