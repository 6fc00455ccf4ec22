package autotune

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMoveAsideOnlyTheDamagedFile has two processes' caches find the same
// file damaged. The first moves it aside and starts a fresh one; the
// second, acting on what it found, must not move the fresh file aside too.
func TestMoveAsideOnlyTheDamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	if err := os.WriteFile(path, make([]byte, 16<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() *Cache {
		c, err := OpenCache(CacheOptions{Path: path, LockTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	late, first := open(), open()
	_, _, err := late.openDB(false)
	d, ok := errors.AsType[*damageError](err)
	if !ok {
		t.Fatalf("opening a file of zeros: %v, want a damageError", err)
	}
	tbl := Table{Hardware: "hw", Tuner: "builtin"}
	k := Key{Op: "copy", DType: "u32", Shape: ShapeOf(8)}
	e := &Entry{Fastest: 0, Results: []Result{{Name: "a", Outcome: Measured}}}
	if _, err := first.Commit(tbl, k, "c", e); err != nil {
		t.Fatal(err)
	}
	if err := late.moveAside(d); err != nil {
		t.Fatal(err)
	}
	if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) != 1 {
		t.Errorf("files moved aside: %v, want one", aside)
	}
	if _, ok := open().Lookup(tbl, k, "c"); !ok {
		t.Error("the fresh file's answer is gone")
	}
}
