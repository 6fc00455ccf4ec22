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

// TestLockBackoff holds the file's lock from another open file (flock
// locks belong to open files, so this process contends with itself): the
// first lookup waits the whole timeout, the next ones only briefly, and
// once the lock is gone the file is read again.
func TestLockBackoff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	// A lookup after the timeout waits one lock retry, 50 ms (lockRetry,
	// and bbolt's own): the bound on it, half the timeout, leaves a loaded
	// machine's scheduling room on top of that (it was 200 ms, of a 400 ms
	// timeout), and still tells it from a lookup that waits the whole
	// timeout again.
	const timeout = time.Second
	c, err := OpenCache(CacheOptions{Path: path, LockTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	tbl := Table{Hardware: "hw", Tuner: "builtin"}
	k := Key{Op: "copy", DType: "u32", Shape: ShapeOf(8)}
	if _, err := c.Commit(tbl, k, "c", &Entry{Fastest: 0, Results: []Result{{Name: "a", Outcome: Measured}}}); err != nil {
		t.Fatal(err)
	}
	// A second cache, so that nothing is answered from memory.
	c, err = OpenCache(CacheOptions{Path: path, LockTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	holder, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := holder.Close(); err != nil {
			t.Error(err)
		}
	}()
	if err := lockFile(holder, true, time.Second); err != nil {
		t.Fatal(err)
	}
	lookup := func() (bool, time.Duration) {
		start := time.Now()
		_, ok := c.Lookup(tbl, k, "c")
		return ok, time.Since(start)
	}
	// bbolt retries its lock every 50 ms and gives up at the first retry
	// past the timeout's start, so the first wait is close to it.
	if ok, took := lookup(); ok || took < timeout*3/4 {
		t.Errorf("first lookup of a locked file: found %v after %v; want a miss after about the %v timeout", ok, took, timeout)
	}
	for i := range 3 {
		if ok, took := lookup(); ok || took > timeout/2 {
			t.Errorf("lookup %d after the timeout: found %v after %v; want a miss within %v", i+2, ok, took, timeout/2)
		}
	}
	if err := unlockFile(holder); err != nil {
		t.Fatal(err)
	}
	if ok, took := lookup(); !ok {
		t.Errorf("lookup once the lock is gone: a miss after %v; want the stored answer", took)
	}
}

// TestForcedAnswerDropsStale: a forced answer (a re-tune, a search's)
// drops the key's answers for other candidates, as Commit does, instead
// of leaving them in the file for ever.
func TestForcedAnswerDropsStale(t *testing.T) {
	c, err := OpenCache(CacheOptions{Path: filepath.Join(t.TempDir(), "cache.db"), LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tb := Table{Hardware: "hw", Tuner: "builtin"}
	k := Key{Op: "op", DType: "f32", Shape: ShapeOf(64)}
	if _, err := c.Commit(tb, k, "old-candidates", &Entry{Fastest: 0, Results: []Result{{Name: "a"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.store(tb, k, "new-candidates", &Entry{Fastest: 0, Results: []Result{{Name: "a"}}}, true); err != nil {
		t.Fatal(err)
	}
	entries, err := c.Entries(tb)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Checksum != "new-candidates" {
		var sums []string
		for _, e := range entries {
			sums = append(sums, e.Checksum)
		}
		t.Errorf("entries under checksums %v; want only the forced answer's", sums)
	}
}
