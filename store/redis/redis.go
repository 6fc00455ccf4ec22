// Package redis is the shared tier of vkbench's store on Redis: a
// store.Backend, and a store.Locker for the lock that makes one machine of
// a fleet tune each question. It registers the URL schemes redis:// and
// rediss:// (TLS) with package store; a program asks for it with
//
//	import _ "github.com/vkbench/vkbench/store/redis"
//
// and names the store in store.Options.Shared (the vkbench command's
// --store, the root package's TunerOptions.Store):
// redis://[user:password@]host:port/db, the password from
// $VKBENCH_STORE_PASSWORD where the URL has none.
//
// A table is a hash, vkbench:t:<path> (each name of the path escaped as a
// URL path segment, joined by '/'); vkbench:tables is the set of the
// tables' paths, vkbench:lock:<name> a lock. Update is a WATCH/MULTI/EXEC
// transaction over the hashes it read, run again when another writer came
// between. Every call is bounded: a
// second to connect, read or write, two for a whole View or Update
// (go-redis's URL parameters dial_timeout, read_timeout and write_timeout
// change the first three, and the last with them), and by its caller's
// context, whose end ends the call at once with the context's error (of
// its code, Cancelled or DeadlineExceeded), however long the store would
// have kept it. store.Open pings the store once (Backend.Ping).
package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

func init() {
	store.RegisterShared("redis", Open)
	store.RegisterShared("rediss", Open)
	// Failures reach the store as errors, and the user as one warning of
	// the tier; go-redis's own lines on stderr would repeat them for
	// every retried connection.
	goredis.SetLogger(quiet{})
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// The bounds of every call: a View, an Update or a lock's call lasts at
// most callTimeouts times the longest of the network timeouts; maxRetries
// bounds the runs of an Update whose watched keys another writer changed.
const (
	netTimeout   = time.Second
	callTimeouts = 2
	maxRetries   = 100
)

// Key names in the store.
const prefix, tablesKey = "vkbench:", "vkbench:tables"

// Backend is a Redis database as a store.Backend and store.Locker.
type Backend struct {
	c *goredis.Client
	// call bounds one View, Update or lock call.
	call time.Duration
}

var (
	_ store.Backend = (*Backend)(nil)
	_ store.Locker  = (*Backend)(nil)
	_ store.Pinger  = (*Backend)(nil)
)

// Open returns the backend of the Redis database u names
// (redis://[user:password@]host:port/db, rediss:// for TLS, and
// go-redis's query parameters). It connects to nothing yet.
func Open(u *url.URL) (store.Backend, error) {
	opts, err := goredis.ParseURL(u.String())
	if err != nil {
		return nil, status.Wrapf(err, status.InvalidArgument, "store/redis: %s", u.Redacted())
	}
	q := u.Query()
	set := func(name string, d *time.Duration) {
		if !q.Has(name) {
			*d = netTimeout
		}
	}
	set("dial_timeout", &opts.DialTimeout)
	set("read_timeout", &opts.ReadTimeout)
	set("write_timeout", &opts.WriteTimeout)
	set("pool_timeout", &opts.PoolTimeout)
	if !q.Has("max_retries") {
		opts.MaxRetries = -1 // the tier's back-off retries, later
	}
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	call := callTimeouts * max(opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout)
	return &Backend{c: goredis.NewClient(opts), call: call}, nil
}

// Close closes the connections.
func (b *Backend) Close() error { return b.c.Close() }

// fail gives err, a failure of Redis itself, a code that says what to
// fix: the configuration, where Redis refused the request as made
// (Unauthenticated, PermissionDenied, InvalidArgument for any other ERR
// reply, FailedPrecondition for an untrusted TLS certificate), else
// Unavailable: down, slow, a connection cut, or a state it leaves by
// itself (LOADING, BUSY, OOM, max clients). Where ctx, the caller's,
// ended, it is ctx's error, of its code: the store did not fail, its
// caller stopped waiting. Nil for nil.
func fail(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return status.Annotate(ctx.Err(), "store/redis: the caller stopped waiting for the store")
	}
	code, check := status.Unavailable, ""
	switch msg := err.Error(); {
	case goredis.IsAuthError(err) || strings.Contains(msg, "invalid password"):
		code, check = status.Unauthenticated, ": refused the credentials; check the user and password (the URL's, else $"+store.EnvStorePassword+")"
	case goredis.IsPermissionError(err):
		code, check = status.PermissionDenied, ": refused a command; check the user's ACL, which must allow vkbench's on the keys "+prefix+"*"
	case errors.As(err, new(goredis.Error)) && strings.HasPrefix(msg, "ERR ") && !goredis.IsMaxClientsError(err):
		code, check = status.InvalidArgument, ": refused the request; check the URL (its database number, its parameters)"
	case errors.As(err, new(*tls.CertificateVerificationError)):
		code, check = status.FailedPrecondition, ": its TLS certificate is not trusted here; check the URL's host name and this machine's certificate authorities"
	}
	return status.Wrapf(err, code, "store/redis%s", check)
}

// Ping asks Redis for a PONG within a call's bound (store.Pinger). Where
// the server is out of reach, it asks whether the server speaks the other
// protocol, TLS or plain text: FailedPrecondition where it does. It
// returns ctx's error as soon as ctx ends; the questions end in the
// background within their bounds.
func (b *Backend) Ping(ctx context.Context) error {
	_, err := one(ctx, b, func(ctx context.Context, c *goredis.Tx) (string, error) { return c.Ping(ctx).Result() })
	switch o := b.c.Options(); {
	case status.CodeOf(err) != status.Unavailable || !speaksOther(ctx, o):
		return err
	case o.TLSConfig != nil:
		return status.Wrapf(err, status.FailedPrecondition, "store/redis: rediss:// asks for TLS, and the server speaks plain text; use redis://")
	}
	return status.Wrapf(err, status.FailedPrecondition, "store/redis: redis:// speaks plain text, and the server asks for TLS; use rediss://")
}

// speaksOther reports whether the server o names answers, within the
// dial timeout and before ctx ends, in the protocol o does not speak: a
// Redis reply to a plain PING where o asks for TLS, a TLS handshake where
// it does not.
func speaksOther(ctx context.Context, o *goredis.Options) bool {
	deadline := time.Now().Add(o.DialTimeout)
	conn, err := (&net.Dialer{Deadline: deadline}).DialContext(ctx, o.Network, o.Addr)
	if err != nil {
		return false
	}
	defer func() { _ = conn.Close() }() // it served its question
	if err := conn.SetDeadline(deadline); err != nil {
		return false
	}
	// A connection of its own: ending its wait at once is this one's to do.
	defer context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })()
	if o.TLSConfig == nil {
		// Whoever answers learns nothing of the store: nothing is sent
		// but the handshake, so the certificate need not be checked.
		return tls.Client(conn, &tls.Config{InsecureSkipVerify: true}).Handshake() == nil
	}
	reply := make([]byte, 1)
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	_, err = io.ReadFull(conn, reply)
	return err == nil && (reply[0] == '+' || reply[0] == '-') // +PONG, or -NOAUTH before AUTH
}

// View runs fn with the tables as they are, read-only. Its reads are not
// one snapshot: what it reads of two tables may straddle another's write.
func (b *Backend) View(ctx context.Context, fn func(store.Tx) error) error {
	bounded, cancel := b.bound(ctx)
	defer cancel()
	tx, end := b.begin(ctx, bounded, false)
	defer end() // a panic of fn's too
	err := fn(tx)
	if tx.err != nil {
		// What fn read was missing for this: the failure is Redis's.
		return fail(ctx, tx.err)
	}
	return err
}

// Update runs fn in a WATCH/MULTI/EXEC transaction: every hash and set fn
// reads is watched, its writes are queued and land at once, and fn runs
// again when another writer changed what it read.
func (b *Backend) Update(ctx context.Context, fn func(store.Tx) error) error {
	bounded, cancel := b.bound(ctx)
	defer cancel()
	for range maxRetries {
		switch own, err := b.update(ctx, bounded, fn); {
		case err == nil:
			return own // returned as it is: no failure of Redis
		case !errors.Is(err, goredis.TxFailedErr):
			return fail(ctx, err)
		}
	}
	return status.Newf(status.Aborted, "store/redis: an update lost to other writers %d times", maxRetries)
}

// update runs fn once, and commits its writes where it returned nil: fn's
// own error, and the transaction's (TxFailedErr where another writer
// changed what fn read).
func (b *Backend) update(ctx, bounded context.Context, fn func(store.Tx) error) (own, err error) {
	tx, end := b.begin(ctx, bounded, true)
	defer end() // a panic of fn's too
	own = fn(tx)
	if tx.err == nil && own == nil && len(tx.ops) > 0 {
		do(tx, func(ctx context.Context, c *goredis.Tx) ([]goredis.Cmder, error) {
			return c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
				for _, op := range tx.ops {
					op(p)
				}
				return nil
			})
		})
	}
	return own, tx.err
}

// Lua scripts of the locks: a lock is taken where none is held, else its
// holder's token is returned; only the token that holds a lock releases
// or replaces (renews) it.
var (
	lockScript   = goredis.NewScript(`local h = redis.call("get", KEYS[1]) if h then return h end redis.call("set", KEYS[1], ARGV[1], "px", ARGV[2]) return ""`)
	unlockScript = goredis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`)
	// A script runs alone: no other client comes between its get and set.
	replaceScript = goredis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then redis.call("set", KEYS[1], ARGV[2], "px", ARGV[3]) return 1 end return 0`)
)

func lockKey(name string) []string { return []string{prefix + "lock:" + name} }

// TryLock sets the lock's key to token if it has none, else returns the
// token that holds it.
func (b *Backend) TryLock(ctx context.Context, name, token string, ttl time.Duration) (string, error) {
	return one(ctx, b, func(ctx context.Context, c *goredis.Tx) (string, error) {
		return lockScript.Run(ctx, c, lockKey(name), token, ttl.Milliseconds()).Text()
	})
}

// Unlock deletes the lock if token holds it.
func (b *Backend) Unlock(name, token string) error {
	_, err := one(context.Background(), b, func(ctx context.Context, c *goredis.Tx) (int, error) {
		return unlockScript.Run(ctx, c, lockKey(name), token).Int()
	})
	return err
}

// Replace sets the lock to token, for ttl, if stale still holds it.
func (b *Backend) Replace(ctx context.Context, name, stale, token string, ttl time.Duration) (bool, error) {
	n, err := one(ctx, b, func(ctx context.Context, c *goredis.Tx) (int, error) {
		return replaceScript.Run(ctx, c, lockKey(name), stale, token, ttl.Milliseconds()).Int()
	})
	return n == 1, err
}

// bound is the context of a call's commands: within the call's bound,
// and ended when ctx ends. Its deadline is the bound's alone: go-redis
// sets a connection's deadline from it, and a read cut at ctx's deadline
// would be taken for a failure of the store.
func (b *Backend) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	bounded, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.call)
	stop := context.AfterFunc(ctx, cancel)
	return bounded, func() { stop(); cancel() }
}

// begin starts a transaction on a connection of its own, which a
// goroutine works until end (see do); an update watches what it reads.
// Its commands are bounded by bounded, ctx within the call's bound. end
// lets the goroutine go, and waits for it (a watch let go, the connection
// back in the pool) until ctx ends.
func (b *Backend) begin(ctx, bounded context.Context, update bool) (tx *rtx, end func()) {
	cmds, ended := make(chan func(*goredis.Tx)), make(chan struct{})
	go func() {
		defer close(ended)
		// No keys: nothing is asked of Redis before the first command.
		_ = b.c.Watch(bounded, func(c *goredis.Tx) error {
			for cmd := range cmds {
				cmd(c)
			}
			return nil
		})
	}()
	tx = &rtx{ctx: bounded, caller: ctx, cmds: cmds, update: update,
		puts: map[string]map[string][]byte{}, dropped: map[string]bool{}, watched: map[string]bool{}}
	return tx, func() {
		close(cmds)
		select {
		case <-ended:
		case <-ctx.Done():
		}
	}
}

// one runs a call of one command, as a View of its own.
func one[T any](ctx context.Context, b *Backend, cmd func(ctx context.Context, c *goredis.Tx) (T, error)) (v T, err error) {
	err = b.View(ctx, func(tx store.Tx) error {
		v, _ = do(tx.(*rtx), cmd)
		return nil
	})
	return v, err
}

// do runs cmd on t's connection, on the goroutine that works it, and
// returns its answer; or, as soon as the caller's context ends, that
// context's error: go-redis ends a read at a deadline, never when a
// context is cancelled, so a store that stopped answering would hold
// the caller until its read timeout. The command ends in the background
// within its bounds. The first failure is t's (t.err), and no command
// runs after it.
func do[T any](t *rtx, cmd func(ctx context.Context, c *goredis.Tx) (T, error)) (v T, ok bool) {
	if t.err != nil {
		return v, false
	}
	if err := t.caller.Err(); err != nil {
		// Ended already: the select below could hand the command to the
		// worker ready for it, and a write said to fail would land.
		t.err = err
		return v, false
	}
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	select {
	case t.cmds <- func(c *goredis.Tx) { v, err := cmd(t.ctx, c); done <- answer{v, err} }:
		select {
		case a := <-done:
			v, t.err = a.v, a.err
		case <-t.caller.Done():
			t.err = t.caller.Err()
		}
	case <-t.caller.Done():
		t.err = t.caller.Err()
	}
	return v, t.err == nil
}

// encode is a table's path as one string: each name escaped, so that no
// two paths meet.
func encode(path []string) string {
	names := make([]string, len(path))
	for i, n := range path {
		names[i] = url.PathEscape(n)
	}
	return strings.Join(names, "/")
}

func decode(p string) []string {
	names := strings.Split(p, "/")
	for i, n := range names {
		names[i], _ = url.PathUnescape(n) // encode wrote it
	}
	return names
}

// hashKey is the key of the hash of the table whose encoded path is p.
func hashKey(p string) string { return prefix + "t:" + p }

// below reports whether path is top or a table under it.
func below(path, top []string) bool {
	return len(path) >= len(top) && slices.Equal(path[:len(top)], top)
}

// rtx is one transaction. Reads go to Redis (watched, in an Update), seen
// through this transaction's own writes, which are queued in ops.
type rtx struct {
	// ctx bounds the commands; caller is the caller's context, whose end
	// ends a wait for one (do).
	ctx, caller context.Context
	cmds        chan<- func(*goredis.Tx)
	update      bool  // false in a View, which cannot write
	err         error // the first failure of Redis; fn's reads found nothing

	ops []func(goredis.Pipeliner)
	// puts are this transaction's writes by table, a nil value a delete;
	// dropped are the tables dropped in it (before any puts of theirs).
	puts    map[string]map[string][]byte
	dropped map[string]bool
	// tables is the set of tables' paths, once read, as this transaction
	// changed it; made are the tables it made before reading it (a Drop
	// reads it first).
	tables  map[string]bool
	made    []string
	watched map[string]bool
}

var _ store.Tx = (*rtx)(nil)

// read prepares a read of key: watched in an Update. It reports false
// once Redis has failed.
func (t *rtx) read(key string) bool {
	if t.update && !t.watched[key] {
		_, t.watched[key] = do(t, func(ctx context.Context, c *goredis.Tx) (string, error) { return c.Watch(ctx, key).Result() })
	}
	return t.err == nil
}

func (t *rtx) Get(table []string, key []byte) []byte {
	p := encode(table)
	if v, ok := t.puts[p][string(key)]; ok {
		return v
	}
	if t.dropped[p] || !t.read(hashKey(p)) {
		return nil
	}
	v, _ := do(t, func(ctx context.Context, c *goredis.Tx) ([]byte, error) {
		v, err := c.HGet(ctx, hashKey(p), string(key)).Bytes()
		if errors.Is(err, goredis.Nil) {
			return nil, nil
		}
		return v, err
	})
	return v
}

func (t *rtx) Scan(table []string, pre []byte, fn func(key, value []byte) error) error {
	p := encode(table)
	rows := map[string][]byte{}
	if !t.dropped[p] && t.read(hashKey(p)) {
		all, _ := do(t, func(ctx context.Context, c *goredis.Tx) (map[string]string, error) {
			return c.HGetAll(ctx, hashKey(p)).Result()
		})
		for k, v := range all {
			rows[k] = []byte(v)
		}
	}
	if t.err != nil {
		return t.err
	}
	for k, v := range t.puts[p] {
		if v == nil {
			delete(rows, k)
		} else {
			rows[k] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(rows)) {
		if strings.HasPrefix(k, string(pre)) {
			if err := fn([]byte(k), rows[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// tableSet returns the paths of the tables, as this transaction has made
// them; nil once Redis has failed.
func (t *rtx) tableSet() map[string]bool {
	if t.tables != nil || !t.read(tablesKey) {
		return t.tables
	}
	members, ok := do(t, func(ctx context.Context, c *goredis.Tx) ([]string, error) { return c.SMembers(ctx, tablesKey).Result() })
	if !ok {
		return nil
	}
	t.tables = map[string]bool{}
	for _, p := range slices.Concat(members, t.made) {
		t.tables[p] = true
	}
	return t.tables
}

func (t *rtx) Tables(above []string, depth int, fn func(names []string) error) error {
	set := t.tableSet()
	if t.err != nil {
		return t.err
	}
	seen := map[string][]string{}
	for p := range set {
		path := decode(p)
		if below(path, above) && len(path) >= len(above)+depth {
			names := path[len(above) : len(above)+depth]
			seen[encode(names)] = names
		}
	}
	for _, names := range slices.SortedFunc(maps.Values(seen), slices.Compare) {
		if err := fn(names); err != nil {
			return err
		}
	}
	return nil
}

// queue adds a write; in a View it fails.
func (t *rtx) queue(op func(goredis.Pipeliner)) error {
	if !t.update {
		return status.New(status.FailedPrecondition, "store/redis: write in a read-only transaction")
	}
	t.ops = append(t.ops, op)
	return nil
}

func (t *rtx) Put(table []string, key, value []byte) error {
	p, k, v := encode(table), string(key), string(value)
	if err := t.queue(func(pl goredis.Pipeliner) { pl.SAdd(t.ctx, tablesKey, p); pl.HSet(t.ctx, hashKey(p), k, v) }); err != nil {
		return err
	}
	if t.tables != nil { // the set read, as this transaction changes it
		t.tables[p] = true
	} else {
		t.made = append(t.made, p)
	}
	t.put(p, k, slices.Clone(value))
	return nil
}

func (t *rtx) put(p, k string, v []byte) {
	if t.puts[p] == nil {
		t.puts[p] = map[string][]byte{}
	}
	t.puts[p][k] = v
}

func (t *rtx) Delete(table []string, key []byte) error {
	p, k := encode(table), string(key)
	if err := t.queue(func(pl goredis.Pipeliner) { pl.HDel(t.ctx, hashKey(p), k) }); err != nil {
		return err
	}
	t.put(p, k, nil)
	return nil
}

func (t *rtx) Drop(table []string) (bool, error) {
	if !t.update {
		return false, t.queue(nil)
	}
	set := t.tableSet()
	if t.err != nil {
		return false, t.err
	}
	var gone []string
	for p := range set {
		if below(decode(p), table) {
			gone = append(gone, p)
			delete(set, p)
			delete(t.puts, p)
			t.dropped[p] = true
		}
	}
	if len(gone) == 0 {
		return false, nil
	}
	return true, t.queue(func(pl goredis.Pipeliner) {
		for _, p := range gone {
			pl.Del(t.ctx, hashKey(p))
			pl.SRem(t.ctx, tablesKey, p)
		}
	})
}
