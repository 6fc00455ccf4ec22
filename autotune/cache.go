package autotune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
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

// DefaultCachePath is the cache file under the user's cache directory.
func DefaultCachePath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "vkbench", "autotune.db")
}

// Cache remembers the fastest candidate for each key, in memory and in a
// bbolt file that several processes may share. The file is opened only for
// the duration of each operation, so no process holds it for long.
//
// A Cache is safe for concurrent use.
type Cache struct {
	path    string
	timeout time.Duration
	log     *slog.Logger

	mu  sync.RWMutex
	mem map[memKey]int

	warnMu   sync.Mutex
	warnings []string
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
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, status.Wrapf(err, status.InvalidArgument, "autotune: cache path %q", path)
	}
	c.path = abs
	return c, nil
}

// Path is the cache file's path, or "" when the file is disabled.
func (c *Cache) Path() string { return c.path }

// Warnings returns the problems met so far that did not stop the work.
func (c *Cache) Warnings() []string {
	c.warnMu.Lock()
	defer c.warnMu.Unlock()
	return append([]string(nil), c.warnings...)
}

func (c *Cache) warn(msg string, args ...any) {
	text := fmt.Sprintf(msg, args...)
	c.warnMu.Lock()
	c.warnings = append(c.warnings, text)
	c.warnMu.Unlock()
	c.log.Warn(text)
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
// found). An entry that does not decode is a miss, with a warning.
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
// decode.
func (c *Cache) Get(t Table, k Key, checksum string) (*Entry, error) {
	var e *Entry
	err := c.view(func(tx *bolt.Tx) error {
		b := tableBucket(tx, t)
		if b == nil {
			return nil
		}
		v := b.Get(entryKey(k, checksum))
		if v == nil {
			return nil
		}
		var err error
		e, err = DecodeEntry(v)
		if err != nil {
			c.warn("autotune: %s: entry %s is unreadable and will be tuned again: %v", t, entryKey(k, checksum), err)
		}
		return err
	})
	return e, err
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
		return e, status.Wrap(err, status.Internal, "autotune: encoding cache entry")
	}
	stored := e
	err = c.update(func(tx *bolt.Tx) error {
		b, err := createTable(tx, t)
		if err != nil {
			return err
		}
		ek := entryKey(k, checksum)
		if old := b.Get(ek); old != nil {
			if prev, err := DecodeEntry(old); err == nil {
				stored = prev
				return nil
			}
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

// view runs fn in a read transaction of the file, opened read-only (shared
// with other readers) for the call. A missing file, or a disabled one, runs
// nothing.
func (c *Cache) view(fn func(*bolt.Tx) error) error {
	if c.path == "" {
		return nil
	}
	if _, err := os.Stat(c.path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	db, err := c.open(true)
	if err != nil {
		return err
	}
	return status.Join(db.View(fn), db.Close())
}

// update runs fn in a write transaction, creating the file if needed.
func (c *Cache) update(fn func(*bolt.Tx) error) error {
	if c.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return status.Wrapf(err, status.CodeOf(err), "autotune: creating the cache's folder")
	}
	db, err := c.open(false)
	if err != nil {
		return err
	}
	return status.Join(db.Update(fn), db.Close())
}

// open opens the file for one operation, waiting at most the lock timeout
// for other processes. A damaged file is moved aside (its new name in a
// warning) and a fresh one started, when writing.
func (c *Cache) open(readOnly bool) (*bolt.DB, error) {
	opts := &bolt.Options{Timeout: c.timeout, ReadOnly: readOnly}
	db, err := bolt.Open(c.path, 0o644, opts)
	if err == nil {
		return db, nil
	}
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, status.Wrapf(err, status.Unavailable, "autotune: cache %s is locked by another process for more than %v", c.path, c.timeout)
	case errors.Is(err, os.ErrPermission):
		return nil, status.Wrapf(err, status.PermissionDenied, "autotune: cache %s", c.path)
	case damaged(err) && !readOnly:
		aside := fmt.Sprintf("%s.damaged-%s", c.path, time.Now().UTC().Format("20060102T150405.000000000"))
		if rerr := os.Rename(c.path, aside); rerr != nil {
			return nil, status.Wrapf(status.Join(err, rerr), status.DataLoss, "autotune: cache %s is damaged and could not be moved aside", c.path)
		}
		c.warn("autotune: cache %s was damaged (%v); moved it to %s and started a fresh one", c.path, err, aside)
		db, err = bolt.Open(c.path, 0o644, opts)
		if err == nil {
			return db, nil
		}
	}
	return nil, status.Wrapf(err, status.DataLoss, "autotune: opening cache %s", c.path)
}

// damaged reports whether a bbolt open error means the file is not a
// usable database (as opposed to being locked or unreadable).
func damaged(err error) bool {
	return errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrVersionMismatch) ||
		errors.Is(err, berrors.ErrChecksum) || errors.Is(err, berrors.ErrInvalidMapping)
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
				c.warn("autotune: %s: skipping unreadable entry %s: %v", t, k, err)
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
		if t == nil {
			if tx.Bucket([]byte(rootBucket)) == nil {
				return nil
			}
			return tx.DeleteBucket([]byte(rootBucket))
		}
		root := tx.Bucket([]byte(rootBucket))
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

// LoadPeak returns the peak stored for hardware, if any.
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
			c.warn("autotune: stored peak of %s is unreadable: %v", hardware, err)
			return nil
		}
		out = &p
		return nil
	})
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

// LoadPipelineCache returns the pipeline cache stored for uuid, or nil.
func (c *Cache) LoadPipelineCache(uuid [16]byte) ([]byte, error) {
	var out []byte
	err := c.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(pipelineBucket)); b != nil {
			out = bytes.Clone(b.Get([]byte(fmt.Sprintf("%x", uuid))))
		}
		return nil
	})
	return out, err
}
