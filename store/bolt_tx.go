package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// boltTx is a transaction of the bbolt file: a table is a bucket, nested
// in the buckets of the names before it in its path.
type boltTx struct {
	tx *bolt.Tx
	// err is the first write that failed: the file's failure, whatever
	// the function running the transaction makes of it.
	err error
}

var _ Tx = (*boltTx)(nil)

// fail remembers err as the transaction's failure, and returns it.
func (t *boltTx) fail(err error) error {
	if t.err == nil {
		t.err = err
	}
	return err
}

// bucket returns the bucket at path; nil where any of it is missing.
func (t *boltTx) bucket(path []string) *bolt.Bucket {
	if len(path) == 0 {
		return nil
	}
	b := t.tx.Bucket([]byte(path[0]))
	for _, name := range path[1:] {
		if b == nil {
			return nil
		}
		b = b.Bucket([]byte(name))
	}
	return b
}

// create returns the bucket at path, making those of it that are missing.
func (t *boltTx) create(path []string) (*bolt.Bucket, error) {
	b, err := t.tx.CreateBucketIfNotExists([]byte(path[0]))
	for _, name := range path[1:] {
		if err != nil {
			return nil, err
		}
		b, err = b.CreateBucketIfNotExists([]byte(name))
	}
	return b, err
}

func (t *boltTx) Get(table []string, key []byte) []byte {
	if b := t.bucket(table); b != nil {
		return b.Get(key)
	}
	return nil
}

func (t *boltTx) Scan(table []string, prefix []byte, fn func(key, value []byte) error) error {
	b := t.bucket(table)
	if b == nil {
		return nil
	}
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if v == nil {
			continue // a nested table, not a key
		}
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (t *boltTx) Tables(above []string, depth int, fn func(names []string) error) error {
	var b *bolt.Bucket
	if len(above) > 0 {
		if b = t.bucket(above); b == nil {
			return nil
		}
	}
	return walk(t.tx, b, depth, nil, fn)
}

// walk calls fn with the names along every path of depth nested buckets
// under b (the file's root if nil), after above, the names of those above
// b.
func walk(tx *bolt.Tx, b *bolt.Bucket, depth int, above []string, fn func(names []string) error) error {
	if depth == 0 {
		return fn(above)
	}
	next := func(name []byte, sub *bolt.Bucket) error {
		return walk(tx, sub, depth-1, append(above[:len(above):len(above)], string(name)), fn)
	}
	if b == nil {
		return tx.ForEach(func(name []byte, sub *bolt.Bucket) error {
			if string(name) == markTable {
				return nil // the file's, not a table
			}
			return next(name, sub)
		})
	}
	return b.ForEachBucket(func(name []byte) error { return next(name, b.Bucket(name)) })
}

func (t *boltTx) Put(table []string, key, value []byte) error {
	b, err := t.create(table)
	if err != nil {
		return t.fail(err)
	}
	return t.fail(b.Put(key, value))
}

func (t *boltTx) Delete(table []string, key []byte) error {
	if b := t.bucket(table); b != nil {
		return t.fail(b.Delete(key))
	}
	return nil
}

func (t *boltTx) Drop(table []string) (bool, error) {
	if t.bucket(table) == nil {
		return false, nil
	}
	last := []byte(table[len(table)-1])
	if len(table) == 1 {
		return true, t.fail(t.tx.DeleteBucket(last))
	}
	return true, t.fail(t.bucket(table[:len(table)-1]).DeleteBucket(last))
}
