package store

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/vkbench/vkbench/status"
)

// The tuning logs are kept beside the tuning tables:
// tune-log / <hardware> / <tuner> / <key> / <mode>, each holding the
// header of the space last searched, a table "evals" of records by the
// identity of the configuration's kernel, and a table "searches" of the
// searches in the order they ran. A record is written as its evaluation
// completes, in a transaction of its own, so that a search interrupted at
// any moment keeps everything it measured.
const (
	logBucket    = "tune-log"
	logEvals     = "evals"
	logSearches  = "searches"
	logHeaderKey = "header"
)

// LogRef names one tuning log.
type LogRef struct {
	Table Table  `json:"table"`
	Key   string `json:"key"`
	Mode  string `json:"mode"`
}

// String is "hardware/tuner/key@mode", as vkbench cache export-log takes.
func (r LogRef) String() string {
	return r.Table.Hardware + "/" + r.Table.Tuner + "/" + r.Key + "@" + r.Mode
}

// tablePath returns the path of the table at sub under r's (r's own
// without sub).
func (r LogRef) tablePath(sub ...string) ([]string, error) {
	if r.Table.Hardware == "" || r.Table.Tuner == "" || r.Key == "" || r.Mode == "" {
		return nil, status.Newf(status.InvalidArgument, "store: tuning log %q needs a hardware, a tuner, a key and a mode", r)
	}
	return append([]string{logBucket, r.Table.Hardware, r.Table.Tuner, r.Key, r.Mode}, sub...), nil
}

// PutLogEval stores one evaluation's record in r's log under its
// identity, replacing an earlier record of the same identity.
func (s *Store) PutLogEval(ctx context.Context, r LogRef, id string, rec []byte) error {
	return s.putLog(ctx, r, []byte(id), rec, logEvals)
}

// PutLogHeader stores the description of the space r's log is of.
func (s *Store) PutLogHeader(ctx context.Context, r LogRef, header []byte) error {
	return s.putLog(ctx, r, []byte(logHeaderKey), header)
}

// putLog sets key to value in the table at sub of r's log.
func (s *Store) putLog(ctx context.Context, r LogRef, key, value []byte, sub ...string) error {
	path, err := r.tablePath(sub...)
	if err != nil {
		return err
	}
	return s.b.Update(ctx, func(tx Tx) error { return tx.Put(path, key, value) })
}

// AddLogSearch appends a search to r's log.
func (s *Store) AddLogSearch(ctx context.Context, r LogRef, search []byte) error {
	path, err := r.tablePath(logSearches)
	if err != nil {
		return err
	}
	return s.b.Update(ctx, func(tx Tx) error {
		// Keys number the searches from 1, in the order they ran: one past
		// the last, so that a gap (a search another version left out)
		// never makes a key taken.
		var last uint64
		if err := tx.Scan(path, nil, func(k, _ []byte) error {
			if len(k) == 8 {
				last = max(last, binary.BigEndian.Uint64(k))
			}
			return nil
		}); err != nil {
			return err
		}
		return tx.Put(path, binary.BigEndian.AppendUint64(nil, last+1), search)
	})
}

// TuneLogs lists the tuning logs.
func (s *Store) TuneLogs(ctx context.Context) ([]LogRef, error) {
	var out []LogRef
	err := s.b.View(ctx, func(tx Tx) error {
		return tx.Tables([]string{logBucket}, 4, func(p []string) error {
			out = append(out, LogRef{Table: Table{Hardware: p[0], Tuner: p[1]}, Key: p[2], Mode: p[3]})
			return nil
		})
	})
	return out, err
}

// StoredLog is a tuning log as stored: its header (nil if none), its
// searches in the order they ran, its records by identity.
type StoredLog struct {
	Header   []byte
	Searches [][]byte
	Evals    map[string][]byte
}

// ReadLog returns r's whole log. No log is NotFound.
func (s *Store) ReadLog(ctx context.Context, r LogRef) (*StoredLog, error) {
	path, err := r.tablePath()
	if err != nil {
		return nil, err
	}
	l := &StoredLog{Evals: map[string][]byte{}}
	found := false
	err = s.b.View(ctx, func(tx Tx) (err error) {
		if found, err = hasTable(tx, path); err != nil || !found {
			return err
		}
		l.Header = bytes.Clone(tx.Get(path, []byte(logHeaderKey)))
		if err := tx.Scan(append(path, logSearches), nil, func(_, v []byte) error {
			l.Searches = append(l.Searches, bytes.Clone(v))
			return nil
		}); err != nil {
			return err
		}
		return tx.Scan(append(path, logEvals), nil, func(k, v []byte) error {
			l.Evals[string(k)] = bytes.Clone(v)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, status.Newf(status.NotFound, "store: no tuning log %s", r)
	}
	return l, nil
}
