package store

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/vkbench/vkbench/status"
)

// boltFile is the local Backend: a bbolt file that several processes
// share (see Store for what each problem does). Tables are buckets,
// nested as their paths are.
type boltFile struct {
	path    string
	timeout time.Duration
	warn    func(format string, args ...any)

	// rmu serialises reads of the file and guards rd: a one-place
	// semaphore (a send takes it, a receive gives it back), which a
	// caller whose context ends stops waiting for.
	rmu chan struct{}
	rd  *reader

	// lockedAt is when a wait for another process's lock last ran out
	// (UnixNano; 0 if never): for lockBackoff after it, waits are short.
	lockedAt atomic.Int64
}

var _ Locker = (*boltFile)(nil)

func newBoltFile(path string, timeout time.Duration, warn func(format string, args ...any)) *boltFile {
	return &boltFile{path: path, timeout: timeout, warn: warn, rmu: make(chan struct{}, 1)}
}

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

// guard runs fn, which reads the file through bbolt, and turns a panic
// raised in bbolt or a memory fault into a damageError: bbolt panics on
// inconsistent pages and faults (SIGBUS) on pages past the end of a
// truncated file. Any other panic, of a transaction function's own code,
// is a callerPanic, which read and updateOnce raise again once the
// transaction is rolled back and the file let go.
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &damageError{err: fmt.Errorf("bbolt: %v", r)}
			if _, fault := r.(interface {
				runtime.Error
				Addr() uintptr
			}); !fault && !bboltPanicked() {
				err = callerPanic{r, debug.Stack()}
			}
		}
	}()
	return fn()
}

// callerPanic is a panic of a transaction function's own code, with the
// stack it was raised on, so that raised again it names the code that
// panicked; an error value stays open to errors.Is and errors.As.
type callerPanic struct {
	value any
	stack []byte
}

func (p callerPanic) Error() string {
	return fmt.Sprintf("%v\n\nraised in a store transaction, on this stack:\n%s", p.value, p.stack)
}

func (p callerPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}

// bboltPanicked reports whether the panic that the deferred function
// calling it is recovering was raised in bbolt: from the panic up, the
// first function of bbolt or of this package decides.
func bboltPanicked() bool {
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(1, pc)])
	panicking := false
	for f, more := frames.Next(); more; f, more = frames.Next() {
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && strings.HasPrefix(f.Function, "go.etcd.io/bbolt"):
			return true
		case panicking && strings.HasPrefix(f.Function, "github.com/vkbench/vkbench/store."):
			return false
		}
	}
	return false
}

// readerIdle is how long the read handle stays open after its last use.
const readerIdle = time.Second

// reader is a read-only handle on the file, kept between lookups so that a
// lookup does not pay for opening and mapping the file. It holds the
// file's shared lock only during a transaction.
type reader struct {
	db *bolt.DB
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

// View runs fn in a read transaction of the file, through the read
// handle (reader; opened for each call where !canRelock). A missing or
// empty file runs nothing. The read path never changes the file: a
// damaged file is an error with code DataLoss, moved aside by the next
// commit.
func (bf *boltFile) View(ctx context.Context, fn func(Tx) error) error {
	err, ferr := bf.read(ctx, bf.lockWait(), fn)
	if ferr != nil {
		return bf.fileError(ferr, "reading")
	}
	return err
}

// read is View, waiting at most wait for another process's lock, with
// fn's error and the file's (not yet wrapped by fileError) apart.
func (bf *boltFile) read(ctx context.Context, wait time.Duration, fn func(Tx) error) (err, fileErr error) {
	if err := ctx.Err(); err != nil {
		return nil, err // ended already: the select below could take the free lock
	}
	select {
	case bf.rmu <- struct{}{}:
	case <-ctx.Done():
		// Another read of this process holds it, waiting for another
		// process's lock perhaps: ctx bounds this one's wait too.
		return nil, ctx.Err()
	}
	defer func() { <-bf.rmu }()
	rd, unlock, ferr := bf.lockReader(ctx, wait)
	if rd == nil || ferr != nil {
		return nil, ferr
	}
	err = guard(func() error {
		return rd.db.View(func(tx *bolt.Tx) error {
			if err := checkOwner(tx); err != nil {
				return err
			}
			if err := truncated(tx, rd.seen); err != nil {
				return err
			}
			return fn(&boltTx{tx: tx})
		})
	})
	if uerr := unlock(); uerr != nil {
		bf.dropReader()
		return nil, uerr
	}
	d, damaged := errors.AsType[*damageError](err)
	_, foreign := err.(foreignError)
	if damaged || foreign || !canRelock {
		bf.dropReader()
	} else {
		rd.used = time.Now()
	}
	switch {
	case damaged:
		d.file = cmp.Or(d.file, rd.seen)
		return nil, d
	case foreign:
		return nil, err
	}
	if p, ok := err.(callerPanic); ok {
		panic(p)
	}
	return err, nil
}

// lockReader returns the read handle with the file's shared lock held
// (waiting at most wait for it), and the function that releases it,
// opening the file if there is no handle or if the file changed since it
// was read; nil when there is no file to read.
func (bf *boltFile) lockReader(ctx context.Context, wait time.Duration) (*reader, func() error, error) {
	if rd := bf.rd; rd != nil {
		fl, err := lockPath(ctx, bf.path, os.O_RDONLY, false, wait)
		if err == nil {
			// The lock is on the file the path names now: the one
			// mapped, or one that replaced it.
			if fi, err := fl.Stat(); err == nil && sameVersion(fi, rd.seen) {
				return rd, fl.Unlock, nil
			}
			_ = fl.Unlock() // nothing was read under it
		}
		bf.dropReader()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
	}
	fi, err := os.Stat(bf.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, err
	case !fi.Mode().IsRegular():
		return nil, nil, notRegularError{fi.Mode()}
	case fi.Size() == 0:
		// Being created by another process, or left empty by one that
		// died before writing: nothing to read either way.
		return nil, nil, nil
	}
	db, f, err := bf.openDB(ctx, true, wait)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil // moved aside since the Stat
	}
	if err != nil {
		return nil, nil, err
	}
	rd := &reader{db: db, used: time.Now()}
	// bolt.Open holds the shared lock: this is the version it mapped.
	if rd.seen, err = f.Stat(); err != nil {
		_ = guard(db.Close)
		return nil, nil, err
	}
	if canRelock {
		rd.idle = time.AfterFunc(readerIdle, func() { bf.closeIdle(rd) })
	}
	bf.rd = rd
	return rd, func() error { return unlockFile(f) }, nil
}

// closeIdle closes rd if it has not been used for readerIdle.
func (bf *boltFile) closeIdle(rd *reader) {
	bf.rmu <- struct{}{}
	defer func() { <-bf.rmu }()
	if bf.rd != rd {
		return
	}
	if idle := time.Since(rd.used); idle < readerIdle {
		rd.idle.Reset(readerIdle - idle)
		return
	}
	bf.dropReader()
}

// dropReader closes the read handle, if any. bf.rmu is held.
func (bf *boltFile) dropReader() {
	rd := bf.rd
	if rd == nil {
		return
	}
	bf.rd = nil
	if rd.idle != nil {
		rd.idle.Stop()
	}
	_ = guard(rd.db.Close) // read-only: nothing to flush, and the lock goes with the file
}

// truncated is a damageError when the file, as fi describes it, is
// shorter than tx's meta page says it is.
func truncated(tx *bolt.Tx, fi os.FileInfo) error {
	if tx.Size() > fi.Size() {
		return &damageError{err: fmt.Errorf("truncated: %d bytes, its meta page claims %d", fi.Size(), tx.Size()), file: fi}
	}
	return nil
}

// Update runs fn in a write transaction, creating the file if needed. A
// damaged file is moved aside (its new name in a warning) and fn runs
// again on a fresh one. A ctx that ends while it waits leaves fn not run,
// or its transaction not committed.
func (bf *boltFile) Update(ctx context.Context, fn func(Tx) error) error {
	if err := os.MkdirAll(filepath.Dir(bf.path), 0o755); err != nil {
		return bf.fileError(err, "creating the folder of")
	}
	for moved := 0; ; moved++ {
		err := bf.updateOnce(ctx, fn)
		d, ok := errors.AsType[*damageError](err)
		if !ok {
			return err
		}
		if moved == 2 {
			return bf.fileError(err, "writing")
		}
		if err := bf.moveAside(ctx, d); err != nil {
			return err
		}
	}
}

func (bf *boltFile) updateOnce(ctx context.Context, fn func(Tx) error) error {
	// Read first: opening for writing loads the free list, which on a
	// truncated file lies past its end (bbolt would read whatever is
	// mapped there), and the read handle is usually open already.
	if _, ferr := bf.read(ctx, bf.lockWait(), func(Tx) error { return nil }); ferr != nil {
		return bf.openError(ferr)
	}
	db, f, err := bf.openDB(ctx, false, bf.lockWait())
	if err != nil {
		return bf.openError(err)
	}
	var own error // fn's own error, returned as it is
	err = guard(func() error {
		return db.Update(func(tx *bolt.Tx) error {
			// A file cut short still has valid meta pages; writing to it
			// would grow it with zeroed pages where its tree expects data.
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			if err := truncated(tx, fi); err != nil {
				return err
			}
			// Read as another program's file a moment ago, or not yet.
			if err := mark(tx); err != nil {
				return err
			}
			btx := &boltTx{tx: tx}
			if err := fn(btx); err != nil {
				if btx.err == nil {
					own = err
				}
				return err
			}
			return nil
		})
	})
	d, damaged := errors.AsType[*damageError](err)
	if damaged && d.file == nil {
		d.file, _ = f.Stat()
	}
	cerr := guard(db.Close)
	if p, ok := err.(callerPanic); ok {
		panic(p)
	}
	switch {
	case err == nil && cerr != nil:
		return bf.fileError(cerr, "closing")
	case err == nil || damaged || own != nil:
		return err
	}
	return bf.fileError(err, "writing")
}

// check opens the file, reading none of its tables, to refuse one that
// is not a tune cache (owner.go); anything else is nil, but for ctx's
// end (Store.CheckRead).
func (bf *boltFile) check(ctx context.Context) error {
	_, ferr := bf.read(ctx, min(lockRetry, bf.timeout), func(Tx) error { return nil })
	switch ferr.(type) {
	case notCacheError, foreignError, notRegularError:
		return bf.fileError(ferr, "reading")
	}
	if ctx.Err() != nil {
		return bf.fileError(ctx.Err(), "reading")
	}
	return nil
}

// probeWrite waits for the file's exclusive lock as a commit would and
// lets it go at once, and refuses what check refuses (Store.CheckWrite).
// A platform without flock says nothing of locks.
func (bf *boltFile) probeWrite(ctx context.Context) error {
	if canRelock {
		fl, err := lockPath(ctx, bf.path, os.O_RDWR, true, bf.timeout)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return bf.fileError(err, "writing")
		}
		if err := fl.Unlock(); err != nil {
			return bf.fileError(err, "writing")
		}
	}
	return bf.check(ctx)
}

// openError is err, met opening the file: damage as it is, for update to
// move the file aside; anything else named by fileError.
func (bf *boltFile) openError(err error) error {
	if _, ok := errors.AsType[*damageError](err); ok {
		return err
	}
	return bf.fileError(err, "opening")
}

// openDB opens the file, waiting at most wait for other processes'
// locks, and returns it with the *os.File bolt.Open opened (so that its
// lock can be released and retaken). Errors that mean the file is not a
// usable database are damageErrors.
func (bf *boltFile) openDB(ctx context.Context, readOnly bool, wait time.Duration) (*bolt.DB, *os.File, error) {
	var file *os.File
	var opened os.FileInfo
	opts := &bolt.Options{Timeout: wait, ReadOnly: readOnly,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			if err == nil {
				// The wait is this package's, which ctx ends (bbolt's
				// knows only its timeout): bolt.Open then finds the
				// lock its descriptor needs already held by it.
				if err = lockWithin(ctx, wait, func(ctx context.Context) error { return lockFile(ctx, f, !readOnly) }); err != nil {
					_ = f.Close()
					return nil, err
				}
				file = f
				opened, _ = f.Stat()
			}
			return f, err
		}}
	var db *bolt.DB
	err := guard(func() (err error) {
		db, err = bolt.Open(bf.path, 0o644, opts)
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
		if !boltHeader(bf.path) {
			return nil, nil, notCacheError{}
		}
		return nil, nil, &damageError{err: err, file: opened}
	}
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, nil, lockedError{opts.Timeout}
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
// that names the file and has the code callers act on; a lock timeout
// starts the back-off (see lockWait) here.
func (bf *boltFile) fileError(err error, doing string) error {
	if d, ok := errors.AsType[*damageError](err); ok {
		return status.Wrapf(d, status.DataLoss, "store: cache %s is damaged (it will be moved aside by the next commit)", bf.path)
	}
	switch err.(type) {
	case notCacheError:
		return status.Wrapf(err, status.FailedPrecondition, "store: cache %s is not a tune cache; it is left as it is (use another file, or remove it)", bf.path)
	case foreignError:
		return status.Newf(status.FailedPrecondition, "store: cache %s is %v; it is left as it is (use another file, or remove it)", bf.path, err)
	case notRegularError:
		return status.Wrapf(err, status.FailedPrecondition, "store: cache %s is left as it is", bf.path)
	}
	if l, ok := errors.AsType[lockedError](err); ok {
		bf.lockedAt.Store(time.Now().UnixNano())
		if l.waited < bf.timeout {
			return status.Wrapf(err, status.Unavailable, "store: %s cache %s: still locked by another process (waited %v, after a wait of %v ran out less than %v ago)", doing, bf.path, l.waited, bf.timeout, lockBackoff)
		}
		return status.Wrapf(err, status.Unavailable, "store: %s cache %s: locked by another process for more than %v", doing, bf.path, l.waited)
	}
	switch {
	case errors.Is(err, berrors.ErrVersionMismatch):
		return status.Wrapf(err, status.Incompatible, "store: cache %s was written by a newer bbolt; it is left as it is", bf.path)
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return status.Wrapf(err, status.PermissionDenied, "store: %s cache %s", doing, bf.path)
	case status.CodeOf(err) != status.Unknown:
		return status.Wrapf(err, status.CodeOf(err), "store: %s cache %s", doing, bf.path)
	}
	return status.Wrapf(err, status.FailedPrecondition, "store: %s cache %s", doing, bf.path)
}

// moveAside renames the damaged file to <path>.damaged-<time>-<pid>, with a
// warning that names it. It moves only the file found damaged, holding
// its exclusive lock where the platform can: of two processes that find
// the same file damaged, the second must not move aside the fresh file
// the first one started.
func (bf *boltFile) moveAside(ctx context.Context, d *damageError) (err error) {
	held, err := os.Stat(bf.path)
	if err == nil && canRelock {
		var fl *flock.Flock
		fl, err = lockPath(ctx, bf.path, os.O_RDONLY, true, bf.lockWait())
		if _, locked := errors.AsType[lockedError](err); locked || ctx.Err() != nil {
			return bf.fileError(err, "moving aside")
		} else if err == nil {
			defer func() { err = status.Join(err, fl.Unlock()) }()
			held, err = fl.Stat()
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil // moved aside by another process: try again
	}
	if err != nil {
		return bf.fileError(status.Join(d, err), "moving aside")
	}
	cur, err := os.Stat(bf.path)
	if err != nil || !os.SameFile(held, cur) || (d.file != nil && !os.SameFile(held, d.file)) {
		return nil // replaced by another process: try the new one
	}
	aside := fmt.Sprintf("%s.damaged-%s-%d", bf.path, time.Now().UTC().Format("20060102T150405.000000000"), os.Getpid())
	if err := os.Rename(bf.path, aside); err != nil {
		return status.Wrapf(status.Join(d, err), status.DataLoss, "store: cache %s is damaged and could not be moved aside", bf.path)
	}
	bf.warn("store: cache %s was damaged (%v); moved it to %s and started a fresh one", bf.path, d.err, aside)
	return nil
}

// The file holds locks as a shared tier's backend does (Locker). A lock is
// a value of locksTable: when it expires (Unix nanoseconds, 8 bytes
// big-endian), then its holder's token.
var locksTable = []string{"locks"}

// lockHolder returns the token a lock's value names, and whether the
// lock is still held at now.
func lockHolder(v []byte, now time.Time) (token string, live bool) {
	if len(v) < 8 {
		return "", false
	}
	return string(v[8:]), int64(binary.BigEndian.Uint64(v)) > now.UnixNano()
}

// setLock calls fn with lock name's holder, and gives the lock to the
// token fn returns for ttl, or releases it where that is "", if fn says
// set: in one transaction, so of several processes only one sees the lock
// free.
func (bf *boltFile) setLock(ctx context.Context, name string, ttl time.Duration, fn func(holder string, live bool) (token string, set bool)) error {
	return bf.Update(ctx, func(tx Tx) error {
		now := time.Now()
		token, set := fn(lockHolder(tx.Get(locksTable, []byte(name)), now))
		switch {
		case !set:
			return nil
		case token == "":
			return tx.Delete(locksTable, []byte(name))
		}
		return tx.Put(locksTable, []byte(name), append(binary.BigEndian.AppendUint64(nil, uint64(now.Add(ttl).UnixNano())), token...))
	})
}

// TryLock takes lock name for token, for ttl, where nobody holds it.
func (bf *boltFile) TryLock(ctx context.Context, name, token string, ttl time.Duration) (holder string, err error) {
	// Looked at first in a read: those who wait ask a few times a second,
	// and a write transaction syncs the file.
	err = bf.View(ctx, func(tx Tx) error {
		if h, live := lockHolder(tx.Get(locksTable, []byte(name)), time.Now()); live {
			holder = h
		}
		return nil
	})
	if err != nil || holder != "" {
		return holder, err
	}
	err = bf.setLock(ctx, name, ttl, func(h string, live bool) (string, bool) {
		if live {
			holder = h
		}
		return token, !live
	})
	return holder, err
}

// Unlock releases lock name where token holds it (or held it last: an
// expired lock's value goes too).
func (bf *boltFile) Unlock(name, token string) error {
	return bf.setLock(context.Background(), name, 0, func(h string, _ bool) (string, bool) { return "", h == token })
}

// Replace gives lock name to token for ttl where stale still holds it.
func (bf *boltFile) Replace(ctx context.Context, name, stale, token string, ttl time.Duration) (ok bool, err error) {
	err = bf.setLock(ctx, name, ttl, func(h string, live bool) (string, bool) {
		ok = live && h == stale
		return token, ok
	})
	return ok, err
}
