package redis_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkbench/vkbench/internal/redistest"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/store/redis"
	"github.com/vkbench/vkbench/store/storetest"
)

func TestBackend(t *testing.T) {
	srv := redistest.Start(t)
	db := 0
	storetest.TestBackend(t, func(t *testing.T) store.Backend {
		// A database of its own for each subtest: Redis has 16.
		db++
		u, err := url.Parse(strings.Replace(srv.URL(), "/0?", fmt.Sprintf("/%d?", db), 1))
		if err != nil {
			t.Fatal(err)
		}
		if db >= 16 {
			t.Fatal("more subtests than databases")
		}
		b, err := redis.Open(u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := b.(*redis.Backend).Close(); err != nil {
				t.Error(err)
			}
		})
		return b
	})
}

// TestLocks: the lock of a process of this host that was killed is taken
// over at once, by one of the processes that ask.
func TestLocks(t *testing.T) {
	storetest.TestLocks(t, func(t *testing.T) string { return redistest.Start(t).URL() + "&lock-expiry=1m" })
}

// open opens a store whose shared tier is rawURL, its warnings in the
// returned buffer.
func open(t *testing.T, rawURL string) (*store.Store, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	s, err := store.Open(store.Options{Path: "off", Shared: rawURL, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return s, &log
}

var table = store.Table{Hardware: "hw", Tuner: "builtin"}

// putGet writes and reads back one value of the shared tier.
func putGet(s *store.Store) ([]byte, error) {
	if err := s.Update(context.Background(), table, func(r store.Rows) error { return r.Put([]byte("k"), []byte("v")) }); err != nil {
		return nil, err
	}
	return s.Get(context.Background(), table, []byte("k"))
}

// TestFailures: a shared store that is down or paused, from the start or
// later, fails each call within the bounds, with one warning however many
// calls fail; the store opens all the same, and works from the file.
func TestFailures(t *testing.T) {
	t.Run("password-from-environment", func(t *testing.T) {
		srv := redistest.Start(t)
		t.Setenv(store.EnvStorePassword, redistest.Password)
		s, _ := open(t, srv.URLWithout())
		if v, err := putGet(s.Shared()); err != nil || string(v) != "v" {
			t.Fatalf("put and get = %q, %v", v, err)
		}
	})
	for _, c := range []struct {
		name    string
		url     func(*redistest.Server) string
		breakIt func(*redistest.Server)
		atOpen  bool // broken before the store is opened
	}{
		{"down", (*redistest.Server).DefaultURL, (*redistest.Server).Stop, false},
		{"paused", (*redistest.Server).DefaultURL, (*redistest.Server).Pause, false},
		{"down-at-open", (*redistest.Server).DefaultURL, (*redistest.Server).Stop, true},
		{"paused-at-open", (*redistest.Server).DefaultURL, (*redistest.Server).Pause, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := redistest.Start(t)
			if c.atOpen {
				c.breakIt(srv)
			}
			s, log := open(t, c.url(srv))
			if !c.atOpen {
				c.breakIt(srv)
			}
			shared := s.Shared()
			_, err := putGet(shared)
			if status.CodeOf(err) != status.Unavailable {
				t.Fatalf("first call: %v (code %v), want Unavailable", err, status.CodeOf(err))
			}
			// Later calls fail at once: the tier is left alone.
			for range 5 {
				if _, err := putGet(shared); status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "left alone") {
					t.Fatalf("later call: %v, want Unavailable without asking the store", err)
				}
			}
			if n := strings.Count(log.String(), "level=WARN"); n != 1 {
				t.Errorf("%d warnings, want 1:\n%s", n, log)
			}
			if !strings.Contains(log.String(), "working from the local file only") || strings.Contains(log.String(), redistest.Password) {
				t.Errorf("the warning does not say so, or shows the password:\n%s", log)
			}
			srv.Resume()
		})
	}
}

// TestRefused: a store that refuses this process as configured (a wrong
// or missing password, a database it does not have, TLS asked of a
// plain-text server or plain text of a TLS one, a certificate not
// trusted) is Open's error, which names the store without its password
// and what to check, and no warning; asked rightly, the same servers
// serve.
func TestRefused(t *testing.T) {
	plain, secure := redistest.Start(t), redistest.StartTLS(t)
	// The other protocol is asked within the dial timeout: a generous one
	// for a busy machine.
	const patient = "?dial_timeout=5s"
	for _, c := range []struct {
		name, url string
		code      status.Code
		says      string
	}{
		{"wrong-password", strings.Replace(plain.DefaultURL(), redistest.Password, "wrong", 1), status.Unauthenticated, "refused the credentials; check the user and password"},
		{"no-password", strings.Replace(plain.DefaultURL(), ":"+redistest.Password+"@", "", 1), status.Unauthenticated, "refused the credentials; check the user and password"},
		{"database-out-of-range", strings.TrimSuffix(plain.DefaultURL(), "/0") + "/16", status.InvalidArgument, "check the URL (its database number, its parameters): ERR DB index is out of range"},
		{"tls-to-plain-text", strings.Replace(plain.DefaultURL(), "redis://", "rediss://", 1) + patient, status.FailedPrecondition, "rediss:// asks for TLS, and the server speaks plain text; use redis://"},
		{"plain-text-to-tls", strings.Replace(secure.DefaultURL(), "rediss://", "redis://", 1) + patient, status.FailedPrecondition, "redis:// speaks plain text, and the server asks for TLS; use rediss://"},
		{"untrusted-certificate", secure.DefaultURL(), status.FailedPrecondition, "its TLS certificate is not trusted here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			s, err := store.Open(store.Options{Path: "off", Shared: c.url, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			u, _ := url.Parse(c.url)
			if s != nil || status.CodeOf(err) != c.code || !strings.Contains(err.Error(), "store: shared store "+u.Redacted()+" refused this process") ||
				!strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), redistest.Password) {
				t.Errorf("Open = %v, %v; want code %v saying it refused, and %q, without the password", s, err, c.code, c.says)
			}
			if log.Len() != 0 {
				t.Errorf("a refusal warned:\n%s", log.String())
			}
		})
	}
	for _, rawURL := range []string{plain.URL(), secure.URL() + "&skip_verify=true"} {
		s, log := open(t, rawURL)
		if v, err := putGet(s.Shared()); err != nil || string(v) != "v" || log.Len() != 0 {
			t.Errorf("%s: put and get = %q, %v; warnings:\n%s", rawURL, v, err, log)
		}
	}
}

// TestLock: one holder at a time, the one that waits learns which, and a
// lease is renewed while held (store/storetest's lock-expiry checks that
// an expired holder neither renews nor releases the next holder's). The
// lease lasts 3 s, renewed every second, and the test asks for it again
// 7 s on, past two expiries: a lease that is not renewed, or renewed
// once, is lost by then. A renewal may come 2 s late and keep it; with a
// lease of 1 s, 667 ms late lost it, as a busy machine (a load of 20 on
// two cores, redis-server starved too) made it do.
func TestLock(t *testing.T) {
	srv := redistest.Start(t)
	a, alog := open(t, srv.URL()+"&lock-expiry=3s")
	b, _ := open(t, srv.URL()+"&lock-expiry=3s")
	la, _, err := a.Shared().TryLock(context.Background(), "q")
	if err != nil || la == nil {
		t.Fatalf("first TryLock = %v, %v", la, err)
	}
	// Renewed in the background: still held after two expiries.
	time.Sleep(7 * time.Second)
	// The one that waits learns which process holds it: this one.
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if lb, holder, err := b.Shared().TryLock(context.Background(), "q"); lb != nil || err != nil || holder != fmt.Sprintf("%s pid %d", host, os.Getpid()) {
		t.Fatalf("TryLock while held = %v, %q, %v; want nil, this process, nil; the holder's warnings:\n%s", lb, holder, err, alog)
	}
	if err := la.Release(); err != nil {
		t.Fatal(err)
	}
	lb, _, err := b.Shared().TryLock(context.Background(), "q")
	if err != nil || lb == nil {
		t.Fatalf("TryLock after Release = %v, %v", lb, err)
	}
	// a's second Release does nothing, and a release by a token that no
	// longer holds the lock leaves b's.
	if err := la.Release(); err != nil {
		t.Fatal(err)
	}
	if lc, _, err := a.Shared().TryLock(context.Background(), "q"); lc != nil || err != nil {
		t.Fatalf("TryLock of b's lock = %v, %v; want nil, nil", lc, err)
	}
	if err := lb.Release(); err != nil {
		t.Fatal(err)
	}

}

// flaky is the real Redis backend whose lock renewals (a Replace of the
// holder's own token) fail while fail is set, as when the store is out of
// reach for a moment; each renewal's outcome goes to renewals.
type flaky struct {
	*redis.Backend
	fail     atomic.Bool
	renewals chan error
}

func (f *flaky) Replace(ctx context.Context, name, stale, token string, ttl time.Duration) (bool, error) {
	if stale != token { // a takeover, not a renewal
		return f.Backend.Replace(ctx, name, stale, token, ttl)
	}
	ok, err := false, errors.New("flaky: the store is out of reach")
	if !f.fail.Load() {
		ok, err = f.Backend.Replace(ctx, name, stale, token, ttl)
	}
	if err == nil && !ok {
		err = errors.New("the lock was lost")
	}
	f.renewals <- err
	return ok, err
}

var flakies = make(chan *flaky, 1)

func init() {
	store.RegisterShared("flaky", func(u *url.URL) (store.Backend, error) {
		real := *u
		real.Scheme = "redis"
		b, err := redis.Open(&real)
		if err != nil {
			return nil, err
		}
		f := &flaky{Backend: b.(*redis.Backend), renewals: make(chan error, 100)}
		flakies <- f
		return f, nil
	})
}

// TestLockRenewedAfterAFailure: a renewal of a held lock that fails is
// tried again at the next renewal, which holds the lock on: a long
// search outlives a moment of the store out of reach.
func TestLockRenewedAfterAFailure(t *testing.T) {
	srv := redistest.Start(t)
	s, _ := open(t, strings.Replace(srv.URL(), "redis://", "flaky://", 1)+"&lock-expiry=3s")
	f := <-flakies
	f.fail.Store(true)
	lease, _, err := s.Shared().TryLock(context.Background(), "q")
	if err != nil || lease == nil {
		t.Fatalf("TryLock = %v, %v", lease, err)
	}
	defer func() {
		if err := lease.Release(); err != nil {
			t.Error(err)
		}
	}()
	if err := <-f.renewals; err == nil {
		t.Fatal("the first renewal did not fail")
	}
	f.fail.Store(false)
	select {
	case err := <-f.renewals:
		if err != nil {
			t.Errorf("the renewal after the failure: %v", err)
		}
	case <-time.After(30 * time.Second): // ten renewals' time
		t.Fatal("no renewal after the failure")
	}
	other, _ := open(t, srv.URL())
	if l, _, err := other.Shared().TryLock(context.Background(), "q"); l != nil || err != nil {
		t.Errorf("another TryLock = %v, %v; want the lock held", l, err)
	}
}

// TestClosed: after its owner's Close, a call to the shared tier fails
// with the closed client's error and no warning: the store did not fail,
// the program closed it.
func TestClosed(t *testing.T) {
	s, log := open(t, redistest.Start(t).URL())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := putGet(s.Shared()); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("a call after Close = %v; want the closed client's error", err)
		}
	}
	if log.Len() != 0 || len(s.Warnings()) != 0 {
		t.Errorf("warnings after Close: %q\n%s", s.Warnings(), log)
	}
}

// TestLockLostWarns: a holder whose lock expired before it was renewed
// (as a process stopped past the expiry, and another took the lock) is
// told so, once, where it went on without a word.
func TestLockLostWarns(t *testing.T) {
	srv := redistest.Start(t)
	s, _ := open(t, srv.URL()+"&lock-expiry=600ms")
	lease, _, err := s.Shared().TryLock(context.Background(), "q")
	if err != nil || lease == nil {
		t.Fatalf("TryLock = %v, %v", lease, err)
	}
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	other, err := redis.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.(*redis.Backend).Close() }() // the test's own client
	// Another process takes the lock, as once it expired.
	held, err := other.(store.Locker).TryLock(context.Background(), "q", "other", time.Minute)
	if ok, err2 := other.(store.Locker).Replace(context.Background(), "q", held, "other", time.Minute); !ok || err != nil || err2 != nil {
		t.Fatalf("taking the lock: %v, %v, %v", ok, err, err2)
	}
	for deadline := time.Now().Add(10 * time.Second); len(s.Warnings()) == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // more renewals' time: it warns once
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "lock q in "+s.Shared().Path()+" expired before it was renewed") {
		t.Errorf("warnings %q; want 1 that the lock expired", w)
	}
	if err := lease.Release(); err != nil {
		t.Error(err)
	}
}

// TestPingCancelled: Open's ping of a store that does not answer (paused)
// ends when the caller's context does, at once, with the context's error
// and no warning, whichever question of the ping the cancel finds (the
// PING, then whether the server speaks the other protocol); uncancelled,
// it lasts its bound. Measured against that bound, on the same server.
func TestPingCancelled(t *testing.T) {
	srv := redistest.Start(t)
	srv.Pause()
	defer srv.Resume()
	openPing := func(ctx context.Context) (*store.Store, *bytes.Buffer, error) {
		var log bytes.Buffer
		s, err := store.OpenContext(ctx, store.Options{Path: "off", Shared: srv.DefaultURL(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
		return s, &log, err
	}
	t0 := time.Now()
	if _, log, err := openPing(context.Background()); err != nil || log.Len() == 0 {
		t.Fatalf("uncancelled: Open = %v, warnings %q; want the store, with a warning", err, log)
	}
	bound := time.Since(t0)
	for _, at := range []float64{0.2, 0.8} {
		ctx, cancel := context.WithCancel(context.Background())
		cancelled := make(chan time.Time, 1)
		time.AfterFunc(time.Duration(at*float64(bound)), func() { cancelled <- time.Now(); cancel() })
		s, log, err := openPing(ctx)
		took := time.Since(<-cancelled)
		t.Logf("cancelled at %.0f%% of the uncancelled ping's %v: Open returned %v later", 100*at, bound.Round(time.Millisecond), took.Round(time.Millisecond))
		if s != nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "store: shared store ") || log.Len() != 0 {
			t.Errorf("cancelled at %.0f%%: Open = %v, %v, warnings %q; want context.Canceled naming the store, and no warning", 100*at, s, err, log)
		}
		if took > bound/10 {
			t.Errorf("cancelled at %.0f%%: Open returned %v after the cancel; want within a tenth of the uncancelled ping's %v", 100*at, took, bound)
		}
	}
}

// TestContextEndsCalls: a call to a store that stopped answering (paused)
// ends as soon as its caller's context does, cancelled or past its
// deadline, with the context's error and code, where it waited for the
// store's own timeouts (10 s a read here); the Store's Scan, Tables and
// Clear waited so until they took a context. Through a Store such a call is
// no failure of the tier: no warning, and the next call asks the store.
// Each call's time is measured from the test's own wait for the same
// context's end, and held to a quarter of one read's timeout.
func TestContextEndsCalls(t *testing.T) {
	srv := redistest.Start(t)
	const readTimeout = 10 * time.Second // srv.URL's
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	be, err := redis.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	b := be.(*redis.Backend)
	defer func() { _ = b.Close() }() // the test's own client
	s, log := open(t, srv.URL())
	if _, err := putGet(s.Shared()); err != nil {
		t.Fatal(err)
	}
	path := []string{"t"}
	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"View", func(ctx context.Context) error {
			return b.View(ctx, func(tx store.Tx) error { tx.Get(path, []byte("k")); return nil })
		}},
		{"Update", func(ctx context.Context) error {
			return b.Update(ctx, func(tx store.Tx) error { return tx.Put(path, []byte("k"), []byte("v")) })
		}},
		{"TryLock", func(ctx context.Context) error { _, err := b.TryLock(ctx, "q", "token", time.Minute); return err }},
		{"Replace", func(ctx context.Context) error {
			_, err := b.Replace(ctx, "q", "token", "other", time.Minute)
			return err
		}},
		{"Ping", b.Ping},
		{"Store.Get", func(ctx context.Context) error { _, err := s.Shared().Get(ctx, table, []byte("k")); return err }},
		{"Store.TryLock", func(ctx context.Context) error { _, _, err := s.Shared().TryLock(ctx, "q"); return err }},
		{"Store.Scan", func(ctx context.Context) error {
			return s.Shared().Scan(ctx, table, func(_, _ []byte) error { return nil })
		}},
		{"Store.Tables", func(ctx context.Context) error { _, err := s.Shared().Tables(ctx); return err }},
		// Another table than putGet's: the commands sent go on once the
		// store answers again.
		{"Store.Clear", func(ctx context.Context) error {
			return s.Shared().Clear(ctx, &store.Table{Hardware: "hw", Tuner: "other"})
		}},
	}
	srv.Pause()
	defer srv.Resume()
	for _, c := range calls {
		testenv.ContextEnd{Within: readTimeout / 4}.Check(t, c.name, c.call)
	}
	srv.Resume()
	if v, err := putGet(s.Shared()); err != nil || string(v) != "v" || log.Len() != 0 {
		t.Errorf("once the store answers: put and get = %q, %v, warnings:\n%s\nwant the store asked, and no warning", v, err, log)
	}
}

// TestPanicReleasesConnection: a panic of the function given View or
// Update lets its connection go back to the pool: with a pool of one
// connection, the next call is served, where it waited out the pool's
// timeout and failed.
func TestPanicReleasesConnection(t *testing.T) {
	srv := redistest.Start(t)
	u, err := url.Parse(srv.URL() + "&pool_size=1&pool_timeout=10s")
	if err != nil {
		t.Fatal(err)
	}
	be, err := redis.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	b := be.(*redis.Backend)
	defer func() { _ = b.Close() }() // the test's own client
	get := func(tx store.Tx) error { tx.Get([]string{"t"}, []byte("k")); return nil }
	for _, txn := range []struct {
		name string
		run  func(context.Context, func(store.Tx) error) error
	}{{"View", b.View}, {"Update", b.Update}} {
		func() {
			defer func() { _ = recover() }() // the panic below
			_ = txn.run(t.Context(), func(tx store.Tx) error { _ = get(tx); panic("fn panicked") })
		}()
		if err := b.View(t.Context(), get); err != nil {
			t.Errorf("a View after a panic in %s: %v; want it served", txn.name, err)
		}
	}
}

// TestUnknownScheme: a URL of a scheme no store has names the schemes
// there are, and hints at store/redis's import only where it is missing:
// a program that imports it (the command does) was told to import it.
func TestUnknownScheme(t *testing.T) {
	_, err := store.Open(store.Options{Path: "off", Shared: "http://cache.example:6379/0"})
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), `unknown shared store "http://" (registered: `) || !strings.Contains(err.Error(), "redis, rediss)") || strings.Contains(err.Error(), "import") {
		t.Errorf("Open of an http:// store: %v; want InvalidArgument naming the registered schemes, no import hint", err)
	}
}
