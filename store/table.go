package store

import (
	"cmp"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/status"
)

// SchemaVersion is the version of the tables' layout and of the values
// their owner keeps in them. Tables of another version are neither read
// nor changed: versions live side by side in one file.
const SchemaVersion = 1

// Table names where one tuner's answers for one hardware are kept.
type Table struct {
	// Hardware is hal.DeviceInfo.Hardware() of the devices it serves.
	Hardware string `json:"hardware"`
	// Tuner names the set of operations, e.g. "builtin" or a manifest's
	// name.
	Tuner string `json:"tuner"`
}

// tablesAbove is the path above every table of this schema: a table is
// autotune / <schema> / layout-v1 / <hardware> / <tuner>.
var tablesAbove = []string{"autotune", "v" + strconv.Itoa(SchemaVersion), "layout-v1"}

func (t Table) path() []string {
	return append(tablesAbove[:len(tablesAbove):len(tablesAbove)], t.Hardware, t.Tuner)
}

// String is the table's path, such as
// autotune/v1/layout-v1/<hardware>/<tuner>.
func (t Table) String() string {
	return strings.Join(t.path(), "/")
}

// Rows are one table's keys and values in a transaction (Store.Update):
// valid only while it runs, as are the values they return.
type Rows struct {
	tx   Tx
	path []string
}

// Get returns the value of key, nil if none.
func (r Rows) Get(key []byte) []byte { return r.tx.Get(r.path, key) }

// Scan calls fn with each key that begins with prefix, and its value, in
// key order. fn must not write.
func (r Rows) Scan(prefix []byte, fn func(key, value []byte) error) error {
	return r.tx.Scan(r.path, prefix, fn)
}

// Put sets key to value.
func (r Rows) Put(key, value []byte) error { return r.tx.Put(r.path, key, value) }

// Delete removes key.
func (r Rows) Delete(key []byte) error { return r.tx.Delete(r.path, key) }

// Get returns a copy of the value of key in table t: nil, nil when there
// is none, and the file's error when it cannot be read (see Store), with a
// warning.
func (s *Store) Get(ctx context.Context, t Table, key []byte) ([]byte, error) {
	return s.load(ctx, "lookups miss", t.path(), key)
}

// Update runs fn on table t's rows in one atomic read-modify-write,
// creating the table if needed: no other writer can come between its
// reads and its writes. A store that cannot be written returns its error
// (see Store).
func (s *Store) Update(ctx context.Context, t Table, fn func(Rows) error) error {
	return s.b.Update(ctx, func(tx Tx) error {
		if t.Hardware == "" || t.Tuner == "" {
			return status.Newf(status.InvalidArgument, "store: table %q needs a hardware and a tuner name", t)
		}
		return fn(Rows{tx, t.path()})
	})
}

// Scan calls fn with every key of table t and its value, in key order.
// A table that is not there is NotFound.
func (s *Store) Scan(ctx context.Context, t Table, fn func(key, value []byte) error) error {
	return s.b.View(ctx, func(tx Tx) error {
		if found, err := hasTable(tx, t.path()); err != nil || !found {
			return cmp.Or(err, status.Newf(status.NotFound, "store: no table %s", t))
		}
		return tx.Scan(t.path(), nil, fn)
	})
}

// hasTable reports whether tx has the table at path (which Scan and Get
// cannot tell from an empty one).
func hasTable(tx Tx, path []string) (found bool, err error) {
	err = tx.Tables(path[:len(path)-1], 1, func(p []string) error {
		found = found || p[0] == path[len(path)-1]
		return nil
	})
	return found, err
}

// Tables lists the tables of this schema.
func (s *Store) Tables(ctx context.Context) ([]Table, error) {
	var out []Table
	err := s.b.View(ctx, func(tx Tx) error {
		return tx.Tables(tablesAbove, 2, func(p []string) error {
			out = append(out, Table{Hardware: p[0], Tuner: p[1]})
			return nil
		})
	})
	return out, err
}

// Clear removes table t with its tuning logs; a nil t removes every table
// of this schema and every log. A t that names no table is NotFound,
// whether the file lacks that table, has no tables or does not exist, so
// that a mistyped table is not taken for one cleared.
func (s *Store) Clear(ctx context.Context, t *Table) error {
	missing := func() error {
		if t == nil {
			return nil
		}
		return status.Newf(status.NotFound, "store: no table %s", t)
	}
	if s.b == Backend(nowhere{}) {
		return missing()
	}
	if s.path != "" && s.tier == nil { // a file's: a shared tier's path is its URL
		if _, err := os.Stat(s.path); errors.Is(err, os.ErrNotExist) {
			return missing()
		}
	}
	logs := []string{logBucket}
	if t != nil {
		logs = append(logs, t.Hardware, t.Tuner)
	}
	return s.b.Update(ctx, func(tx Tx) error {
		hadLogs, err := tx.Drop(logs)
		if err != nil {
			return err
		}
		if t == nil {
			// Only this schema's tables: another version's stay as they are.
			_, err := tx.Drop(tablesAbove[:2])
			return err
		}
		// A table with logs and no entries yet (a search stopped before
		// its commit) is a table too: its logs go.
		found, err := tx.Drop(t.path())
		if err != nil {
			return err
		}
		if found || hadLogs {
			return nil
		}
		return missing()
	})
}
