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
