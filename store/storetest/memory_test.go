package storetest_test

import (
	"testing"

	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/store/storetest"
)

func TestMemory(t *testing.T) {
	storetest.TestBackend(t, func(*testing.T) store.Backend { return storetest.Memory() })
}
