package autotune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/vkbench/vkbench/status"
)

// EnvCache names the environment variable that overrides the cache file's
// path; the value "off" disables the file.
const EnvCache = "VKBENCH_CACHE"

// Bucket names of the cache file's layout:
// autotune / <schema> / layout-v1 / <hardware> / <tuner>.
const (
	rootBucket   = "autotune"
	layoutBucket = "layout-v1"
)

var schemaBucket = "v" + strconv.Itoa(SchemaVersion)

// Table names where one tuner's answers for one hardware are stored.
type Table struct {
	// Hardware is hal.DeviceInfo.Hardware() of the devices it serves.
	Hardware string `json:"hardware"`
	// Tuner names the set of operations, e.g. "builtin" or a manifest's
	// name.
	Tuner string `json:"tuner"`
}

// String returns the table's path in the file.
func (t Table) String() string {
	return rootBucket + "/" + schemaBucket + "/" + layoutBucket + "/" + t.Hardware + "/" + t.Tuner
}

// CacheOptions configure a Cache.
type CacheOptions struct {
	// Path of the bbolt file. Empty means the VKBENCH_CACHE environment
	// variable, else DefaultCachePath().
	Path string
	// Disabled keeps answers in memory only; no file is touched.
	Disabled bool
	// LockTimeout bounds how long an operation waits for another process
	// holding the file; 5 s if zero. Past it a lookup is a miss and a
	// commit is kept in memory, each with a warning.
	LockTimeout time.Duration
	// Logger receives warnings; slog.Default() if nil.
	Logger *slog.Logger
}

// Cache remembers the fastest candidate for each key, in memory and in a
// bbolt file that several processes may share.
//
// # Sharing
//
// A commit opens the file for writing, under bbolt's exclusive lock, for
// one transaction. Reads take the shared lock for one transaction; between
// reads the file stays open (and mapped) but unlocked for up to a second,
// so a lookup does not pay for opening a large file, and is reopened when
// another process changed it. No process holds a lock for longer than one
// transaction, and none waits for a lock longer than the lock timeout.
//
// # Crashes
//
// A commit is one bbolt transaction: a process killed at any moment leaves
// the file with every answer whose Commit had returned, each complete, and
// nothing of the one in flight.
//
// # Problems with the file
//
// None of them stops the work; each is a warning (see Warnings) that names
// the file, and an error from the method that met it, with this code:
//
//   - locked by another process for longer than the lock timeout:
//     Unavailable. Lookups miss, commits are kept in memory. For 30 s
//     after such a timeout, waits for the lock last at most 50 ms, so that
//     a stuck process costs one timeout, not one for every question.
//   - not writable (permissions, a read-only file system, a path under a
//     regular file): PermissionDenied or FailedPrecondition. Lookups read
//     the file if they can; commits are kept in memory.
//   - damaged (truncated, not a bbolt file, a bad checksum, pages bbolt
//     cannot follow): DataLoss. Reading never changes the file: lookups
//     miss. The next commit renames it to <path>.damaged-<time>-<pid>,
//     says so in a warning, and starts a fresh file.
//   - written by a newer bbolt file format: Incompatible. Left as it is;
//     lookups miss, commits are kept in memory.
//   - an entry that does not decode: DataLoss for that entry alone, a miss;
//     the next commit of its key replaces it.
//   - tables of another schema version (autotune/v2/...) are not read and
//     never changed, Clear included: the versions live side by side.
//
// A Cache is safe for concurrent use.
type Cache struct {
	path    string
	timeout time.Duration
	log     *slog.Logger

	mu  sync.RWMutex
	mem map[memKey]int

	// rmu serialises reads of the file and guards rd.
	rmu sync.Mutex
	rd  *reader

	warnMu   sync.Mutex
	warnings []string
	warned   map[string]bool

	// lockedAt is when a wait for another process's lock last ran out
	// (UnixNano; 0 if never): for lockBackoff after it, waits are short.
	lockedAt atomic.Int64
}

// After a wait for another process's lock runs out, the next lockBackoff
// of waits last at most lockRetry: a process that held the lock that long
// is likely to go on holding it, and waiting the whole timeout again at
// every lookup and commit would stall the caller for seconds a question.
const (
	lockBackoff = 30 * time.Second
	lockRetry   = 50 * time.Millisecond
)

// lockWait is how long to wait for another process's lock now.
func (c *Cache) lockWait() time.Duration {
	if at := c.lockedAt.Load(); at != 0 && time.Since(time.Unix(0, at)) < lockBackoff {
		return min(lockRetry, c.timeout)
	}
	return c.timeout
}

type memKey struct {
	table    Table
	key      Key
	checksum string
}

// OpenCache returns a cache with opts. It does not create the file until an
// answer is committed.
func OpenCache(opts CacheOptions) (*Cache, error) {
	c := &Cache{timeout: opts.LockTimeout, log: opts.Logger, mem: map[memKey]int{}}
	if c.timeout <= 0 {
		c.timeout = 5 * time.Second
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	path := opts.Path
	if path == "" {
		path = os.Getenv(EnvCache)
	}
	if path == "" {
		path = DefaultCachePath()
	}
	if opts.Disabled || path == "off" {
		return c, nil
	}
	if dir := filepath.Dir(path); dir == privateTempDir() {
		if err := ensurePrivateDir(dir); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, status.Wrapf(err, status.InvalidArgument, "autotune: cache path %q", path)
	}
	c.path = abs
	return c, nil
}

// Path is the cache file's path, or "" when the file is disabled.
func (c *Cache) Path() string { return c.path }

// Warnings returns the problems met so far that did not stop the work,
// each once.
func (c *Cache) Warnings() []string {
	c.warnMu.Lock()
	defer c.warnMu.Unlock()
	return append([]string(nil), c.warnings...)
}

// warn records a warning and logs it, once per text: a locked or damaged
// file would otherwise repeat the same warning for every lookup.
func (c *Cache) warn(msg string, args ...any) {
	text := fmt.Sprintf(msg, args...)
	c.warnMu.Lock()
	seen := c.warned[text]
	if !seen {
		if c.warned == nil {
			c.warned = map[string]bool{}
		}
		c.warned[text] = true
		c.warnings = append(c.warnings, text)
	}
	c.warnMu.Unlock()
	if !seen {
		c.log.Warn(text)
	}
}

// Fastest returns the index of the fastest candidate for key from memory
// only. A hit allocates nothing.
func (c *Cache) Fastest(t Table, k Key, checksum string) (int, bool) {
	c.mu.RLock()
	i, ok := c.mem[memKey{t, k, checksum}]
	c.mu.RUnlock()
	return i, ok
}

// Lookup returns the fastest candidate for key: from memory, else from the
// file (re-read on every miss, so answers committed by other processes are
// found). An entry that does not decode, or a file that cannot be read, is
// a miss, with a warning.
func (c *Cache) Lookup(t Table, k Key, checksum string) (int, bool) {
	if i, ok := c.Fastest(t, k, checksum); ok {
		return i, true
	}
	e, err := c.Get(t, k, checksum)
	if err != nil || e == nil {
		return 0, false
	}
	c.remember(t, k, checksum, e.Fastest)
	return e.Fastest, true
}

func (c *Cache) remember(t Table, k Key, checksum string, fastest int) {
	c.mu.Lock()
	c.mem[memKey{t, k, checksum}] = fastest
	c.mu.Unlock()
}

// entryKey is the file's key of an entry: the tuning key and the checksum
// of the candidate list it was tuned under.
func entryKey(k Key, checksum string) []byte { return []byte(k.String() + "@" + checksum) }

// Get reads the entry for key and checksum from the file: nil, nil when
// there is none; an error with code DataLoss when one is there but does not
// decode, and the file's error when it cannot be read (see Cache), each
// with a warning.
func (c *Cache) Get(t Table, k Key, checksum string) (*Entry, error) {
	var e *Entry
	var decodeErr error
	err := c.view(func(tx *bolt.Tx) error {
		b := tableBucket(tx, t)
		if b == nil {
			return nil
		}
		v := b.Get(entryKey(k, checksum))
		if v == nil {
			return nil
		}
		e, decodeErr = DecodeEntry(v)
		return nil
	})
	if err != nil {
		c.warn("autotune: lookups miss: %v", err)
		return nil, err
	}
	if decodeErr != nil {
		c.warn("autotune: cache %s: %s: entry %s is unreadable and will be tuned again: %v", c.path, t, entryKey(k, checksum), decodeErr)
		return nil, decodeErr
	}
	return e, nil
}

// Commit stores e (for key and checksum) unless the file already holds a
// readable answer to the same question, in which case that answer is kept
// and returned: the first process to commit wins, so every process ends up
// using the same candidate. Entries of the same key under other checksums
// are removed. When the file cannot be written the answer is kept in
// memory, with a warning and the error.
func (c *Cache) Commit(t Table, k Key, checksum string, e *Entry) (*Entry, error) {
	e.Schema = SchemaVersion
	e.Key = k.String()
	e.Checksum = checksum
	data, err := json.Marshal(e)
	if err != nil {
		c.remember(t, k, checksum, e.Fastest)
		err = status.Wrap(err, status.Internal, "autotune: encoding cache entry")
		c.warn("autotune: %s: answer for %s kept in memory only: %v", t, k, err)
		return e, err
	}
	stored := e
	err = c.update(func(tx *bolt.Tx) error {
		b, err := createTable(tx, t)
		if err != nil {
			return err
		}
		ek := entryKey(k, checksum)
		if old := b.Get(ek); old != nil {
			prev, err := DecodeEntry(old)
			if err == nil {
				stored = prev
				return nil
			}
			c.warn("autotune: cache %s: %s: replacing unreadable entry %s: %v", c.path, t, ek, err)
		}
		prefix := []byte(k.String() + "@")
		cur := b.Cursor()
		var stale [][]byte
		for key, _ := cur.Seek(prefix); key != nil && bytes.HasPrefix(key, prefix); key, _ = cur.Next() {
			if !bytes.Equal(key, ek) {
				stale = append(stale, append([]byte(nil), key...))
			}
		}
		for _, key := range stale {
			if err := b.Delete(key); err != nil {
				return err
			}
		}
		return b.Put(ek, data)
	})
	c.remember(t, k, checksum, stored.Fastest)
	if err != nil {
		c.warn("autotune: %s: answer for %s kept in memory only: %v", t, k, err)
	}
	return stored, err
}

// Forget removes key's answer from memory (not from the file).
func (c *Cache) Forget(t Table, k Key, checksum string) {
	c.mu.Lock()
	delete(c.mem, memKey{t, k, checksum})
	c.mu.Unlock()
}

func tableBucket(tx *bolt.Tx, t Table) *bolt.Bucket {
	b := tx.Bucket([]byte(rootBucket))
	for _, name := range []string{schemaBucket, layoutBucket, t.Hardware, t.Tuner} {
		if b == nil {
			return nil
		}
		b = b.Bucket([]byte(name))
	}
	return b
}

func createTable(tx *bolt.Tx, t Table) (*bolt.Bucket, error) {
	if t.Hardware == "" || t.Tuner == "" {
		return nil, status.Newf(status.InvalidArgument, "autotune: table %q needs a hardware and a tuner name", t)
	}
	b, err := tx.CreateBucketIfNotExists([]byte(rootBucket))
	for _, name := range []string{schemaBucket, layoutBucket, t.Hardware, t.Tuner} {
		if err != nil {
			return nil, err
		}
		b, err = b.CreateBucketIfNotExists([]byte(name))
	}
	return b, err
}

// Errors of the file, other than the ones callers act on by code (see
// Cache): errLocked is lockFile's timeout.
var errLocked = errors.New("autotune: lock timeout")

// damageError marks a file that is not a usable bbolt database: bbolt
// refused it, panicked on it, faulted past the end of it, or its meta page
// claims more pages than the file holds.
type damageError struct {
	err error
	// file is the damaged file as it was opened (nil if unknown), so that
	// only that file is moved aside, never one that replaced it.
	file os.FileInfo
}

func (d *damageError) Error() string { return d.err.Error() }
func (d *damageError) Unwrap() error { return d.err }

// guard runs fn, which reads the file through bbolt, and turns a panic or
// a memory fault into a damageError. bbolt trusts the pages it maps: it
// panics on inconsistent ones and faults (SIGBUS) on pages past the end of
// a truncated file, which without SetPanicOnFault would kill the process.
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &damageError{err: fmt.Errorf("bbolt: %v", r)}
		}
	}()
	return fn()
}

// readerIdle is how long the read handle stays open after its last use.
const readerIdle = time.Second

// reader is a read-only handle on the file, kept between lookups so that a
// lookup does not pay for opening and mapping the file (a cost that grows
// with the file). It holds the file's shared lock only during a
// transaction, never between them, so it never delays another process's
// commit by more than one read.
type reader struct {
	db   *bolt.DB
	file *os.File
	// seen is the file as last read: a change of identity (moved aside and
	// replaced), size or modification time makes the handle stale.
	seen os.FileInfo
	used time.Time
	idle *time.Timer
}

// sameVersion reports whether b is the file a was, unchanged.
func sameVersion(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// view runs fn in a read transaction of the file. A missing or empty file,
// or a disabled one, runs nothing. The read path never changes the file: a
// damaged file is an error with code DataLoss (a miss to Lookup and Get,
// with a warning), and is moved aside by the next commit.
//
// Where the platform can take and release a file lock (flock), the
// read-only handle is kept open between calls (see reader); it is reopened
// when the file changed, and closed after readerIdle without use.
// Elsewhere the file is opened for each call.
func (c *Cache) view(fn func(*bolt.Tx) error) error {
	err, ferr := c.read(fn)
	if ferr != nil {
		return c.fileError(ferr, "reading")
	}
	return err
}

// read is view with fn's error and the file's (not yet wrapped by
// fileError) apart.
func (c *Cache) read(fn func(*bolt.Tx) error) (err, fileErr error) {
	if c.path == "" {
		return nil, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	rd, ferr := c.lockReader()
	if rd == nil || ferr != nil {
		return nil, ferr
	}
	err = guard(func() error {
		return rd.db.View(func(tx *bolt.Tx) error {
			if tx.Size() > rd.seen.Size() {
				return &damageError{err: fmt.Errorf("truncated: %d bytes, its meta page claims %d", rd.seen.Size(), tx.Size()), file: rd.seen}
			}
			return fn(tx)
		})
	})
	if canRelock {
		if uerr := unlockFile(rd.file); uerr != nil {
			c.dropReader()
			return nil, uerr
		}
	}
	d, damaged := errors.AsType[*damageError](err)
	if damaged || !canRelock {
		c.dropReader()
	} else {
		rd.used = time.Now()
	}
	if damaged {
		if d.file == nil {
			d.file = rd.seen
		}
		return nil, d
	}
	return err, nil
}

// lockReader returns the read handle with the file's shared lock held,
// opening the file if there is no handle or if the file changed since it
// was read; nil, nil when there is no file to read.
func (c *Cache) lockReader() (*reader, error) {
	if rd := c.rd; rd != nil {
		if err := lockFile(rd.file, false, c.lockWait()); err != nil {
			c.dropReader()
			return nil, err
		}
		if fi, err := os.Stat(c.path); err == nil && sameVersion(fi, rd.seen) {
			return rd, nil
		}
		c.dropReader()
	}
	fi, err := os.Stat(c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, notRegularError{fi.Mode()}
	case fi.Size() == 0:
		// Being created by another process, or left empty by one that
		// died before writing: nothing to read either way.
		return nil, nil
	}
	db, f, err := c.openDB(true)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // moved aside since the Stat
	}
	if err != nil {
		return nil, err
	}
	rd := &reader{db: db, file: f, used: time.Now()}
	// bolt.Open holds the shared lock: this is the version it mapped.
	if rd.seen, err = f.Stat(); err != nil {
		_ = guard(db.Close)
		return nil, err
	}
	if canRelock {
		rd.idle = time.AfterFunc(readerIdle, func() { c.closeIdle(rd) })
	}
	c.rd = rd
	return rd, nil
}

// closeIdle closes rd if it has not been used for readerIdle.
func (c *Cache) closeIdle(rd *reader) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.rd != rd {
		return
	}
	if idle := time.Since(rd.used); idle < readerIdle {
		rd.idle.Reset(readerIdle - idle)
		return
	}
	c.dropReader()
}

// dropReader closes the read handle, if any. c.rmu is held.
func (c *Cache) dropReader() {
	rd := c.rd
	if rd == nil {
		return
	}
	c.rd = nil
	if rd.idle != nil {
		rd.idle.Stop()
	}
	_ = guard(rd.db.Close) // read-only: nothing to flush, and the lock goes with the file
}

// update runs fn in a write transaction, creating the file if needed. A
// damaged file is moved aside (its new name in a warning) and fn runs
// again on a fresh one.
func (c *Cache) update(fn func(*bolt.Tx) error) error {
	if c.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return c.fileError(err, "creating the folder of")
	}
	for moved := 0; ; moved++ {
		err := c.updateOnce(fn)
		var d *damageError
		if !errors.As(err, &d) {
			return err
		}
		if moved == 2 {
			return c.fileError(err, "writing")
		}
		if err := c.moveAside(d); err != nil {
			return err
		}
	}
}

func (c *Cache) updateOnce(fn func(*bolt.Tx) error) error {
	// Read first: opening for writing loads the free list, which on a
	// truncated file lies past its end (bbolt would read whatever is
	// mapped there), and the read handle is usually open already.
	if _, ferr := c.read(func(*bolt.Tx) error { return nil }); ferr != nil {
		if d, ok := errors.AsType[*damageError](ferr); ok {
			return d
		}
		return c.fileError(ferr, "opening")
	}
	db, f, err := c.openDB(false)
	if err != nil {
		if _, ok := errors.AsType[*damageError](err); ok {
			return err
		}
		return c.fileError(err, "opening")
	}
	err = guard(func() error {
		return db.Update(func(tx *bolt.Tx) error {
			// A file cut short still has valid meta pages; writing to it
			// would grow it with zeroed pages where its tree expects data.
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			if tx.Size() > fi.Size() {
				return &damageError{err: fmt.Errorf("truncated: %d bytes, its meta page claims %d", fi.Size(), tx.Size()), file: fi}
			}
			return fn(tx)
		})
	})
	if d, ok := errors.AsType[*damageError](err); ok && d.file == nil {
		d.file, _ = f.Stat()
	}
	cerr := guard(db.Close)
	if err == nil && cerr != nil {
		return c.fileError(cerr, "closing")
	}
	if _, ok := errors.AsType[*damageError](err); ok {
		return err
	}
	if err == nil {
		return nil
	}
	// fn's own errors (NotFound from Clear, InvalidArgument from a bad
	// table name) carry a code and pass through; the rest come from
	// writing the file.
	if _, ok := errors.AsType[*fs.PathError](err); ok || status.CodeOf(err) == status.Unknown {
		return c.fileError(err, "writing")
	}
	return err
}

// openDB opens the file, waiting at most the lock timeout for other
// processes, and returns it with the *os.File bolt.Open opened (so that
// its lock can be released and retaken). Errors that mean the file is not
// a usable database are damageErrors.
func (c *Cache) openDB(readOnly bool) (*bolt.DB, *os.File, error) {
	var file *os.File
	var opened os.FileInfo
	opts := &bolt.Options{Timeout: c.lockWait(), ReadOnly: readOnly,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			if err == nil {
				file = f
				opened, _ = f.Stat()
			}
			return f, err
		}}
	var db *bolt.DB
	err := guard(func() error {
		var err error
		db, err = bolt.Open(c.path, 0o644, opts)
		return err
	})
	if err == nil {
		return db, file, nil
	}
	// A panic inside bolt.Open leaves its file open, mapped and locked.
	// The mapping cannot be undone from here (it is a leak of address
	// space, once per damaged file), and it keeps the open file, hence
	// its flock, alive: unlock explicitly. After an ordinary error bbolt
	// has closed the file, and both calls do nothing.
	if file != nil {
		_ = unlockFile(file)
		_ = file.Close()
	}
	if d, ok := errors.AsType[*damageError](err); ok {
		d.file = opened
		return nil, nil, d
	}
	if damaged(err) {
		return nil, nil, &damageError{err: err, file: opened}
	}
	return nil, nil, err
}

// damaged reports whether a bbolt open error means the file is not a
// usable database (as opposed to being locked, unreadable, or written by a
// newer bbolt: ErrVersionMismatch, which is left alone).
func damaged(err error) bool {
	return errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) ||
		errors.Is(err, berrors.ErrInvalidMapping) ||
		// bbolt's error for a file shorter than its two meta pages has no
		// type of its own.
		strings.Contains(err.Error(), "file size too small")
}

// fileError turns an error met while doing something to the file into one
// that names the file and has the code callers act on. Every failed file
// operation passes through it, so it is also where a lock timeout starts
// the back-off (see lockWait).
func (c *Cache) fileError(err error, doing string) error {
	if d, ok := errors.AsType[*damageError](err); ok {
		return status.Wrapf(d, status.DataLoss, "autotune: cache %s is damaged (it will be moved aside by the next commit)", c.path)
	}
	if _, ok := errors.AsType[notRegularError](err); ok {
		return status.Wrapf(err, status.FailedPrecondition, "autotune: cache %s is left as it is", c.path)
	}
	switch {
	case errors.Is(err, errLocked) || errors.Is(err, berrors.ErrTimeout):
		waited := c.lockWait()
		c.lockedAt.Store(time.Now().UnixNano())
		if waited < c.timeout {
			return status.Wrapf(err, status.Unavailable, "autotune: %s cache %s: still locked by another process (waited %v, after a wait of %v ran out less than %v ago)", doing, c.path, waited, c.timeout, lockBackoff)
		}
		return status.Wrapf(err, status.Unavailable, "autotune: %s cache %s: locked by another process for more than %v", doing, c.path, c.timeout)
	case errors.Is(err, berrors.ErrVersionMismatch):
		return status.Wrapf(err, status.Incompatible, "autotune: cache %s was written by a newer bbolt; it is left as it is", c.path)
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return status.Wrapf(err, status.PermissionDenied, "autotune: %s cache %s", doing, c.path)
	case status.CodeOf(err) != status.Unknown:
		return status.Wrapf(err, status.CodeOf(err), "autotune: %s cache %s", doing, c.path)
	}
	return status.Wrapf(err, status.FailedPrecondition, "autotune: %s cache %s", doing, c.path)
}

// notRegularError is the error of a cache path that names a folder, a
// device or the like: it is neither used nor moved aside.
type notRegularError struct{ mode fs.FileMode }

func (e notRegularError) Error() string { return fmt.Sprintf("not a regular file (%v)", e.mode.Type()) }

// moveAside renames the damaged file to <path>.damaged-<time>-<pid>, with a
// warning that names it, so that a fresh one can start. It moves only the
// file found damaged, and (where the platform can lock) only while holding
// its exclusive lock after checking that the path still names it: of two
// processes that find the same file damaged, the second must not move
// aside the fresh file the first one started.
func (c *Cache) moveAside(d *damageError) (err error) {
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // moved aside by another process: try again
	}
	if err != nil {
		return c.fileError(status.Join(d, err), "moving aside")
	}
	defer func() { err = status.Join(err, f.Close()) }()
	if canRelock {
		if err := lockFile(f, true, c.lockWait()); err != nil {
			return c.fileError(err, "moving aside")
		}
	}
	held, err := f.Stat()
	if err != nil {
		return c.fileError(err, "moving aside")
	}
	cur, err := os.Stat(c.path)
	if err != nil || !os.SameFile(held, cur) || (d.file != nil && !os.SameFile(held, d.file)) {
		return nil // replaced by another process: try the new one
	}
	aside := fmt.Sprintf("%s.damaged-%s-%d", c.path, time.Now().UTC().Format("20060102T150405.000000000"), os.Getpid())
	if err := os.Rename(c.path, aside); err != nil {
		return status.Wrapf(status.Join(d, err), status.DataLoss, "autotune: cache %s is damaged and could not be moved aside", c.path)
	}
	c.warn("autotune: cache %s was damaged (%v); moved it to %s and started a fresh one", c.path, d.err, aside)
	return nil
}

// Tables lists the tables in the file.
func (c *Cache) Tables() ([]Table, error) {
	var out []Table
	err := c.view(func(tx *bolt.Tx) error {
		root := tx.Bucket([]byte(rootBucket))
		if root == nil {
			return nil
		}
		s := root.Bucket([]byte(schemaBucket))
		if s == nil {
			return nil
		}
		l := s.Bucket([]byte(layoutBucket))
		if l == nil {
			return nil
		}
		return l.ForEachBucket(func(hw []byte) error {
			return l.Bucket(hw).ForEachBucket(func(tuner []byte) error {
				out = append(out, Table{Hardware: string(hw), Tuner: string(tuner)})
				return nil
			})
		})
	})
	return out, err
}

// Entries returns the readable entries of a table, in key order; entries
// that do not decode are skipped with a warning.
func (c *Cache) Entries(t Table) ([]*Entry, error) {
	var out []*Entry
	err := c.view(func(tx *bolt.Tx) error {
		b := tableBucket(tx, t)
		if b == nil {
			return status.Newf(status.NotFound, "autotune: no table %s", t)
		}
		return b.ForEach(func(k, v []byte) error {
			e, err := DecodeEntry(v)
			if err != nil {
				c.warn("autotune: cache %s: %s: skipping unreadable entry %s: %v", c.path, t, k, err)
				return nil
			}
			out = append(out, e)
			return nil
		})
	})
	return out, err
}

// Clear removes table t from the file and from memory; a nil t removes
// every table.
func (c *Cache) Clear(t *Table) error {
	c.mu.Lock()
	for k := range c.mem {
		if t == nil || k.table == *t {
			delete(c.mem, k)
		}
	}
	c.mu.Unlock()
	if c.path == "" {
		return nil
	}
	if _, err := os.Stat(c.path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return c.update(func(tx *bolt.Tx) error {
		root := tx.Bucket([]byte(rootBucket))
		if t == nil {
			// Only this schema's tables: another version's stay as they are.
			if root == nil || root.Bucket([]byte(schemaBucket)) == nil {
				return nil
			}
			return root.DeleteBucket([]byte(schemaBucket))
		}
		if root == nil {
			return nil
		}
		b := root.Bucket([]byte(schemaBucket))
		if b != nil {
			b = b.Bucket([]byte(layoutBucket))
		}
		if b != nil {
			b = b.Bucket([]byte(t.Hardware))
		}
		if b == nil || b.Bucket([]byte(t.Tuner)) == nil {
			return status.Newf(status.NotFound, "autotune: no table %s", t)
		}
		return b.DeleteBucket([]byte(t.Tuner))
	})
}

// exportFile is the format of Export and Import.
type exportFile struct {
	Schema  int      `json:"schema"`
	Table   Table    `json:"table"`
	Entries []*Entry `json:"entries"`
}

// Export writes table t as JSON to w.
func (c *Cache) Export(w io.Writer, t Table) error {
	entries, err := c.Entries(t)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(exportFile{Schema: SchemaVersion, Table: t, Entries: entries})
}

// Import reads what Export wrote and commits its entries into the table of
// the same name. Answers measured on other hardware do not apply: importing
// into a table whose hardware is not hardware fails unless force is set
// (hardware "" accepts any). It returns the number of entries imported;
// entries already present are kept.
func (c *Cache) Import(r io.Reader, hardware string, force bool) (Table, int, error) {
	var f exportFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return Table{}, 0, status.Wrap(err, status.InvalidArgument, "autotune: import file does not decode")
	}
	if f.Schema != SchemaVersion {
		return f.Table, 0, status.Newf(status.Incompatible, "autotune: import file has schema %d, want %d", f.Schema, SchemaVersion)
	}
	if hardware != "" && f.Table.Hardware != hardware && !force {
		return f.Table, 0, status.Newf(status.FailedPrecondition, "autotune: import file was measured on %s, not %s (force to import anyway)", f.Table.Hardware, hardware)
	}
	if hardware != "" {
		f.Table.Hardware = hardware
	}
	n := 0
	for _, e := range f.Entries {
		k, err := ParseKey(e.Key)
		if err != nil {
			return f.Table, n, status.Annotate(err, "autotune: import file")
		}
		if _, err := c.Commit(f.Table, k, e.Checksum, e); err != nil {
			return f.Table, n, err
		}
		n++
	}
	return f.Table, n, nil
}

// replace stores e over any answer to the same question (a forced
// re-tune).
func (c *Cache) replace(t Table, k Key, checksum string, e *Entry) error {
	e.Schema, e.Key, e.Checksum = SchemaVersion, k.String(), checksum
	data, err := json.Marshal(e)
	if err != nil {
		return status.Wrap(err, status.Internal, "autotune: encoding cache entry")
	}
	err = c.update(func(tx *bolt.Tx) error {
		b, err := createTable(tx, t)
		if err != nil {
			return err
		}
		return b.Put(entryKey(k, checksum), data)
	})
	c.remember(t, k, checksum, e.Fastest)
	if err != nil {
		c.warn("autotune: %s: answer for %s kept in memory only: %v", t, k, err)
	}
	return err
}

// peaksBucket holds each hardware's measured peak, as JSON, outside the
// tuning tables.
const peaksBucket = "peaks"

// PeakRecord is a stored peak measurement.
type PeakRecord struct {
	Peak
	Device  string    `json:"device"`
	Version string    `json:"vkbench_version"`
	Time    time.Time `json:"time"`
}

// SavePeak stores the peak measured on hardware, replacing any earlier one.
func (c *Cache) SavePeak(hardware string, p PeakRecord) error {
	data, err := json.Marshal(p)
	if err != nil {
		return status.Wrap(err, status.Internal, "autotune: encoding peak")
	}
	return c.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(peaksBucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(hardware), data)
	})
}

// LoadPeak returns the peak stored for hardware, if any. A file that
// cannot be read is an error and a warning.
func (c *Cache) LoadPeak(hardware string) (*PeakRecord, error) {
	var out *PeakRecord
	err := c.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(peaksBucket))
		if b == nil {
			return nil
		}
		v := b.Get([]byte(hardware))
		if v == nil {
			return nil
		}
		var p PeakRecord
		if err := json.Unmarshal(v, &p); err != nil {
			c.warn("autotune: cache %s: stored peak of %s is unreadable: %v", c.path, hardware, err)
			return nil
		}
		out = &p
		return nil
	})
	if err != nil {
		c.warn("autotune: stored peaks not read: %v", err)
	}
	return out, err
}

// pipelineBucket holds driver pipeline caches by pipeline-cache UUID.
const pipelineBucket = "pipeline-caches"

// SavePipelineCache stores a driver's pipeline cache data under its
// pipeline-cache UUID.
func (c *Cache) SavePipelineCache(uuid [16]byte, data []byte) error {
	return c.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(pipelineBucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(fmt.Sprintf("%x", uuid)), data)
	})
}

// LoadPipelineCache returns the pipeline cache stored for uuid, or nil. A
// file that cannot be read is an error and a warning.
func (c *Cache) LoadPipelineCache(uuid [16]byte) ([]byte, error) {
	var out []byte
	err := c.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(pipelineBucket)); b != nil {
			out = bytes.Clone(b.Get([]byte(fmt.Sprintf("%x", uuid))))
		}
		return nil
	})
	if err != nil {
		c.warn("autotune: stored pipeline caches not read: %v", err)
	}
	return out, err
}
