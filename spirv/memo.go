package spirv

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// modules remembers the modules Parse read last, so that a module checked
// by several layers on its way to a pipeline is read once.
var modules = &memo{seed: maphash.MakeSeed(), byHash: map[uint64]memoEntry{}}

// memoSize bounds what is remembered: a program that builds endlessly many
// modules starts over rather than grow without end.
const memoSize = 512

type memo struct {
	mu     sync.Mutex
	seed   maphash.Seed
	byHash map[uint64]memoEntry
}

type memoEntry struct {
	code []byte // a copy: callers may reuse their slices
	m    *Module
}

func (c *memo) get(code []byte) (*Module, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byHash[maphash.Bytes(c.seed, code)]
	if !ok || !bytes.Equal(e.code, code) {
		return nil, false
	}
	return e.m, true
}

func (c *memo) put(code []byte, m *Module) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byHash) >= memoSize {
		clear(c.byHash)
	}
	c.byHash[maphash.Bytes(c.seed, code)] = memoEntry{code: bytes.Clone(code), m: m}
}
