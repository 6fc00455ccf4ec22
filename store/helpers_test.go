package store_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/store"
)

var testTable = store.Table{Hardware: "mesa-0000_llvmpipe_llvmpipe_22.3.6", Tuner: "builtin"}

// newCache opens a store on path with a lock timeout long enough for a
// loaded machine.
func newCache(tb testing.TB, path string) *store.Store {
	tb.Helper()
	s, err := store.Open(store.Options{Path: path, LockTimeout: 10 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// put writes value under key in table t of s, in one Update.
func put(s *store.Store, t store.Table, key, value []byte) error {
	return s.Update(context.Background(), t, func(rows store.Rows) error { return rows.Put(key, value) })
}

// value is a value as autotune writes them (an answer naming candidate
// fastest of two), so that the files the tests write, and the samples
// made from them, are files it reads.
func value(fastest int) []byte {
	return fmt.Appendf(nil, `{"schema":1,"key":"copy/u32/8","checksum":"c","fastest":%d,"fastest_name":"%c",`+
		`"results":[{"index":0,"name":"a","outcome":"measured"},{"index":1,"name":"b","outcome":"measured"}]}`, fastest, 'a'+fastest)
}

// checkBolt fails unless the file at path passes bbolt's consistency
// check.
func checkBolt(tb testing.TB, path string) {
	tb.Helper()
	db, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	defer closeOK(tb, db)
	err = db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			tb.Errorf("bbolt check: %v", err)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// closeOK closes c at the end of a test, failing it if that fails.
func closeOK(tb testing.TB, c io.Closer) {
	tb.Helper()
	if err := c.Close(); err != nil {
		tb.Errorf("close: %v", err)
	}
}
