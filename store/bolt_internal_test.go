package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
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
	_, _, err := late.b.(*boltFile).openDB(context.Background(), false, late.b.(*boltFile).lockWait())
	d, ok := errors.AsType[*damageError](err)
	if !ok {
		t.Fatalf("opening a file of zeros: %v, want a damageError", err)
	}
	tbl := Table{Hardware: "hw", Tuner: "builtin"}
	if err := first.Update(context.Background(), tbl, func(r Rows) error { return r.Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if err := late.b.(*boltFile).moveAside(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) != 1 {
		t.Errorf("files moved aside: %v, want one", aside)
	}
	if v, err := open().Get(context.Background(), tbl, []byte("k")); string(v) != "v" {
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
	if err := s.Update(context.Background(), tbl, func(r Rows) error { return r.Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	// A second store, with no read handle open yet.
	s, err = Open(Options{Path: path, LockTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	holder, err := lockPath(context.Background(), path, os.O_RDWR, true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	lookup := func() (bool, time.Duration) {
		start := time.Now()
		v, _ := s.Get(context.Background(), tbl, []byte("k"))
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
	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}
	if ok, took := lookup(); !ok {
		t.Errorf("read once the lock is gone: a miss after %v; want the stored value", took)
	}
}

// TestLockedWithReadHandle holds the file's exclusive lock while a store
// has its read handle open, so that a read takes the lock again on a
// descriptor of its own rather than through bolt.Open: the read waits out
// the timeout and misses with Unavailable naming the file and the lock,
// CheckWrite says the same before any work, both go through once the lock
// is gone, and a file removed under the handle is a miss, not an error.
func TestLockedWithReadHandle(t *testing.T) {
	if !canRelock {
		t.Skip("no flock here")
	}
	path := filepath.Join(t.TempDir(), "cache.db")
	s, err := Open(Options{Path: path, LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	tbl, k := Table{Hardware: "hw", Tuner: "builtin"}, []byte("k")
	if err := s.Update(context.Background(), tbl, func(r Rows) error { return r.Put(k, []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(context.Background(), tbl, k); string(v) != "v" || s.b.(*boltFile).rd == nil {
		t.Fatalf("Get = %q, %v; want v, with the read handle left open", v, err)
	}
	holder, err := lockPath(context.Background(), path, os.O_RDWR, true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// Each message says what was waited: the whole timeout, or during
	// the back-off after it, the short retry (a Get's; CheckWrite always
	// waits the whole timeout).
	locked := func(what string, err error, waited string) {
		t.Helper()
		if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), waited) {
			t.Errorf("%s of a locked file: %v; want code Unavailable naming the file and saying %q", what, err, waited)
		}
	}
	v, err := s.Get(context.Background(), tbl, k)
	if v != nil {
		t.Errorf("Get of a locked file found %q", v)
	}
	const whole = "locked by another process for more than 200ms"
	locked("Get", err, whole)
	locked("CheckWrite", s.CheckWrite(t.Context()), whole)
	_, err = s.Get(context.Background(), tbl, k)
	locked("Get during the back-off", err, "still locked by another process (waited 50ms, after a wait of 200ms ran out")
	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(context.Background(), tbl, k); string(v) != "v" || s.CheckWrite(t.Context()) != nil {
		t.Errorf("once the lock is gone: Get = %q, %v, CheckWrite = %v; want v and nil", v, err, s.CheckWrite(t.Context()))
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(context.Background(), tbl, k); v != nil || err != nil {
		t.Errorf("Get after the file was removed = %q, %v; want a miss without an error", v, err)
	}
}

// TestCheckContextLocked: CheckWrite and CheckRead end when their context
// does while another process holds the file's exclusive lock, cancelled or
// past its deadline, with the context's error and code, where CheckWrite
// waited out the lock timeout (30 s here) before, whatever its caller.
// Each call's time is measured from the test's own wait for the same
// context's end, and held to a quarter of the lock timeout.
func TestCheckContextLocked(t *testing.T) {
	s, path := lockedStore(t)
	testenv.ContextEnd{Within: lockTimeout / 4, Names: path}.Check(t, "CheckWrite of a locked file", s.CheckWrite)
	// CheckRead waits a moment at most: ask it once its context ended.
	testenv.ContextEnd{Within: lockTimeout / 4, Names: path, Late: true}.Check(t, "CheckRead of a locked file", s.CheckRead)
}

// TestCallsContextLocked: every other call that waits for the file's lock
// (the tables', the peaks' and the pipeline caches') ends when its context
// does, as CheckWrite does (TestCheckContextLocked), and says nothing of
// it in a warning. Before, Scan, Tables, Clear, UpdatePeak, LoadPeak,
// SavePipelineCache, LoadPipelineCache and TuneLogs took no context and
// waited out the lock timeout.
func TestCallsContextLocked(t *testing.T) {
	s, path := lockedStore(t)
	tbl := Table{Hardware: "hw", Tuner: "builtin"}
	for _, c := range []struct {
		name string
		call func(context.Context) error
	}{
		{"Scan", func(ctx context.Context) error { return s.Scan(ctx, tbl, func(_, _ []byte) error { return nil }) }},
		{"Tables", func(ctx context.Context) error { _, err := s.Tables(ctx); return err }},
		{"Clear of a table", func(ctx context.Context) error { return s.Clear(ctx, &tbl) }},
		{"Clear", func(ctx context.Context) error { return s.Clear(ctx, nil) }},
		{"UpdatePeak", func(ctx context.Context) error {
			return s.UpdatePeak(ctx, "hw", func([]byte) ([]byte, error) { return []byte("{}"), nil })
		}},
		{"LoadPeak", func(ctx context.Context) error { _, err := s.LoadPeak(ctx, "hw"); return err }},
		{"SavePipelineCache", func(ctx context.Context) error { return s.SavePipelineCache(ctx, [16]byte{1}, []byte("data")) }},
		{"LoadPipelineCache", func(ctx context.Context) error { _, err := s.LoadPipelineCache(ctx, [16]byte{1}); return err }},
		{"TuneLogs", func(ctx context.Context) error { _, err := s.TuneLogs(ctx); return err }},
	} {
		testenv.ContextEnd{Within: lockTimeout / 4, Names: path}.Check(t, c.name+" of a locked file", c.call)
	}
	if w := s.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q; want none: the callers stopped waiting, the file did not fail", w)
	}
}

// lockTimeout is lockedStore's: far beyond what a busy machine adds to
// the contexts' 200 ms.
const lockTimeout = 30 * time.Second

// lockedStore is a store of a file that has a table, whose exclusive lock
// another handle holds (as another process would) until the test ends.
func lockedStore(t *testing.T) (*Store, string) {
	t.Helper()
	if !canRelock {
		t.Skip("no flock here")
	}
	path := filepath.Join(t.TempDir(), "cache.db")
	s, err := Open(Options{Path: path, LockTimeout: lockTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(t.Context(), Table{Hardware: "hw", Tuner: "builtin"}, func(r Rows) error { return r.Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	holder, err := lockPath(t.Context(), path, os.O_RDWR, true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Unlock() })
	return s, path
}

// TestEndedContextRunsNothing: a call whose context has ended does nothing
// and says so, on a file nobody holds too. Before, the wait for this
// process's read slot picked at random between the free slot and the
// ended context, so about half such calls went ahead and wrote.
func TestEndedContextRunsNothing(t *testing.T) {
	s, err := Open(Options{Path: filepath.Join(t.TempDir(), "c.db"), LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 32 {
		err := s.UpdatePeak(ctx, "hw", func([]byte) ([]byte, error) { return []byte("{}"), nil })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("UpdatePeak %d with its context ended: %v; want context.Canceled", i, err)
		}
	}
	if got, err := s.LoadPeak(context.Background(), "hw"); err != nil || got != nil {
		t.Errorf("the peak after calls whose context had ended: %q, %v; want none stored", got, err)
	}
	ref := LogRef{Table: Table{Hardware: "hw", Tuner: "t"}, Key: "k", Mode: "hot"}
	if err := s.PutLogHeader(context.Background(), ref, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if logs, err := s.TuneLogs(ctx); logs != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("TuneLogs with its context ended: %v, %v; want nothing read and context.Canceled", logs, err)
	}
}
