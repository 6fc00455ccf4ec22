package storetest

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkbench/vkbench/store"
)

// testReplace: Replace hands a lock over only from the token that holds
// it, and of several processes replacing one stale token at once, one
// does.
func testReplace(t *testing.T, be store.Backend) {
	lk, ok := be.(store.Locker)
	if !ok {
		t.Skip("not a store.Locker: this backend holds no locks")
	}
	if h, err := lk.TryLock(t.Context(), "q", "stale", time.Minute); h != "" || err != nil {
		t.Fatalf("TryLock = %q, %v", h, err)
	}
	if ok, err := lk.Replace(t.Context(), "q", "other", "new", time.Minute); ok || err != nil {
		t.Errorf("Replace of a token that does not hold the lock = %v, %v; want false", ok, err)
	}
	if ok, err := lk.Replace(t.Context(), "missing", "stale", "new", time.Minute); ok || err != nil {
		t.Errorf("Replace of a lock nobody holds = %v, %v; want false", ok, err)
	}
	if h, err := lk.TryLock(t.Context(), "missing", "third", time.Minute); h != "" || err != nil {
		t.Errorf("a Replace of a lock nobody held took it: TryLock = %q, %v", h, err)
	}
	var wg sync.WaitGroup
	won := make([]bool, 8)
	for i := range won {
		wg.Go(func() {
			ok, err := lk.Replace(t.Context(), "q", "stale", fmt.Sprint("contender ", i), time.Minute)
			if err != nil {
				t.Error(err)
			}
			won[i] = ok
		})
	}
	wg.Wait()
	var winners []string
	for i, ok := range won {
		if ok {
			winners = append(winners, fmt.Sprint("contender ", i))
		}
	}
	if len(winners) != 1 {
		t.Fatalf("%d of %d contenders replaced one stale token (%q); want one", len(winners), len(won), winners)
	}
	if h, err := lk.TryLock(t.Context(), "q", "late", time.Minute); h != winners[0] || err != nil {
		t.Errorf("the lock is held by %q (%v); want the one that replaced it, %q", h, err, winners[0])
	}
	if ok, err := lk.Replace(t.Context(), "q", winners[0], winners[0], time.Minute); !ok || err != nil {
		t.Errorf("a renewal (Replace of its own token) by the new holder = %v, %v; want true", ok, err)
	}
}

// testExpiry: a lock expires when its holder stops renewing it, and the
// holder whose lock expired neither renews nor releases the next
// holder's: only the token that holds a lock does.
func testExpiry(t *testing.T, be store.Backend) {
	lk, ok := be.(store.Locker)
	if !ok {
		t.Skip("not a store.Locker: this backend holds no locks")
	}
	if h, err := lk.TryLock(t.Context(), "expiring", "old", 50*time.Millisecond); h != "" || err != nil {
		t.Fatalf("TryLock = %q, %v", h, err)
	}
	time.Sleep(200 * time.Millisecond) // at least: a busy host only sleeps longer
	if h, err := lk.TryLock(t.Context(), "expiring", "new", time.Minute); h != "" || err != nil {
		t.Fatalf("TryLock after the expiry = %q, %v", h, err)
	}
	if ok, err := lk.Replace(t.Context(), "expiring", "old", "old", time.Minute); ok || err != nil {
		t.Errorf("a renewal (Replace of its own token) by the expired holder = %v, %v; want false", ok, err)
	}
	must(t, lk.Unlock("expiring", "old"))
	if h, err := lk.TryLock(t.Context(), "expiring", "third", time.Minute); h != "new" || err != nil {
		t.Errorf("the expired holder's Unlock released the new holder's lock (TryLock = %q, %v; want the holder new)", h, err)
	}
}

// The child of TestLocks is told by these environment variables.
const (
	envLockChild = "VKBENCH_STORETEST_LOCK_CHILD"
	envLockURL   = "VKBENCH_STORETEST_LOCK_URL"
)

// TestLocks checks how Store.TryLock treats the lock of a process that
// died, on a cache file or on a shared store of a backend that is a
// store.Locker: start gives the file's path or the store's URL (once, in
// the test's process), with an expiry of a minute or more, so that what
// ends each wait here is not the lock's expiry. Call it from a top-level
// test of its own, before anything else the test does: the test runs its
// own binary again as the process that dies, and that process, told by
// its environment, does only its part and never returns.
func TestLocks(t *testing.T, start func(t *testing.T) string) {
	if os.Getenv(envLockChild) != "" {
		lockChild(t, os.Getenv(envLockURL), os.Getenv(envLockChild))
		return
	}
	place := start(t)
	t.Run("dead-holder-taken-over", func(t *testing.T) { testDeadHolder(t, place) })
}

// lockChild takes the lock name in the store at place, prints "locked",
// and waits to be killed.
func lockChild(t *testing.T, place, name string) {
	lease, holder, err := lockStore(t, place).TryLock(context.Background(), name)
	if err != nil || lease == nil {
		t.Fatalf("child: TryLock = %v, %q, %v", lease, holder, err)
	}
	fmt.Println("locked")
	time.Sleep(time.Hour)
}

// lockStore opens the store at place, a shared store's URL or a cache
// file's path, and returns the Store that holds place's locks.
func lockStore(t *testing.T, place string) *store.Store {
	t.Helper()
	opts := store.Options{Path: place, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	if strings.Contains(place, "://") {
		opts.Path, opts.Shared = "off", place
	}
	s, err := store.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	if s.Shared() != nil {
		return s.Shared()
	}
	return s
}

// testDeadHolder: a process of this host that holds a lock is waited for
// while it lives; killed (SIGKILL, so it neither releases nor renews the
// lock), its lock is taken over at once, not at its expiry, by one of
// several processes asking at once, which holds it as its own.
func testDeadHolder(t *testing.T, place string) {
	top, _, _ := strings.Cut(t.Name(), "/")
	cmd := exec.Command(os.Args[0], "-test.run=^"+top+"$")
	cmd.Env = append(os.Environ(), envLockChild+"=dead", envLockURL+"="+place)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	must(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }() // where the test ends early
	lines := bufio.NewScanner(out)
	for lines.Scan() && lines.Text() != "locked" {
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	child := fmt.Sprintf("%s pid %d", host, cmd.Process.Pid)
	s := lockStore(t, place)
	if l, holder, err := s.TryLock(context.Background(), "dead"); l != nil || holder != child || err != nil {
		t.Fatalf("TryLock while the child lives = %v, %q, %v; want nil, %q: a live holder is waited for", l, holder, err, child)
	}
	must(t, cmd.Process.Kill())
	_ = cmd.Wait() // killed: its status says so; reaped, its id is no process's
	// Several contenders at once, each a store of its own (as processes
	// are): one takes the lock over, the others find it held.
	stores := make([]*store.Store, 4)
	for i := range stores {
		stores[i] = lockStore(t, place)
	}
	leases := make([]*store.Lease, len(stores))
	holders := make([]string, len(stores))
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, s := range stores {
		wg.Go(func() { leases[i], holders[i], errs[i] = s.TryLock(context.Background(), "dead") })
	}
	wg.Wait()
	took := time.Since(t0)
	me := fmt.Sprintf("%s pid %d", host, os.Getpid())
	var won []int
	for i := range stores {
		switch {
		case errs[i] != nil:
			t.Errorf("contender %d: %v", i, errs[i])
		case leases[i] != nil:
			won = append(won, i)
			if got := leases[i].TookOver(); got != child {
				t.Errorf("contender %d: TookOver = %q, want the dead child %q", i, got, child)
			}
			defer func() {
				if err := leases[i].Release(); err != nil {
					t.Error(err)
				}
			}()
		case holders[i] != me:
			t.Errorf("contender %d found the lock held by %q; want this process, which took it over", i, holders[i])
		}
	}
	if len(won) != 1 {
		t.Fatalf("%d contenders took the dead child's lock over (%v); want one, at once, not at its expiry", len(won), won)
	}
	t.Logf("the dead child's lock was taken over %v after it was reaped (the lock's expiry: 1m)", took.Round(time.Millisecond))
	// The lock is the winner's: held, and taken over from nobody.
	if l, holder, err := s.TryLock(context.Background(), "dead"); l != nil || holder != me || err != nil {
		t.Errorf("TryLock after the takeover = %v, %q, %v; want held by this process", l, holder, err)
	}
}
