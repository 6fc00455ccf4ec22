package search

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// LogEvals returns the records of r's log in s by identity; none (and no
// error) when there is no log. A record that does not decode is skipped
// with a warning: its configuration is measured again. It, and every read
// and write of a log here, waits for another process's lock on the file
// no longer than ctx: ctx ending is its error, without a warning.
func LogEvals(ctx context.Context, s *store.Store, r store.LogRef) (map[string]LogRecord, error) {
	raw, err := s.ReadLog(ctx, r)
	switch {
	case status.CodeOf(err) == status.NotFound:
		return map[string]LogRecord{}, nil
	case err != nil && ctx.Err() != nil:
		return map[string]LogRecord{}, err
	case err != nil:
		s.Warn("search: tuning log %s not read: %v", r, err)
		return map[string]LogRecord{}, err
	}
	return decodeEvals(s, r, raw.Evals), nil
}

func decodeEvals(s *store.Store, r store.LogRef, raw map[string][]byte) map[string]LogRecord {
	out := make(map[string]LogRecord, len(raw))
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		var rec LogRecord
		if err := json.Unmarshal(raw[k], &rec); err != nil || rec.Name == "" {
			s.Warn("search: cache %s: tuning log %s: record %s is unreadable and will be measured again", s.Path(), r, k)
			continue
		}
		out[k] = rec
	}
	return out
}

// AppendLog stores one evaluation in r's log, replacing an earlier record
// of the same identity.
func AppendLog(ctx context.Context, s *store.Store, r store.LogRef, rec LogRecord) error {
	rec.Kind = "eval"
	return putJSON("a tuning log record", rec, func(data []byte) error { return s.PutLogEval(ctx, r, rec.ID, data) })
}

// SaveLogHeader stores the description of the space r's log is of.
func SaveLogHeader(ctx context.Context, s *store.Store, r store.LogRef, h LogHeader) error {
	h.Format = LogFormat
	return putJSON("a tuning log header", h, func(data []byte) error { return s.PutLogHeader(ctx, r, data) })
}

// AddLogSearch appends a search to r's log.
func AddLogSearch(ctx context.Context, s *store.Store, r store.LogRef, search LogSearch) error {
	search.Kind = "search"
	return putJSON("a search", search, func(data []byte) error { return s.AddLogSearch(ctx, r, data) })
}

// putJSON stores v, what it is, as JSON by put.
func putJSON(what string, v any, put func([]byte) error) error {
	data, err := json.Marshal(v)
	if err != nil {
		return status.Wrap(err, status.Internal, "search: encoding "+what)
	}
	return put(data)
}

// ReadLog returns r's whole log from s: its header, its records in the
// order they were evaluated, and its searches. No log is NotFound.
func ReadLog(ctx context.Context, s *store.Store, r store.LogRef) (*TuneLog, error) {
	raw, err := s.ReadLog(ctx, r)
	if err != nil {
		return nil, err
	}
	l := &TuneLog{}
	if raw.Header != nil {
		if err := json.Unmarshal(raw.Header, &l.Header); err != nil {
			return nil, status.Wrapf(err, status.DataLoss, "search: tuning log %s: header", r)
		}
	}
	for _, v := range raw.Searches {
		var search LogSearch
		if json.Unmarshal(v, &search) == nil {
			l.Searches = append(l.Searches, search)
		}
	}
	l.Evals = slices.SortedFunc(maps.Values(decodeEvals(s, r, raw.Evals)), func(a, b LogRecord) int {
		return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.Name, b.Name))
	})
	l.Header.Table, l.Header.Key, l.Header.Mode = r.Table, r.Key, r.Mode
	if l.Header.Time.IsZero() {
		l.Header.Time = time.Now().UTC()
	}
	return l, nil
}
