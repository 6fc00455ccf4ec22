package storetest

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/vkbench/vkbench/store"
)

// Memory returns a store.Backend that keeps its tables in memory, for
// tests that wrap a backend (to count or to fail its calls) and need
// none of a file's or a server's: it passes TestBackend, and holds no
// locks.
func Memory() store.Backend { return &memory{root: &memTable{}} }

type memory struct {
	mu   sync.RWMutex
	root *memTable
}

// memTable is a table: its keys, and the tables below it.
type memTable struct {
	keys map[string][]byte
	subs map[string]*memTable
}

func (t *memTable) clone() *memTable {
	c := &memTable{keys: maps.Clone(t.keys), subs: map[string]*memTable{}}
	for name, sub := range t.subs {
		c.subs[name] = sub.clone()
	}
	return c
}

func (m *memory) View(fn func(store.Tx) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return fn(&memTx{root: m.root})
}

// Update runs fn on a copy of the tables, which replaces them if fn
// succeeds.
func (m *memory) Update(fn func(store.Tx) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	tx := &memTx{root: m.root.clone(), write: true}
	if err := fn(tx); err != nil {
		return err
	}
	m.root = tx.root
	return nil
}

type memTx struct {
	root  *memTable
	write bool
}

var errReadOnly = errors.New("storetest: a write in a View")

// table returns the table at path, made where missing if create is set;
// nil where it is missing.
func (tx *memTx) table(path []string, create bool) *memTable {
	t := tx.root
	for _, name := range path {
		sub := t.subs[name]
		if sub == nil && create {
			if t.subs == nil {
				t.subs = map[string]*memTable{}
			}
			sub = &memTable{}
			t.subs[name] = sub
		}
		if sub == nil {
			return nil
		}
		t = sub
	}
	return t
}

func (tx *memTx) Get(table []string, key []byte) []byte {
	if t := tx.table(table, false); t != nil {
		return t.keys[string(key)]
	}
	return nil
}

func (tx *memTx) Scan(table []string, prefix []byte, fn func(key, value []byte) error) error {
	t := tx.table(table, false)
	if t == nil {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(t.keys)) {
		if strings.HasPrefix(k, string(prefix)) {
			if err := fn([]byte(k), t.keys[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (tx *memTx) Tables(above []string, depth int, fn func(names []string) error) error {
	var walk func(t *memTable, names []string, depth int) error
	walk = func(t *memTable, names []string, depth int) error {
		if depth == 0 {
			return fn(names)
		}
		for _, name := range slices.Sorted(maps.Keys(t.subs)) {
			if err := walk(t.subs[name], append(names[:len(names):len(names)], name), depth-1); err != nil {
				return err
			}
		}
		return nil
	}
	if t := tx.table(above, false); t != nil {
		return walk(t, nil, depth)
	}
	return nil
}

func (tx *memTx) Put(table []string, key, value []byte) error {
	if !tx.write {
		return errReadOnly
	}
	if len(key) == 0 {
		return errors.New("storetest: an empty key")
	}
	t := tx.table(table, true)
	if t.keys == nil {
		t.keys = map[string][]byte{}
	}
	t.keys[string(key)] = bytes.Clone(value)
	return nil
}

func (tx *memTx) Delete(table []string, key []byte) error {
	if !tx.write {
		return errReadOnly
	}
	if t := tx.table(table, false); t != nil {
		delete(t.keys, string(key))
	}
	return nil
}

func (tx *memTx) Drop(table []string) (bool, error) {
	if !tx.write {
		return false, errReadOnly
	}
	if len(table) == 0 {
		return false, errors.New("storetest: Drop of no table")
	}
	parent := tx.table(table[:len(table)-1], false)
	if parent == nil || parent.subs[table[len(table)-1]] == nil {
		return false, nil
	}
	delete(parent.subs, table[len(table)-1])
	return true, nil
}
