package store

import "context"

// Backend is where a Store's bytes live: values under keys in tables, each
// table named by a path of names ("autotune", "v1", ...), tables nested in
// the tables their path continues. It is all a Store asks of a place to
// keep things; the local file (bbolt) is one, a shared network store would
// be another. A Backend knows nothing of what the bytes mean.
//
// Errors carry a status code (see Store for the codes of the file's
// problems); a Backend that cannot be reached at all answers every call
// with the same error. ctx ends a wait, with ctx's error in the chain and
// its code: for another process's lock on the file, for a shared store's
// answer (which timeouts of the store's own bound too). A call that ctx
// ended is no failure of the shared tier: it neither warns nor rests.
type Backend interface {
	// View runs fn with a consistent view of the tables, read-only.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn atomically: every write fn makes lands, or none does,
	// and what fn read was not changed by another writer before they land
	// (a backend that cannot lock may run fn again until that holds). An
	// error from fn undoes its writes and is returned as it is, unless a
	// write of fn's Tx failed: that failure is the Backend's own.
	Update(ctx context.Context, fn func(Tx) error) error
}

// Tx is one transaction of a Backend: valid only while the function given
// View or Update runs. Values it returns are valid as long, no longer;
// keep a copy to keep them. Write methods fail in a View.
type Tx interface {
	// Get returns the value of key in table, nil when either is missing.
	Get(table []string, key []byte) []byte
	// Scan calls fn with each key of table that begins with prefix, and its
	// value, in key order; nothing when table is missing. fn must not
	// write to table.
	Scan(table []string, prefix []byte, fn func(key, value []byte) error) error
	// Tables calls fn with the path, under the path above, of every table
	// depth levels below it (names of depth 1 are above's own tables);
	// nothing when above is missing.
	Tables(above []string, depth int, fn func(names []string) error) error

	// Put sets key of table to value, creating the table and those above
	// it where missing.
	Put(table []string, key, value []byte) error
	// Delete removes key from table; a missing key or table is no error.
	Delete(table []string, key []byte) error
	// Drop removes table, its keys and every table below it, and reports
	// whether there was one.
	Drop(table []string) (bool, error)
}
