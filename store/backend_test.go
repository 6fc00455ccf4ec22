package store_test

import (
	"path/filepath"
	"strings"
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

// TestBoltWriteFailure: a write the file refuses is the file's failure,
// named by its path, even when fn returns that error as its own.
func TestBoltWriteFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	be := store.FileBackend(path, t.Logf)
	err := be.Update(func(tx store.Tx) error { return tx.Put([]string{"t"}, nil, []byte("v")) })
	if err == nil || !strings.Contains(err.Error(), "writing cache "+path) {
		t.Errorf("Put of an empty key = %v; want the file's write failure, naming it", err)
	}
}
