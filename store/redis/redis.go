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
// URL path segment, joined by '/'); vkbench:tables is the set of the tables'
// paths, vkbench:lock:<name> a lock. Update is a WATCH/MULTI/EXEC transaction over the hashes it read,
// run again when another writer came between. Every call is bounded: a
// second to connect, read or write, two for a whole View or Update
// (go-redis's URL parameters dial_timeout, read_timeout and write_timeout
// change the first three, and the last with them).
//
// store.Open pings the store once (Backend.Ping): what Redis refuses is
// its error, as is a URL of the wrong protocol; what is out of reach is a
// warning.
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
// itself (LOADING, BUSY, OOM, max clients). Nil for nil.
func (b *Backend) fail(err error) error {
	if err == nil {
		return nil
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
	answer := make(chan error, 1)
	go func() { answer <- b.ping() }()
	select {
	case err := <-answer:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *Backend) ping() error {
	ctx, cancel := context.WithTimeout(context.Background(), b.call)
	defer cancel()
	err := b.c.Ping(ctx).Err()
	switch o := b.c.Options(); {
	case status.CodeOf(b.fail(err)) != status.Unavailable || !speaksOther(o):
		return b.fail(err)
	case o.TLSConfig != nil:
		return status.Wrapf(err, status.FailedPrecondition, "store/redis: rediss:// asks for TLS, and the server speaks plain text; use redis://")
	}
	return status.Wrapf(err, status.FailedPrecondition, "store/redis: redis:// speaks plain text, and the server asks for TLS; use rediss://")
}

// speaksOther reports whether the server o names answers, within the
// dial timeout, in the protocol o does not speak: a Redis reply to a
// plain PING where o asks for TLS, a TLS handshake where it does not.
func speaksOther(o *goredis.Options) bool {
	deadline := time.Now().Add(o.DialTimeout)
	conn, err := (&net.Dialer{Deadline: deadline}).Dial(o.Network, o.Addr)
	if err != nil {
		return false
	}
	defer func() { _ = conn.Close() }() // it served its question
	if err := conn.SetDeadline(deadline); err != nil {
		return false
	}
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
func (b *Backend) View(_ context.Context, fn func(store.Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), b.call)
	defer cancel()
	tx := newTx(ctx, b.c, nil)
	err := fn(tx)
	if tx.err != nil {
		// What fn read was missing for this: the failure is Redis's.
		return b.fail(tx.err)
	}
	return err
}

// Update runs fn in a WATCH/MULTI/EXEC transaction: every hash and set fn
// reads is watched, its writes are queued and land at once, and fn runs
// again when another writer changed what it read.
func (b *Backend) Update(_ context.Context, fn func(store.Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), b.call)
	defer cancel()
	for range maxRetries {
		var own error // fn's error, returned as it is: no failure of Redis
		err := b.c.Watch(ctx, func(t *goredis.Tx) error {
			tx := newTx(ctx, t, t)
			err := fn(tx)
			switch {
			case tx.err != nil:
				return tx.err
			case err != nil:
				own = err
				return err
			case len(tx.ops) == 0:
				return nil
			}
			_, err = t.TxPipelined(ctx, func(p goredis.Pipeliner) error {
				for _, op := range tx.ops {
					op(p)
				}
				return nil
			})
			return err
		})
		switch {
		case own != nil:
			return own
		case errors.Is(err, goredis.TxFailedErr):
			continue
		}
		return b.fail(err)
	}
	return status.Newf(status.Aborted, "store/redis: an update lost to other writers %d times", maxRetries)
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

// lock runs script on the key of lock name, within the call's bound.
func (b *Backend) lock(script *goredis.Script, name string, args ...any) *goredis.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), b.call)
	defer cancel()
	return script.Run(ctx, b.c, []string{prefix + "lock:" + name}, args...)
}

// TryLock sets the lock's key to token if it has none, else returns the
// token that holds it.
func (b *Backend) TryLock(_ context.Context, name, token string, ttl time.Duration) (string, error) {
	holder, err := b.lock(lockScript, name, token, ttl.Milliseconds()).Text()
	return holder, b.fail(err)
}

// Unlock deletes the lock if token holds it.
func (b *Backend) Unlock(name, token string) error {
	return b.fail(b.lock(unlockScript, name, token).Err())
}

// Replace sets the lock to token, for ttl, if stale still holds it.
func (b *Backend) Replace(name, stale, token string, ttl time.Duration) (bool, error) {
	n, err := b.lock(replaceScript, name, stale, token, ttl.Milliseconds()).Int()
	return n == 1, b.fail(err)
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

func hashKey(path []string) string { return prefix + "t:" + encode(path) }

// below reports whether path is top or a table under it.
func below(path, top []string) bool {
	return len(path) >= len(top) && slices.Equal(path[:len(top)], top)
}

// rtx is one transaction. Reads go to Redis (watched, in an Update), seen
// through this transaction's own writes, which are queued in ops.
type rtx struct {
	ctx   context.Context
	r     goredis.Cmdable
	watch *goredis.Tx // nil in a View, which cannot write
	err   error       // the first failure of Redis; fn's reads found nothing

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

// newTx is a transaction reading r; one of an Update, which writes, reads
// through watch.
func newTx(ctx context.Context, r goredis.Cmdable, watch *goredis.Tx) *rtx {
	return &rtx{ctx: ctx, r: r, watch: watch,
		puts: map[string]map[string][]byte{}, dropped: map[string]bool{}, watched: map[string]bool{}}
}

// read prepares a read of key: watched in an Update. It reports false
// once Redis has failed.
func (t *rtx) read(key string) bool {
	if t.err != nil {
		return false
	}
	if t.watch != nil && !t.watched[key] {
		if err := t.watch.Watch(t.ctx, key).Err(); err != nil {
			t.err = err
			return false
		}
		t.watched[key] = true
	}
	return true
}

func (t *rtx) Get(table []string, key []byte) []byte {
	p := encode(table)
	if v, ok := t.puts[p][string(key)]; ok {
		return v
	}
	if t.dropped[p] || !t.read(hashKey(table)) {
		return nil
	}
	v, err := t.r.HGet(t.ctx, hashKey(table), string(key)).Bytes()
	if err != nil && !errors.Is(err, goredis.Nil) {
		t.err = err
	}
	return v
}

func (t *rtx) Scan(table []string, pre []byte, fn func(key, value []byte) error) error {
	p := encode(table)
	rows := map[string][]byte{}
	if !t.dropped[p] && t.read(hashKey(table)) {
		all, err := t.r.HGetAll(t.ctx, hashKey(table)).Result()
		if err != nil {
			t.err = err
			return err
		}
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
	members, err := t.r.SMembers(t.ctx, tablesKey).Result()
	if err != nil {
		t.err = err
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
	if t.watch == nil {
		return status.New(status.FailedPrecondition, "store/redis: write in a read-only transaction")
	}
	t.ops = append(t.ops, op)
	return nil
}

func (t *rtx) Put(table []string, key, value []byte) error {
	p, hk, k, v := encode(table), hashKey(table), string(key), string(value)
	if err := t.queue(func(pl goredis.Pipeliner) { pl.SAdd(t.ctx, tablesKey, p); pl.HSet(t.ctx, hk, k, v) }); err != nil {
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
	hk, k := hashKey(table), string(key)
	if err := t.queue(func(pl goredis.Pipeliner) { pl.HDel(t.ctx, hk, k) }); err != nil {
		return err
	}
	t.put(encode(table), k, nil)
	return nil
}

func (t *rtx) Drop(table []string) (bool, error) {
	if t.watch == nil {
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
			pl.Del(t.ctx, hashKey(decode(p)))
			pl.SRem(t.ctx, tablesKey, p)
		}
	})
}
