package autotune

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// The answers are kept in a store.Store's tables as JSON entries, keyed
// "key@checksum" (entryKey).

// family is the candidate list a checksum is of: the checksum itself, or
// for a subset of a list (applySubset.sum) the list's, before the "+".
func family(checksum string) string {
	list, _, _ := strings.Cut(checksum, "+")
	return list
}

// entryKey is the store's key of an entry: the tuning key and the
// checksum of the candidate list it was tuned under.
func entryKey(k Key, checksum string) []byte { return []byte(k.String() + "@" + checksum) }

// ReadEntry reads the entry for key and checksum from table t of s: nil,
// nil when there is none; DataLoss when one is there but does not decode,
// and the store's error when it cannot be read, each with a warning; or
// ctx's error.
func ReadEntry(ctx context.Context, s *store.Store, t store.Table, k Key, checksum string) (*Entry, error) {
	v, err := s.Get(ctx, t, entryKey(k, checksum))
	if err != nil || v == nil {
		return nil, err
	}
	e, err := DecodeEntry(v)
	if err != nil {
		s.Warn("autotune: cache %s: %s: entry %s is unreadable and will be tuned again: %v", s.Path(), t, entryKey(k, checksum), err)
		return nil, err
	}
	return e, nil
}

// Commit stores e (for key and checksum) in table t of s unless the table
// already holds a readable answer to the same question, in which case that
// answer is kept and returned: the first process to commit wins, so every
// process ends up using the same candidate, unless e clearly beats it
// (replaces). Entries of the same key for another candidate list (family)
// are removed. When the store cannot be written, e is returned with the
// error, and a warning; with ctx's error, and no warning, where ctx ended.
func Commit(ctx context.Context, s *store.Store, t store.Table, k Key, checksum string, e *Entry) (*Entry, error) {
	return commit(ctx, s, t, k, checksum, e, false)
}

// commit is Commit; with force, e replaces any answer to the same
// question (a forced re-tune, a search's answer).
func commit(ctx context.Context, s *store.Store, t store.Table, k Key, checksum string, e *Entry, force bool) (*Entry, error) {
	e.Schema, e.Key, e.Checksum = store.SchemaVersion, k.String(), checksum
	data, err := json.Marshal(e)
	if err != nil {
		err = status.Wrap(err, status.Internal, "autotune: encoding cache entry")
		s.Warn("autotune: %s: answer for %s kept in memory only: %v", t, k, err)
		return e, err
	}
	stored := e
	err = s.Update(ctx, t, func(rows store.Rows) error {
		stored = e
		ek := entryKey(k, checksum)
		if old := rows.Get(ek); old != nil && !force {
			switch prev, err := DecodeEntry(old); {
			case err != nil:
				s.Warn("autotune: cache %s: %s: replacing unreadable entry %s: %v", s.Path(), t, ek, err)
			case !replaces(e, prev):
				stored = prev
				return nil
			}
		}
		// The key's answers for another candidate list go; those for
		// another subset of this one answer other questions, and stay.
		prefix := []byte(k.String() + "@")
		list := family(checksum)
		var stale [][]byte
		if err := rows.Scan(prefix, func(key, _ []byte) error {
			if !bytes.Equal(key, ek) && family(string(key[len(prefix):])) != list {
				stale = append(stale, bytes.Clone(key))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, key := range stale {
			if err := rows.Delete(key); err != nil {
				return err
			}
		}
		return rows.Put(ek, data)
	})
	if err != nil && ctx.Err() == nil {
		s.Warn("autotune: %s: answer for %s kept in memory only: %v", t, k, err)
	}
	return stored, err
}

// replaces reports whether e, a new answer, replaces prev, the stored
// answer to the same question: both winners verified, e's better by e's
// objective beyond both 95% intervals, in e's own measurement of the two
// (one machine, side by side) and against prev's interval of its winner
// (so a slower machine never replaces a faster one's answer); and prev,
// where it measured e's winner, did not find it clearly worse (no
// flapping). Two machines' intervals alone do not decide: each is the
// noise of its own machine, not how two machines of one hardware differ.
func replaces(e, prev *Entry) bool {
	w, s := e.Fastest, prev.Fastest
	o := cmp.Or(e.Objective, ObjectiveTime)
	if w < 0 || w == s || w >= len(prev.Results) || s >= len(e.Results) || o != cmp.Or(prev.Objective, ObjectiveTime) {
		return false
	}
	return beyond(o, e.Results[w], e.Results[s]) && beyond(o, e.Results[w], prev.Results[s]) && !beyond(o, prev.Results[s], prev.Results[w])
}

// beyond reports whether a and b are verified measurements and a is
// better than b by objective o, a's interval wholly below b's.
func beyond(o Objective, a, b results.Result) bool {
	bounds := func(r results.Result) (lo, hi float64, ok bool) {
		if !r.Ran() || slices.Contains(r.Flags, FlagNotVerified) {
			return 0, 0, false
		}
		if o == ObjectiveTime {
			lo, hi = interval(*r.Stats)
			return lo, hi, true
		}
		_, lo, hi, ok = r.ObjectiveValue(string(o))
		return lo, hi, ok && lo > 0
	}
	_, aHi, aOK := bounds(a)
	bLo, _, bOK := bounds(b)
	return aOK && bOK && aHi < bLo
}

// Entries returns the readable entries of table t of s, in key order;
// entries that do not decode are skipped with a warning. A table that is
// not there is NotFound. ctx ending while it waits for the store is its
// error, ctx's.
func Entries(ctx context.Context, s *store.Store, t store.Table) ([]*Entry, error) {
	var out []*Entry
	err := s.Scan(ctx, t, func(k, v []byte) error {
		e, err := DecodeEntry(v)
		if err != nil {
			s.Warn("autotune: cache %s: %s: skipping unreadable entry %s: %v", s.Path(), t, k, err)
			return nil
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// exportFile is the format of Export and Import.
type exportFile struct {
	Schema  int         `json:"schema"`
	Table   store.Table `json:"table"`
	Entries []*Entry    `json:"entries"`
}

// Export writes table t of s as JSON to w. ctx ending while it waits for
// the store is its error, ctx's, and nothing is written.
func Export(ctx context.Context, w io.Writer, s *store.Store, t store.Table) error {
	entries, err := Entries(ctx, s, t)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(exportFile{Schema: store.SchemaVersion, Table: t, Entries: entries})
}

// Import reads what Export wrote and commits its entries (by Commit's
// rule) into the table of s of the same name, whose hardware must be
// hardware unless force is set (hardware "" accepts any). It returns the
// number of entries imported. ctx ending stops it between two entries,
// with ctx's error: those imported stay, and importing again is safe.
func Import(ctx context.Context, s *store.Store, r io.Reader, hardware string, force bool) (store.Table, int, error) {
	var f exportFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return store.Table{}, 0, status.Wrap(err, status.InvalidArgument, "autotune: import file does not decode")
	}
	if f.Schema != store.SchemaVersion {
		return f.Table, 0, status.Newf(status.Incompatible, "autotune: import file has schema %d, want %d", f.Schema, store.SchemaVersion)
	}
	if f.Table.Hardware == "" || f.Table.Tuner == "" {
		return f.Table, 0, status.New(status.InvalidArgument, "autotune: import file names no table (its hardware and tuner)")
	}
	if hardware != "" && f.Table.Hardware != hardware && !force {
		return f.Table, 0, status.Newf(status.FailedPrecondition, "autotune: import file was measured on %s, not %s (force to import anyway)", f.Table.Hardware, hardware)
	}
	if hardware != "" {
		f.Table.Hardware = hardware
	}
	// A file with one bad entry imports nothing.
	for i, e := range f.Entries {
		if e == nil {
			return f.Table, 0, status.Newf(status.InvalidArgument, "autotune: import file's entry %d is null", i+1)
		}
		what := fmt.Sprintf("import file's entry %d (%s)", i+1, e.Key)
		if err := e.usable(status.InvalidArgument, what); err != nil {
			return f.Table, 0, err
		}
		if err := e.namesItsFastest(what); err != nil {
			return f.Table, 0, err
		}
	}
	n := 0
	for _, e := range f.Entries {
		k, _ := ParseKey(e.Key) // checked above
		// An interrupt ends the import here: the store writes nothing once
		// ctx has ended.
		if _, err := Commit(ctx, s, f.Table, k, e.Checksum, e); err != nil {
			return f.Table, n, err
		}
		n++
	}
	return f.Table, n, nil
}
