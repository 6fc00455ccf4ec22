package storetest

import (
	"errors"
	"sync"
	"testing"

	"github.com/vkbench/vkbench/store"
)

// HoldLock makes another handle hold the lock of the cache file at path
// (made where missing) in a transaction, as another process's commit
// would, until release or tb's end: a call of the code under test that
// reads or writes the file waits for its lock timeout meanwhile.
func HoldLock(tb testing.TB, path string) (release func()) {
	tb.Helper()
	other, err := store.Open(store.Options{Path: path})
	if err != nil {
		tb.Fatal(err)
	}
	held, let := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- other.UpdatePeak(tb.Context(), "x", func([]byte) ([]byte, error) { close(held); <-let; return nil, nil })
	}()
	<-held
	release = sync.OnceFunc(func() {
		close(let)
		if err := errors.Join(<-done, other.Close()); err != nil {
			tb.Error(err)
		}
	})
	tb.Cleanup(release)
	return release
}
