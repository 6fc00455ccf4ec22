package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMoveAsideOnlyTheDamagedFile has two processes' stores find the same
// file damaged. The first moves it aside and starts a fresh one; the
// second, acting on what it found, must not move the fresh file aside too.
func TestMoveAsideOnlyTheDamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	if err := os.WriteFile(path, make([]byte, 16<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() *Store {
		s, err := Open(Options{Path: path, LockTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	late, first := open(), open()
	_, _, err := late.b.(*boltFile).openDB(false)
	d, ok := errors.AsType[*damageError](err)
	if !ok {
		t.Fatalf("opening a file of zeros: %v, want a damageError", err)
	}
	tbl := Table{Hardware: "hw", Tuner: "builtin"}
	if err := first.Update(tbl, func(r Rows) error { return r.Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if err := late.b.(*boltFile).moveAside(d); err != nil {
		t.Fatal(err)
	}
	if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) != 1 {
		t.Errorf("files moved aside: %v, want one", aside)
	}
	if v, err := open().Get(tbl, []byte("k")); string(v) != "v" {
		t.Errorf("the fresh file's value is gone: %q, %v", v, err)
	}
}

// TestLockBackoff holds the file's lock from another open file (flock
// locks belong to open files, so this process contends with itself): the
// first read waits the whole timeout, the next ones only briefly, and
// once the lock is gone the file is read again.
func TestLockBackoff(t *testing.T) {
	if !canRelock {
		t.Skip("no flock here")
	}
	path := filepath.Join(t.TempDir(), "cache.db")
	// A read after the timeout waits one lock retry, 50 ms (lockRetry,
	// and bbolt's own): the bound on it, half the timeout, leaves a loaded
	// machine's scheduling room on top of that (it was 200 ms, of a 400 ms
	// timeout), and still tells it from a read that waits the whole
	// timeout again.
	const timeout = time.Second
	s, err := Open(Options{Path: path, LockTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	tbl := Table{Hardware: "hw", Tuner: "builtin"}
	if err := s.Update(tbl, func(r Rows) error { return r.Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	// A second store, with no read handle open yet.
	s, err = Open(Options{Path: path, LockTimeout: timeout})
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
		v, _ := s.Get(tbl, []byte("k"))
		return v != nil, time.Since(start)
	}
	// bbolt retries its lock every 50 ms and gives up at the first retry
	// past the timeout's start, so the first wait is close to it.
	if ok, took := lookup(); ok || took < timeout*3/4 {
		t.Errorf("first read of a locked file: found %v after %v; want a miss after about the %v timeout", ok, took, timeout)
	}
	for i := range 3 {
		if ok, took := lookup(); ok || took > timeout/2 {
			t.Errorf("read %d after the timeout: found %v after %v; want a miss within %v", i+2, ok, took, timeout/2)
		}
	}
	if err := unlockFile(holder); err != nil {
		t.Fatal(err)
	}
	if ok, took := lookup(); !ok {
		t.Errorf("read once the lock is gone: a miss after %v; want the stored value", took)
	}
}
