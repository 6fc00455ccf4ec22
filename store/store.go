package store

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/vkbench/vkbench/status"
)

// EnvCache names the environment variable that overrides the cache file's
// path; the value "off" disables the file.
const EnvCache = "VKBENCH_CACHE"

// Options configure a Store.
type Options struct {
	// Path of the bbolt file. Empty means the VKBENCH_CACHE environment
	// variable, else DefaultCachePath(). "off" keeps nothing: no file is
	// touched, reads find nothing and writes keep nothing.
	Path string
	// LockTimeout bounds how long an operation waits for another process
	// holding the file; 5 s if zero. Past it a read finds nothing and a
	// write keeps nothing, each with a warning.
	LockTimeout time.Duration
	// Logger receives warnings; slog.Default() if nil.
	Logger *slog.Logger
	// Shared is the URL of a shared store, the tier above the file that a
	// fleet of machines shares ("" for none): redis://[user:password@]host:port/db,
	// or rediss:// for TLS, once store/redis is imported. The password
	// may come from $VKBENCH_STORE_PASSWORD instead. See Pinger.
	Shared string
}

// Store keeps the tune cache's tables, tuning logs, peaks and pipeline
// caches in a Backend: by default a bbolt file that several processes may
// share. A write takes bbolt's exclusive lock, a read the shared lock, for
// one transaction; between reads the file stays open (and mapped) but
// unlocked for up to a second, and is reopened when another process
// changed it. A process killed at any moment leaves the file with every
// write that had returned, each complete, and nothing of the one in
// flight.
//
// # Problems with the file
//
// None of them stops the work; each is a warning (see Warnings) that names
// the file, and an error from the method that met it, with this code:
//
//   - locked by another process for longer than the lock timeout:
//     Unavailable. Reads find nothing, writes keep nothing. For 30 s after
//     such a timeout, waits for the lock last at most 50 ms.
//   - not writable: PermissionDenied or FailedPrecondition. Reads read the
//     file if they can.
//   - damaged (truncated, a bad checksum, pages bbolt cannot follow):
//     DataLoss. Reads find nothing; the next write renames it to
//     <path>.damaged-<time>-<pid>, says so in a warning, and starts a
//     fresh file.
//   - another program's: a file bbolt did not write, or a bbolt file not
//     marked as a tune cache with tables at its root that this package
//     does not write (the error names them): FailedPrecondition. Reads
//     find nothing and writes keep nothing; it is never changed or moved
//     aside.
//   - written by a newer bbolt file format: Incompatible. Left as it is.
//
// A Store is safe for concurrent use.
type Store struct {
	b    Backend // nowhere when disabled
	path string  // the file's, "" when disabled
	log  *slog.Logger

	// shared is the shared tier (Options.Shared), nil if none; tier and
	// warnTo (the Store whose warnings its are) are set on the tier's own.
	shared *Store
	tier   *sharedTier
	warnTo *Store

	warnMu   sync.Mutex
	warnings []string
}

// Open returns the store opts name. It does not create the file until
// something is written.
func Open(opts Options) (*Store, error) { return OpenContext(context.Background(), opts) }

// OpenContext is Open, whose question to a shared store (Pinger) ends
// when ctx does, with ctx's error: a store that does not answer holds a
// cancelled caller no longer than one that does.
func OpenContext(ctx context.Context, opts Options) (*Store, error) {
	s := &Store{b: nowhere{}, log: cmp.Or(opts.Logger, slog.Default())}
	path := cmp.Or(opts.Path, os.Getenv(EnvCache), DefaultCachePath())
	if opts.Shared != "" {
		shared, err := s.openShared(ctx, opts.Shared)
		if err != nil {
			return nil, err
		}
		s.shared = shared
	}
	if path == "off" {
		return s, nil
	}
	if dir := filepath.Dir(path); dir == privateTempDir() {
		if err := ensurePrivateDir(dir); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, status.Wrapf(err, status.InvalidArgument, "store: cache path %q", path)
	}
	s.path, s.b = abs, newBoltFile(abs, cmp.Or(max(opts.LockTimeout, 0), 5*time.Second), s.Warn)
	return s, nil
}

// New returns a store that keeps its tables in b (nil keeps nothing, as
// a disabled store), with warnings to logger (slog.Default() if nil).
func New(b Backend, logger *slog.Logger) *Store {
	return &Store{b: cmp.Or(b, Backend(nowhere{})), log: cmp.Or(logger, slog.Default())}
}

// Path is the cache file's path, "" when there is no file; for a shared
// tier (Shared), its URL without the password.
func (s *Store) Path() string { return s.path }

// CheckRead reports whether the file is a tune cache, reading none of
// its tables: a file of another program, or a path that is not a regular
// file, is FailedPrecondition. Anything else (no file yet, damage, a
// lock, a newer bbolt) is nil, left to the reads and writes that follow;
// so is a store without a file. A command asks before any work. It waits
// for another process's lock on the file a moment at most.
func (s *Store) CheckRead(ctx context.Context) error {
	if bf, ok := s.b.(*boltFile); ok {
		return bf.check(ctx)
	}
	return nil
}

// CheckWrite reports whether a write to the file would be taken now,
// writing nothing: what CheckRead refuses, and another process holding
// its lock for longer than the lock timeout (Unavailable). A command that
// must store what it measures asks before measuring.
func (s *Store) CheckWrite(ctx context.Context) error {
	if bf, ok := s.b.(*boltFile); ok {
		return bf.probeWrite(ctx)
	}
	return nil
}

// nowhere is a disabled store's Backend: reads find nothing and writes
// keep nothing.
type nowhere struct{}

func (nowhere) View(context.Context, func(Tx) error) error   { return nil }
func (nowhere) Update(context.Context, func(Tx) error) error { return nil }

// Warnings returns the problems met so far that did not stop the work,
// each once.
func (s *Store) Warnings() []string {
	if s.warnTo != nil {
		return s.warnTo.Warnings()
	}
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	return append([]string(nil), s.warnings...)
}

// Warn records a warning and logs it, once per text: a locked or damaged
// file would otherwise repeat it for every lookup. A failure of the
// shared tier among args is no new warning: the tier said so once. Owners
// of the values warn here of one that does not decode.
func (s *Store) Warn(format string, args ...any) {
	if saidOnce(args) {
		return
	}
	if s.warnTo != nil {
		s.warnTo.Warn(format, args...)
		return
	}
	text := fmt.Sprintf(format, args...)
	s.warnMu.Lock()
	seen := slices.Contains(s.warnings, text)
	if !seen {
		s.warnings = append(s.warnings, text)
	}
	s.warnMu.Unlock()
	if !seen {
		s.log.Warn(text)
	}
}
