package autotune

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

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
	return strings.Join(t.path(), "/")
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
	// boltFile is the file, shared with other processes; the answers in
	// memory are the cache's own.
	*boltFile

	mu  sync.RWMutex
	mem map[memKey]int
}

type memKey struct {
	table    Table
	key      Key
	checksum string
}

// OpenCache returns a cache with opts. It does not create the file until an
// answer is committed.
func OpenCache(opts CacheOptions) (*Cache, error) {
	c := &Cache{boltFile: &boltFile{timeout: positiveOr(opts.LockTimeout, 5*time.Second), log: cmp.Or(opts.Logger, slog.Default())},
		mem: map[memKey]int{}}
	path := cmp.Or(opts.Path, os.Getenv(EnvCache))
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

// family is the candidate list a checksum is of: the checksum itself, or
// for a subset of a list (subsetChecksum) the list's, before the "+".
func family(checksum string) string {
	list, _, _ := strings.Cut(checksum, "+")
	return list
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
		if b := bucketAt(tx, t.path()...); b != nil {
			if v := b.Get(entryKey(k, checksum)); v != nil {
				e, decodeErr = DecodeEntry(v)
			}
		}
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
// using the same candidate. Entries of the same key for another candidate
// list (another checksum, or for a subset, another list's: the part
// before "+") are removed; those of other subsets of the same list stay.
// When the file cannot be written the answer is kept in memory, with a
// warning and the error.
func (c *Cache) Commit(t Table, k Key, checksum string, e *Entry) (*Entry, error) {
	return c.store(t, k, checksum, e, false)
}

// store is Commit; with force, e replaces any answer to the same question
// (a forced re-tune, a search's answer). Either way the key's answers for
// other candidates go.
func (c *Cache) store(t Table, k Key, checksum string, e *Entry, force bool) (*Entry, error) {
	e.Schema, e.Key, e.Checksum = SchemaVersion, k.String(), checksum
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
		if old := b.Get(ek); old != nil && !force {
			prev, err := DecodeEntry(old)
			if err == nil {
				stored = prev
				return nil
			}
			c.warn("autotune: cache %s: %s: replacing unreadable entry %s: %v", c.path, t, ek, err)
		}
		// Answers to the key for another candidate list are stale: the
		// question has changed. Those for another subset of this list
		// (the candidates that apply at another size of the bucket) are
		// answers to other questions, and stay.
		prefix := []byte(k.String() + "@")
		list := family(checksum)
		cur := b.Cursor()
		var stale [][]byte
		for key, _ := cur.Seek(prefix); key != nil && bytes.HasPrefix(key, prefix); key, _ = cur.Next() {
			if !bytes.Equal(key, ek) && family(string(key[len(prefix):])) != list {
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

// path is the names of the table's bucket and those above it.
func (t Table) path() []string {
	return []string{rootBucket, schemaBucket, layoutBucket, t.Hardware, t.Tuner}
}

func createTable(tx *bolt.Tx, t Table) (*bolt.Bucket, error) {
	if t.Hardware == "" || t.Tuner == "" {
		return nil, status.Newf(status.InvalidArgument, "autotune: table %q needs a hardware and a tuner name", t)
	}
	return createBucketAt(tx, t.path()...)
}

// Tables lists the tables in the file.
func (c *Cache) Tables() ([]Table, error) {
	var out []Table
	err := c.view(func(tx *bolt.Tx) error {
		return walkBuckets(bucketAt(tx, rootBucket, schemaBucket, layoutBucket), 2, nil, func(p []string) {
			out = append(out, Table{Hardware: p[0], Tuner: p[1]})
		})
	})
	return out, err
}

// Entries returns the readable entries of a table, in key order; entries
// that do not decode are skipped with a warning.
func (c *Cache) Entries(t Table) ([]*Entry, error) {
	var out []*Entry
	err := c.view(func(tx *bolt.Tx) error {
		b := bucketAt(tx, t.path()...)
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

// Clear removes table t from the file and from memory, with its tuning
// logs; a nil t removes every table and every log. A t that names no
// table is NOT_FOUND, whether the file lacks that table, has no tables or
// does not exist (a cache without a file: whether memory had it), so that
// a mistyped table is not taken for one cleared.
func (c *Cache) Clear(t *Table) error {
	c.mu.Lock()
	before := len(c.mem)
	maps.DeleteFunc(c.mem, func(k memKey, _ int) bool { return t == nil || k.table == *t })
	inMemory := len(c.mem) < before
	c.mu.Unlock()
	missing := func() error {
		if t == nil {
			return nil
		}
		return status.Newf(status.NotFound, "autotune: no table %s", t)
	}
	if c.path == "" {
		if inMemory {
			return nil
		}
		return missing()
	}
	if _, err := os.Stat(c.path); errors.Is(err, os.ErrNotExist) {
		return missing()
	}
	return c.update(func(tx *bolt.Tx) error {
		logs, err := clearLogs(tx, t)
		if err != nil {
			return err
		}
		if t == nil {
			// Only this schema's tables: another version's stay as they are.
			_, err := deleteBucketAt(tx, rootBucket, schemaBucket)
			return err
		}
		// A table with logs and no entries yet (a search stopped before
		// its commit) is a table too: its logs go.
		found := false
		if bucketAt(tx, rootBucket) != nil {
			if found, err = deleteBucketAt(tx, t.path()...); err != nil {
				return err
			}
		}
		if found || logs {
			return nil
		}
		return missing()
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
