package store_test

import (
	"path/filepath"
	"testing"

	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/store/storetest"
)

func TestBoltBackend(t *testing.T) {
	storetest.TestBackend(t, func(t *testing.T) store.Backend {
		return store.FileBackend(filepath.Join(t.TempDir(), "cache.db"), t.Logf)
	})
}

// TestBoltLocks: the lock in a cache file of a process of this host that
// was killed is taken over at once, by one of the processes that ask.
func TestBoltLocks(t *testing.T) {
	storetest.TestLocks(t, func(t *testing.T) string { return filepath.Join(t.TempDir(), "cache.db") })
}
