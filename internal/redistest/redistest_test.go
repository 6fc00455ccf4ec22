package redistest

import (
	"errors"
	"testing"
)

// TestPortTaken starts a second server on the port of a first: it must
// say the port is taken, not take the first's answers for its own.
func TestPortTaken(t *testing.T) {
	first := Start(t)
	second := &Server{tb: t, dir: t.TempDir(), port: first.port}
	err := second.start()
	if !errors.Is(err, errPortTaken) {
		second.Stop()
		t.Fatalf("start on %s's port: %v, want %v", first.Addr(), err, errPortTaken)
	}
	if len(first.Clients()) != 0 {
		t.Errorf("the first server has clients after the second's start: %q", first.Clients())
	}
}
