package store_test

import (
	"strings"
	"testing"

	"github.com/vkbench/vkbench/store"
)

// TestUnknownSchemeHintsImport: in a program without store/redis (this
// test's), an unknown scheme says that none is registered and which
// import adds redis://.
func TestUnknownSchemeHintsImport(t *testing.T) {
	_, err := store.Open(store.Options{Path: "off", Shared: "redis://localhost:6379/0"})
	if err == nil || !strings.Contains(err.Error(), "registered: none; forgotten import of github.com/vkbench/vkbench/store/redis?") {
		t.Errorf("Open of a redis:// store without store/redis: %v; want the import named", err)
	}
}
