package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkbench/vkbench/status"
)

// EnvStorePassword names the environment variable that holds the shared
// store's password when its URL has none, so that the password need not
// appear in a command line or a job's spec.
const EnvStorePassword = "VKBENCH_STORE_PASSWORD"

// Opener opens the shared store a URL names, of a scheme it was
// registered for. The URL has the password (from EnvStorePassword where
// it had none) and none of the store's own query parameters.
type Opener func(u *url.URL) (Backend, error)

var (
	openersMu sync.RWMutex
	openers   = map[string]Opener{}
)

// RegisterShared makes a shared store of URL scheme available to
// Options.Shared, as database/sql drivers register: store/redis registers
// "redis" and "rediss". It panics on a nil opener or a scheme registered
// twice.
func RegisterShared(scheme string, open Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	if open == nil {
		panic("store: RegisterShared of a nil opener for " + scheme)
	}
	if _, dup := openers[scheme]; dup {
		panic("store: RegisterShared twice for " + scheme)
	}
	openers[scheme] = open
}

// Defaults of a store's locks, which a shared tier's URL's query parameters
// lock-expiry and lock-wait override (redis://host:6379/0?lock-expiry=5s).
const (
	// DefaultLockExpiry is how long a question's lock outlives the last
	// renewal of a process that holds it: the time others wait for a
	// tuner that died before they take over.
	DefaultLockExpiry = 30 * time.Second
	// DefaultLockWait bounds how long a process waits for another's tune
	// of the same question before it tunes the question itself.
	DefaultLockWait = 10 * time.Minute
)

// sharedBackoff is how long the shared tier is left alone after a call to
// it failed: a store that is down or stopped would otherwise cost its
// timeout on every question.
const sharedBackoff = 10 * time.Second

// openShared opens the shared tier rawURL names, for s; its ping ends
// with ctx.
func (s *Store) openShared(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, status.Newf(status.InvalidArgument, "store: shared store %q: want a URL such as redis://host:6379/0", rawURL)
	}
	openersMu.RLock()
	open, schemes := openers[u.Scheme], slices.Sorted(maps.Keys(openers))
	_, redis := openers["redis"]
	openersMu.RUnlock()
	if open == nil {
		// The import is a program's to add: a command that has it needs
		// only the scheme.
		hint := ""
		if !redis {
			hint = "; forgotten import of github.com/vkbench/vkbench/store/redis?"
		}
		return nil, status.Newf(status.InvalidArgument, "store: unknown shared store %q (registered: %s%s)", u.Scheme+"://", cmp.Or(strings.Join(schemes, ", "), "none"), hint)
	}
	tier := &sharedTier{name: u.Redacted(), warn: s.Warn, expiry: DefaultLockExpiry, wait: DefaultLockWait}
	q := u.Query()
	for _, p := range []struct {
		name string
		v    *time.Duration
	}{{"lock-expiry", &tier.expiry}, {"lock-wait", &tier.wait}} {
		if !q.Has(p.name) {
			continue
		}
		d, err := time.ParseDuration(q.Get(p.name))
		if err != nil || d <= 0 {
			return nil, status.Newf(status.InvalidArgument, "store: shared store %s: %s=%q: want a positive duration such as 30s", tier.name, p.name, q.Get(p.name))
		}
		*p.v = d
		q.Del(p.name)
	}
	u.RawQuery = q.Encode()
	if _, has := u.User.Password(); !has {
		if pw := os.Getenv(EnvStorePassword); pw != "" {
			u.User = url.UserPassword(u.User.Username(), pw)
		}
	}
	if tier.b, err = open(u); err != nil {
		return nil, status.Annotatef(err, "store: shared store %s", tier.name)
	}
	tier.close = sync.OnceValue(func() error {
		tier.closed.Store(true)
		if c, ok := tier.b.(io.Closer); ok {
			return c.Close()
		}
		return nil
	})
	if p, ok := tier.b.(Pinger); ok {
		err := p.Ping(ctx)
		switch {
		case ctx.Err() != nil: // the caller's, neither a refusal nor an outage
			return nil, status.Join(status.Annotatef(ctx.Err(), "store: shared store %s", tier.name), tier.close())
		case refused(err):
			return nil, status.Join(status.Annotatef(err, "store: shared store %s refused this process (a configuration to fix)", tier.name), tier.close())
		}
		_ = tier.call(ctx, func() error { return err }) // out of reach: one warning, and the file alone for a while
	}
	// Its warnings are the store's: one list, each said once.
	return &Store{b: tier, log: s.log, path: tier.name, tier: tier, warnTo: s}, nil
}

// Pinger is a shared Backend that Open asks once whether it takes this
// process's requests, so that a store that refuses them (a wrong
// password, a database it does not have, TLS asked of a plain-text
// server) is Open's error, before any work, and not a warning that
// leaves a fleet tuning alone for ever. An error of code
// Unauthenticated, PermissionDenied, InvalidArgument or
// FailedPrecondition is a refusal; any other is the store out of reach:
// one warning, as any failure of the tier. Ping ends when ctx does.
type Pinger interface {
	Ping(ctx context.Context) error
}

// refused reports whether err, a Pinger's, is a refusal.
func refused(err error) bool {
	return slices.Contains([]status.Code{status.Unauthenticated, status.PermissionDenied, status.InvalidArgument, status.FailedPrecondition}, status.CodeOf(err))
}

// Shared is the shared tier (Options.Shared), or nil when there is none:
// a Store of its own, whose reads and writes reach only it.
func (s *Store) Shared() *Store { return s.shared }

// Close closes the shared tier's connections; a second Close does
// nothing more. The file needs no closing. After Close the store still
// reads and writes its file, and a call to the shared tier fails, with no
// warning: the store did not fail.
func (s *Store) Close() error {
	if s.shared == nil {
		return nil
	}
	return s.shared.tier.close()
}

// LockExpiry is how long the store's locks outlive their holder's last
// renewal: DefaultLockExpiry unless a shared tier's URL's lock-expiry
// says.
func (s *Store) LockExpiry() time.Duration {
	if s.tier == nil {
		return DefaultLockExpiry
	}
	return s.tier.expiry
}

// LockWait is how long to wait for another holder's answer before
// working without it: DefaultLockWait unless a shared tier's URL's
// lock-wait says.
func (s *Store) LockWait() time.Duration {
	if s.tier == nil {
		return DefaultLockWait
	}
	return s.tier.wait
}

// sharedTier is the shared Backend with the rule of a tier that may fail:
// a call that fails (not the function's own error) warns once, naming the
// store, and the tier is then left alone for sharedBackoff (its calls
// fail at once with Unavailable).
type sharedTier struct {
	b      Backend
	name   string
	warn   func(format string, args ...any)
	expiry time.Duration
	wait   time.Duration

	mu        sync.Mutex
	downUntil time.Time
	warned    bool

	// close closes the backend where it is an io.Closer, once; closed
	// is set from then on: calls fail, by the owner's doing, unwarned.
	close  func() error
	closed atomic.Bool
}

var _ Backend = (*sharedTier)(nil)

// call runs one call of the backend, unless the tier is resting after a
// failure; fn's own errors pass through without counting as the tier's,
// and so does a failure once ctx, the caller's, ended: the caller stopped
// waiting, which says nothing of the store.
func (st *sharedTier) call(ctx context.Context, do func() error) error {
	st.mu.Lock()
	resting := time.Now().Before(st.downUntil)
	st.mu.Unlock()
	if resting {
		return tierFailure{status.Newf(status.Unavailable, "store: shared store %s is left alone for %v after a failure", st.name, sharedBackoff)}
	}
	err := do()
	if err != nil && ctx.Err() != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if err == nil {
		st.warned = false
		return nil
	}
	if _, own := errors.AsType[fnError](err); own {
		return err
	}
	if st.closed.Load() {
		return tierFailure{err} // its owner closed it: no failure to warn of
	}
	st.downUntil = time.Now().Add(sharedBackoff)
	if !st.warned {
		st.warned = true
		st.warn("store: shared store %s failed (%v); working from the local file only", st.name, err)
	}
	return tierFailure{err}
}

// tierFailure is an error of the shared tier itself, which has warned of
// it once (saidOnce).
type tierFailure struct{ err error }

func (e tierFailure) Error() string { return e.err.Error() }
func (e tierFailure) Unwrap() error { return e.err }

// saidOnce reports whether args hold a failure of the shared tier.
func saidOnce(args []any) bool {
	return slices.ContainsFunc(args, func(a any) bool {
		err, _ := a.(error)
		_, tier := errors.AsType[tierFailure](err)
		return tier
	})
}

// fnError marks an error returned by the function given View or Update,
// so that the tier tells it from its backend's.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }
func (e fnError) Unwrap() error { return e.err }

func (st *sharedTier) View(ctx context.Context, fn func(Tx) error) error {
	return st.run(ctx, st.b.View, fn)
}

func (st *sharedTier) Update(ctx context.Context, fn func(Tx) error) error {
	return st.run(ctx, st.b.Update, fn)
}

// run runs fn in a transaction txn (the backend's View or Update): fn's
// own error is returned as it is, not taken for a failure of the tier.
func (st *sharedTier) run(ctx context.Context, txn func(context.Context, func(Tx) error) error, fn func(Tx) error) error {
	err := st.call(ctx, func() error {
		return txn(ctx, func(tx Tx) error {
			if err := fn(tx); err != nil {
				return fnError{err}
			}
			return nil
		})
	})
	if f, ok := errors.AsType[fnError](err); ok {
		return f.err
	}
	return err
}

// Locker is a Backend that holds named locks with an expiry, for every
// process that uses it: how one process of a fleet tunes a question while
// the others wait for its answer. A lock is held under a token, and only
// that token renews, releases or hands it over, so a process whose lock
// expired never releases the next holder's.
type Locker interface {
	// TryLock takes lock name under token for ttl, and returns "" where
	// it did, else the token of the holder. ctx is as View's. Unlock
	// takes none: a lock taken is let go however its taker's caller
	// ended.
	TryLock(ctx context.Context, name, token string, ttl time.Duration) (holder string, err error)
	// Unlock releases the lock if token holds it.
	Unlock(name, token string) error
	// Replace gives the lock to token for ttl if stale still holds it,
	// and reports whether it did, atomically: of several processes that
	// replace one stale token at once, one does. A lock that expired
	// meanwhile, or that another holds, is left as it is. Its holder
	// renews it by replacing its own token (stale == token), with a ctx
	// that never ends: a lock held is renewed however its taker's caller
	// ended. ctx is as View's.
	Replace(ctx context.Context, name, stale, token string, ttl time.Duration) (bool, error)
}

// Lease is a lock held by this process, renewed in the background until
// Release or until it is lost; a holder that dies stops renewing it, and
// it expires LockExpiry later.
type Lease struct {
	// release stops the renewals and releases the lock, once.
	release func() error
	// tookOver names the dead process whose lock this lease replaced.
	tookOver string
}

// TookOver names, by host and process id, the process whose lock this
// lease took over because that process, on this host, no longer exists;
// "" where the lock was free.
func (l *Lease) TookOver() string { return l.tookOver }

// TryLock takes the lock name in this store, a shared tier whose backend
// is a Locker or the cache file, for LockExpiry, renewed every third of
// it until the Lease is released. Where another process holds it, the
// lease is nil (and the error too), and holder names that process by its
// host and process id ("" where its lock does not say). A store that
// cannot lock is Unimplemented.
//
// A lock held by a process of this host (and process namespace) that no
// longer exists is taken over at once (Lease.TookOver says whose), rather
// than waited for until it expires. Only a process id that exists on no
// process counts as dead; any holder on another host is waited for.
func (s *Store) TryLock(ctx context.Context, name string) (_ *Lease, holder string, _ error) {
	lk, ok := s.b.(Locker)
	call := func(_ context.Context, do func() error) error { return do() }
	if s.tier != nil {
		lk, ok = s.tier.b.(Locker)
		call = s.tier.call
	}
	if !ok {
		return nil, "", status.Newf(status.Unimplemented, "store: %s has no locks", cmp.Or(s.path, "a store without a file"))
	}
	token, ttl := newToken(), s.LockExpiry()
	var tookOver string
	err := call(ctx, func() (err error) {
		// A few rounds: a dead holder's lock that another process took
		// over first, or that expired, is looked at again.
		for range 3 {
			if holder, err = lk.TryLock(ctx, name, token, ttl); err != nil || !deadHere(holder) {
				return err
			}
			ok, err := lk.Replace(ctx, name, holder, token, ttl)
			if err != nil || ok {
				if ok {
					tookOver, holder = holder, ""
				}
				return err
			}
		}
		return nil
	})
	if err != nil || holder != "" {
		return nil, holderOf(holder), err
	}
	stop, done := make(chan struct{}), make(chan struct{})
	release := sync.OnceValue(func() error {
		close(stop)
		<-done
		return call(context.Background(), func() error { return lk.Unlock(name, token) })
	})
	go func() {
		defer close(done)
		tick := time.NewTicker(ttl / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				// A renewal that failed is tried again at the next tick
				// (a long search outlives a store's short outage). A
				// lock lost (expired while the store was away) is not
				// taken back: another process may tune too, and the
				// first answer committed wins.
				if ok, err := lk.Replace(context.Background(), name, token, token, ttl); err == nil && !ok {
					s.Warn("store: this process's lock %s in %s expired before it was renewed (the process stopped or stalled for more than %v): another process may answer the question too, and the first answer committed stays", name, s.path, ttl)
					return
				}
			}
		}
	}()
	return &Lease{release: release, tookOver: holderOf(tookOver)}, "", nil
}

// Release stops renewing the lock and releases it (if this process still
// holds it); a second Release does nothing.
func (l *Lease) Release() error { return l.release() }

// newToken is a token that names one holder of a lock ("host pid N
// #random ns"): the process, a random part, and the process namespace its
// id belongs to, so that a process of another container that shares the
// host's name is never taken for one of this host.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	host, _ := os.Hostname()
	token := fmt.Sprintf("%s pid %d #%x", cmp.Or(host, "a host"), os.Getpid(), b)
	if ns := pidNamespace(); ns != "" {
		token += " " + ns
	}
	return token
}

// holderOf is the part of token that names its holder ("host pid N"):
// "" for a token that says nothing of it (an older vkbench's).
func holderOf(token string) string {
	who, _, ok := strings.Cut(token, " #")
	if !ok {
		return ""
	}
	return who
}

// deadHere reports whether token names a process of this host and of
// this process's namespace that no longer exists.
func deadHere(token string) bool {
	who, rest, ok := strings.Cut(token, " #")
	host, id, found := strings.Cut(who, " pid ")
	if !ok || !found {
		return false
	}
	_, ns, _ := strings.Cut(rest, " ")
	me, err := os.Hostname()
	pid, perr := strconv.Atoi(id)
	return err == nil && me != "" && host == me && ns == pidNamespace() && perr == nil && pid > 0 && pid != os.Getpid() && processGone(pid)
}
