// Package storetest is the conformance suite of store's backends: what a
// store.Store relies on of a place to keep its bytes, checked on a real
// one (the bbolt file, a Redis server), as hal/haltest checks devices.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/store"
)

// TestBackend checks what a store.Store relies on of a Backend, on fresh
// ones that open gives: one t.Run per property. Every backend runs it
// from a test of its own, the bbolt file's and Redis's alike; the
// properties of locks are skipped for a backend that is no store.Locker.
// TestLocks checks what Store.TryLock does with a Locker's locks across
// processes.
func TestBackend(t *testing.T, open func(t *testing.T) store.Backend) {
	t.Run("empty", func(t *testing.T) { testEmpty(t, open(t)) })
	t.Run("put-get-delete", func(t *testing.T) { testPutGetDelete(t, open(t)) })
	t.Run("scan-prefix-in-order", func(t *testing.T) { testScanPrefixInOrder(t, open(t)) })
	t.Run("tables", func(t *testing.T) { testTables(t, open(t)) })
	t.Run("drop", func(t *testing.T) { testDrop(t, open(t)) })
	t.Run("failed-update-writes-nothing", func(t *testing.T) { testFailedUpdateWritesNothing(t, open(t)) })
	t.Run("view-cannot-write", func(t *testing.T) { testViewCannotWrite(t, open(t)) })
	t.Run("ended-context-does-nothing", func(t *testing.T) { testEndedContext(t, open(t)) })
	t.Run("lock-replace", func(t *testing.T) { testReplace(t, open(t)) })
	t.Run("lock-expiry", func(t *testing.T) { testExpiry(t, open(t)) })
}

// Two tables of the same parent.
var a, b = []string{"top", "a"}, []string{"top", "b"}

func put(t *testing.T, be store.Backend, table []string, kv ...string) {
	t.Helper()
	must(t, be.Update(t.Context(), func(tx store.Tx) error {
		for i := 0; i < len(kv); i += 2 {
			if err := tx.Put(table, []byte(kv[i]), []byte(kv[i+1])); err != nil {
				return err
			}
		}
		return nil
	}))
}

func scan(t *testing.T, be store.Backend, table []string, prefix string) []string {
	t.Helper()
	var out []string
	must(t, be.View(t.Context(), func(tx store.Tx) error {
		return tx.Scan(table, []byte(prefix), func(k, v []byte) error {
			out = append(out, string(k)+"="+string(v))
			return nil
		})
	}))
	return out
}

func tables(t *testing.T, be store.Backend, above []string, depth int) []string {
	t.Helper()
	var out []string
	must(t, be.View(t.Context(), func(tx store.Tx) error {
		return tx.Tables(above, depth, func(names []string) error {
			out = append(out, filepath.Join(names...))
			return nil
		})
	}))
	return out
}

// must fails t at once if err is not nil.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantRows fails t if got is not want.
func wantRows(t *testing.T, what string, want, got []string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func testEmpty(t *testing.T, be store.Backend) {
	must(t, be.View(t.Context(), func(tx store.Tx) error {
		if v := tx.Get(a, []byte("k")); v != nil {
			t.Errorf("Get in a missing table = %q", v)
		}
		return nil
	}))
	if got := scan(t, be, a, ""); len(got) != 0 {
		t.Errorf("Scan of a missing table = %q", got)
	}
	if got := tables(t, be, nil, 1); len(got) != 0 {
		t.Errorf("Tables of an empty backend = %q", got)
	}
}

func testPutGetDelete(t *testing.T, be store.Backend) {
	put(t, be, a, "k1", "v1", "k2", "v2")
	put(t, be, b, "k1", "other")
	must(t, be.Update(t.Context(), func(tx store.Tx) error {
		if got := string(tx.Get(a, []byte("k1"))); got != "v1" {
			t.Errorf("Get = %q, want v1", got)
		}
		return errors.Join(tx.Delete(a, []byte("k1")), tx.Delete(a, []byte("missing")), tx.Delete([]string{"none"}, []byte("k")))
	}))
	wantRows(t, "after Delete", []string{"k2=v2"}, scan(t, be, a, ""))
	wantRows(t, "another table", []string{"k1=other"}, scan(t, be, b, ""))
}

func testScanPrefixInOrder(t *testing.T, be store.Backend) {
	put(t, be, a, "x@2", "2", "x@1", "1", "xy@1", "no", "w", "no", "x@3", "3")
	wantRows(t, "Scan(x@)", []string{"x@1=1", "x@2=2", "x@3=3"}, scan(t, be, a, "x@"))
	// A table below is no key of the one above it.
	put(t, be, append(slices.Clone(a), "sub"), "k", "v")
	if got := scan(t, be, a, ""); len(got) != 5 {
		t.Errorf("Scan saw %d keys, want 5: %q", len(got), got)
	}
}

func testTables(t *testing.T, be store.Backend) {
	put(t, be, []string{"top", "h1", "t1"}, "k", "v")
	put(t, be, []string{"top", "h1", "t2"}, "k", "v")
	put(t, be, []string{"top", "h2", "t1"}, "k", "v")
	put(t, be, []string{"other"}, "k", "v")
	wantRows(t, "Tables(top, 2)", []string{"h1/t1", "h1/t2", "h2/t1"}, tables(t, be, []string{"top"}, 2))
	wantRows(t, "Tables(root, 1)", []string{"other", "top"}, tables(t, be, nil, 1))
	if got := tables(t, be, []string{"missing"}, 1); len(got) != 0 {
		t.Errorf("Tables under a missing table = %q", got)
	}
}

func testDrop(t *testing.T, be store.Backend) {
	put(t, be, []string{"top", "h1", "t1"}, "k", "v")
	put(t, be, []string{"top", "h2", "t1"}, "k", "v")
	var found, again bool
	err := be.Update(t.Context(), func(tx store.Tx) (err error) {
		if found, err = tx.Drop([]string{"top", "h1"}); err != nil {
			return err
		}
		again, err = tx.Drop([]string{"top", "h1"})
		return err
	})
	if err != nil || !found || again {
		t.Errorf("Drop = %v, then %v, %v; want true, then false", found, again, err)
	}
	wantRows(t, "after Drop", []string{"h2/t1"}, tables(t, be, []string{"top"}, 2))
}

func testFailedUpdateWritesNothing(t *testing.T, be store.Backend) {
	put(t, be, a, "k", "v")
	stop := errors.New("stop")
	err := be.Update(t.Context(), func(tx store.Tx) error {
		if err := tx.Put(a, []byte("k"), []byte("changed")); err != nil {
			return err
		}
		if err := tx.Put(b, []byte("k"), []byte("new")); err != nil {
			return err
		}
		return stop
	})
	if err != stop {
		t.Errorf("Update = %v, want fn's error as it is", err)
	}
	wantRows(t, "after a failed Update", []string{"k=v"}, scan(t, be, a, ""))
	if got := tables(t, be, []string{"top"}, 1); !slices.Equal(got, []string{"a"}) {
		t.Errorf("a failed Update left tables %q", got)
	}
}

func testViewCannotWrite(t *testing.T, be store.Backend) {
	put(t, be, a, "k", "v")
	_ = be.View(t.Context(), func(tx store.Tx) error {
		if err := tx.Put(a, []byte("k"), []byte("changed")); err == nil {
			t.Error("Put in a View succeeded")
		}
		return nil
	})
	wantRows(t, "after a Put in a View", []string{"k=v"}, scan(t, be, a, ""))
}

// testEndedContext: a call whose context has ended does nothing and
// returns the context's error, however ready the backend is to go ahead:
// each call is tried 32 times, where a choice at random between the ended
// context and the backend would let about half of them through. An
// Update whose context ends while fn runs returns nil where it wrote.
func testEndedContext(t *testing.T, be store.Backend) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for i := range 32 {
		err := be.Update(ctx, func(tx store.Tx) error { return tx.Put(a, []byte(fmt.Sprint(i)), []byte("v")) })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Update %d, its context ended = %v; want context.Canceled", i, err)
		}
	}
	wantRows(t, "after Updates whose context had ended", nil, scan(t, be, a, ""))
	// A context that ends while fn runs: the Update may commit, and say
	// so, or not; what it says must be what it did.
	var said []string
	for i := range 32 {
		ctx, cancel := context.WithCancel(t.Context())
		k := fmt.Sprintf("%02d", i)
		err := be.Update(ctx, func(tx store.Tx) error {
			_ = tx.Get(b, []byte(k)) // the backend at work, then the end
			cancel()
			return tx.Put(a, []byte(k), []byte("v"))
		})
		if err == nil {
			said = append(said, k+"=v")
		} else if !errors.Is(err, context.Canceled) {
			t.Fatalf("Update %d, its context ended while fn ran = %v; want nil or context.Canceled", i, err)
		}
	}
	wantRows(t, "the rows of Updates whose context ended while fn ran, against those that returned nil", said, scan(t, be, a, ""))
	l, ok := be.(store.Locker)
	if !ok {
		return
	}
	for i := range 32 {
		holder, err := l.TryLock(ctx, "ended", fmt.Sprint("token", i), time.Minute)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("TryLock %d, its context ended = %q, %v; want context.Canceled", i, holder, err)
		}
	}
	if holder, err := l.TryLock(t.Context(), "ended", "live", time.Minute); holder != "" || err != nil {
		t.Errorf("TryLock after those whose context had ended = %q, %v; want the lock free, taken", holder, err)
	}
}
