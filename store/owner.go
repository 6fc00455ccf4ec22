package store

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// markTable is the table at the root of the file that marks it as a tune
// cache: the first write makes it, and no Tx lists it or writes it. Its
// key and value are for a person who opens the file with bbolt's tools.
const markTable, markKey, markValue = "vkbench", "kind", "vkbench tune cache"

// ownRoot reports whether name is one of the tables at a tune cache's
// root, as this package writes them: files written before the mark hold
// these and no others.
func ownRoot(name string) bool {
	return slices.Contains([]string{tablesAbove[0], logBucket, peaksTable[0], pipelineTable[0], locksTable[0], markTable}, name)
}

// foreignError is the error of a bbolt file of another program: not
// marked, with tables at its root that no write of this package makes.
type foreignError struct{ tables []string }

// shownTables is how many of a foreign file's tables its error names.
const shownTables = 8

func (e foreignError) Error() string {
	names := make([]string, 0, shownTables+1)
	for _, t := range e.tables[:min(len(e.tables), shownTables)] {
		if q := strconv.Quote(t); q[1:len(q)-1] != t || t == "" || strings.ContainsAny(t, ", ") {
			t = q
		}
		names = append(names, t)
	}
	if more := len(e.tables) - len(names); more > 0 {
		names = append(names, fmt.Sprintf("and %d more", more))
	}
	return fmt.Sprintf("a bbolt file of another program (buckets: %s), not a vkbench tune cache", strings.Join(names, ", "))
}

// checkOwner is a foreignError where the file tx reads is a bbolt file of
// another program: unmarked, with a table at its root that is not one of
// this package's. An empty file is a tune cache to start.
func checkOwner(tx *bolt.Tx) error {
	if tx.Bucket([]byte(markTable)) != nil {
		return nil
	}
	var theirs []string
	err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		if !ownRoot(string(name)) {
			theirs = append(theirs, string(name))
		}
		return nil
	})
	if err == nil && len(theirs) > 0 {
		err = foreignError{theirs}
	}
	return err
}

// mark marks the file of tx, a write transaction, as a tune cache, where
// it is one (checkOwner) and not marked yet.
func mark(tx *bolt.Tx) error {
	if err := checkOwner(tx); err != nil || tx.Bucket([]byte(markTable)) != nil {
		return err
	}
	b, err := tx.CreateBucket([]byte(markTable))
	if err != nil {
		return err
	}
	return b.Put([]byte(markKey), []byte(markValue))
}

// notCacheError is the error of a cache path that names a file bbolt did
// not write (a results file given by mistake), left as it is: damage that
// bbolt's own writes can leave keeps one of the meta pages' headers, and
// a crash that loses the writes leaves zeros.
type notCacheError struct{}

func (notCacheError) Error() string { return "no bbolt database header in it" }

// boltMagic is the number at byte 16 of a bbolt meta page.
const boltMagic = 0xED0CDAED

// boltHeader reports whether the file at path has a bbolt meta page's
// magic number where the first or the second meta page begins, whatever
// the page size it was written with (the second's offset), or begins with
// nothing but zeros, or cannot be read to tell.
func boltHeader(path string) bool {
	data := make([]byte, 64<<10+20)
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	n, _ := io.ReadFull(f, data)
	_ = f.Close() // read only
	for _, at := range []int{0, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10} {
		if at+20 <= n && binary.LittleEndian.Uint32(data[at+16:]) == boltMagic {
			return true
		}
	}
	return !slices.ContainsFunc(data[:n], func(b byte) bool { return b != 0 })
}

// notRegularError is the error of a cache path that names a folder, a
// device or the like: it is neither used nor moved aside.
type notRegularError struct{ mode fs.FileMode }

func (e notRegularError) Error() string { return fmt.Sprintf("not a regular file (%v)", e.mode) }
