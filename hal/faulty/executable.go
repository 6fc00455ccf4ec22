package faulty

import "github.com/vkbench/vkbench/hal"

var _ hal.Executable = (*executable)(nil)

// executable wraps a hal.Executable.
type executable struct {
	dev   *device
	inner hal.Executable
}

// unwrapExecutable returns the inner executable of e if e is a wrapper,
// else e.
func unwrapExecutable(e hal.Executable) hal.Executable {
	if w, ok := e.(*executable); ok {
		return w.inner
	}
	return e
}

func (e *executable) Label() string { return e.inner.Label() }

func (e *executable) Release() error {
	e.dev.plan.decide(Release, true)
	e.dev.drain()
	return e.inner.Release()
}
