package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
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
	err := be.Update(t.Context(), func(tx store.Tx) error { return tx.Put([]string{"t"}, nil, []byte("v")) })
	if err == nil || !strings.Contains(err.Error(), "writing cache "+path) {
		t.Errorf("Put of an empty key = %v; want the file's write failure, naming it", err)
	}
}

// TestBoltCallerPanic: a panic of a transaction function's own code (a
// write to a nil map, a nil pointer's dereference: a fault below any
// mapping, not the file's) in an update or a read is the caller's: it
// propagates, the transaction rolled back, and the file is left where it
// is with its value, not moved aside as damaged. The panic raised again
// names the function that panicked (its stack, not the store's) and is
// still the runtime.Error it was to errors.As.
func TestBoltCallerPanic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	be := store.FileBackend(path, t.Errorf)
	table, key := []string{"t"}, []byte("k")
	if err := be.Update(t.Context(), func(tx store.Tx) error { return tx.Put(table, key, []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	for name, bug := range map[string]func(){"store_test.writeNilMap": writeNilMap, "store_test.setThroughNil": setThroughNil} {
		for _, call := range []func(context.Context, func(store.Tx) error) error{be.Update, be.View} {
			func() {
				defer func() {
					r := recover()
					if err, _ := r.(error); !strings.Contains(fmt.Sprint(r), "nil") || !strings.Contains(fmt.Sprint(r), name+"(") || !errors.As(err, new(runtime.Error)) {
						t.Errorf("recovered %v; want the function's own runtime.Error, naming %s", r, name)
					}
				}()
				err := call(t.Context(), func(tx store.Tx) error {
					_ = tx.Put(table, key, []byte("lost"))
					bug()
					return nil
				})
				t.Errorf("returned %v; want a panic", err)
			}()
		}
	}
	if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) != 0 {
		t.Errorf("moved aside: %v", aside)
	}
	err := be.View(t.Context(), func(tx store.Tx) error {
		if v := tx.Get(table, key); string(v) != "v" {
			t.Errorf("value after the panics = %q; want %q", v, "v")
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// writeNilMap and setThroughNil are bugs of a transaction function's own.
func writeNilMap() { neverMade["x"] = 1 }

var neverMade map[string]int

func setThroughNil() {
	var p *struct{ n int }
	p.n = 1
}
