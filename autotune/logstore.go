package autotune

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/status"
)

// The tuning logs are a store of the cache file beside the tuning tables:
// tune-log / <hardware> / <tuner> / <key> / <mode>, each holding the
// header of the space last searched, a bucket "evals" of records by the
// identity of the configuration's kernel, and a bucket "searches" of the
// searches in the order they ran. A record is written as its evaluation
// completes, in a transaction of its own, so that a search interrupted at
// any moment keeps everything it measured.
const (
	logBucket    = "tune-log"
	logEvals     = "evals"
	logSearches  = "searches"
	logHeaderKey = "header"
)

// LogRef names one tuning log in the cache file.
type LogRef struct {
	Table Table  `json:"table"`
	Key   string `json:"key"`
	Mode  string `json:"mode"`
}

// String is "hardware/tuner/key@mode", as vkbench cache export-log takes.
func (r LogRef) String() string {
	return r.Table.Hardware + "/" + r.Table.Tuner + "/" + r.Key + "@" + r.Mode
}

func (r LogRef) path() []string {
	return []string{logBucket, r.Table.Hardware, r.Table.Tuner, r.Key, r.Mode}
}

// logBucketOf returns the bucket at sub under r's (r's own without sub),
// or nil; with create, it makes what is missing.
func logBucketOf(tx *bolt.Tx, r LogRef, create bool, sub ...string) (*bolt.Bucket, error) {
	if r.Table.Hardware == "" || r.Table.Tuner == "" || r.Key == "" || r.Mode == "" {
		return nil, status.Newf(status.InvalidArgument, "autotune: tuning log %q needs a hardware, a tuner, a key and a mode", r)
	}
	path := append(r.path(), sub...)
	if create {
		return createBucketAt(tx, path...)
	}
	return bucketAt(tx, path...), nil
}

// LogEvals returns the records of r's log by identity; none (and no
// error) when there is no log. A record that does not decode is skipped
// with a warning: its configuration is measured again.
func (c *Cache) LogEvals(r LogRef) (map[string]LogRecord, error) {
	out := map[string]LogRecord{}
	err := c.view(func(tx *bolt.Tx) error {
		ev, err := logBucketOf(tx, r, false, logEvals)
		if ev == nil || err != nil {
			return err
		}
		return ev.ForEach(func(k, v []byte) error {
			var rec LogRecord
			if err := json.Unmarshal(v, &rec); err != nil || rec.Name == "" {
				c.warn("autotune: cache %s: tuning log %s: record %s is unreadable and will be measured again", c.path, r, k)
				return nil
			}
			out[string(k)] = rec
			return nil
		})
	})
	if err != nil {
		c.warn("autotune: tuning log %s not read: %v", r, err)
	}
	return out, err
}

// AppendLog stores one evaluation in r's log, replacing an earlier record
// of the same identity.
func (c *Cache) AppendLog(r LogRef, rec LogRecord) error {
	rec.Kind = "eval"
	data, err := json.Marshal(rec)
	if err != nil {
		return status.Wrap(err, status.Internal, "autotune: encoding a tuning log record")
	}
	return c.update(func(tx *bolt.Tx) error {
		ev, err := logBucketOf(tx, r, true, logEvals)
		if err != nil {
			return err
		}
		return ev.Put([]byte(rec.ID), data)
	})
}

// SaveLogHeader stores the description of the space r's log is of.
func (c *Cache) SaveLogHeader(r LogRef, h LogHeader) error {
	h.Format = LogFormat
	data, err := json.Marshal(h)
	if err != nil {
		return status.Wrap(err, status.Internal, "autotune: encoding a tuning log header")
	}
	return c.update(func(tx *bolt.Tx) error {
		b, err := logBucketOf(tx, r, true)
		if err != nil {
			return err
		}
		return b.Put([]byte(logHeaderKey), data)
	})
}

// AddLogSearch appends a search to r's log.
func (c *Cache) AddLogSearch(r LogRef, s LogSearch) error {
	s.Kind = "search"
	data, err := json.Marshal(s)
	if err != nil {
		return status.Wrap(err, status.Internal, "autotune: encoding a search")
	}
	return c.update(func(tx *bolt.Tx) error {
		sb, err := logBucketOf(tx, r, true, logSearches)
		if err != nil {
			return err
		}
		seq, err := sb.NextSequence()
		if err != nil {
			return err
		}
		return sb.Put(binary.BigEndian.AppendUint64(nil, seq), data)
	})
}

// TuneLogs lists the tuning logs in the file.
func (c *Cache) TuneLogs() ([]LogRef, error) {
	var out []LogRef
	err := c.view(func(tx *bolt.Tx) error {
		return walkBuckets(bucketAt(tx, logBucket), 4, nil, func(p []string) {
			out = append(out, LogRef{Table: Table{Hardware: p[0], Tuner: p[1]}, Key: p[2], Mode: p[3]})
		})
	})
	return out, err
}

// ReadLog returns r's whole log: its header, its records in the order
// they were evaluated, and its searches. No log is NotFound.
func (c *Cache) ReadLog(r LogRef) (*TuneLog, error) {
	l := &TuneLog{}
	found := false
	err := c.view(func(tx *bolt.Tx) error {
		b, err := logBucketOf(tx, r, false)
		if b == nil || err != nil {
			return err
		}
		found = true
		if h := b.Get([]byte(logHeaderKey)); h != nil {
			if err := json.Unmarshal(h, &l.Header); err != nil {
				return status.Wrapf(err, status.DataLoss, "autotune: tuning log %s: header", r)
			}
		}
		if sb := b.Bucket([]byte(logSearches)); sb != nil {
			if err := sb.ForEach(func(_, v []byte) error {
				var s LogSearch
				if json.Unmarshal(v, &s) == nil {
					l.Searches = append(l.Searches, s)
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, status.Newf(status.NotFound, "autotune: no tuning log %s", r)
	}
	evals, err := c.LogEvals(r)
	if err != nil {
		return nil, err
	}
	l.Evals = slices.SortedFunc(maps.Values(evals), func(a, b LogRecord) int {
		return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.Name, b.Name))
	})
	l.Header.Table, l.Header.Key, l.Header.Mode = r.Table, r.Key, r.Mode
	if l.Header.Time.IsZero() {
		l.Header.Time = time.Now().UTC()
	}
	return l, nil
}

// clearLogs removes the tuning logs of table t, or every log if t is nil,
// and reports whether there were any.
func clearLogs(tx *bolt.Tx, t *Table) (bool, error) {
	path := []string{logBucket}
	if t != nil {
		path = append(path, t.Hardware, t.Tuner)
	}
	return deleteBucketAt(tx, path...)
}
