package vkbench

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/vkbench/vkbench/kernels"
)

// knownAnswers are a Tuner's answers from memory: (operation, exact size)
// to pipeline, in an open-addressed table that readers probe without a
// lock and without writing anything shared. A sync.Map did the same job
// at twice the cost of a whole hit.
//
// Writers hold mu. A slot only ever goes from empty to an entry, or from
// an entry to an entry of the same key, so a reader sees the table before
// or after an insertion; a table that fills past half is rebuilt at twice
// the size and swapped in whole.
type knownAnswers struct {
	table atomic.Pointer[knownTable]
	mu    sync.Mutex
}

// knownTable is one generation of the answers. Its slots are a power of
// two, at most half full, so that a probe ends at an empty slot soon.
type knownTable struct {
	seed  uint64 // mixed into every hash: sizes chosen to collide at one seed do not at another
	n     int    // entries, counted under knownAnswers.mu
	slots []atomic.Pointer[known]
}

// maxKnown bounds the exact-size answers a Tuner keeps: a program asking
// about endlessly many exact sizes starts over at it (the bucketed
// answers stay with the autotune tuner).
const maxKnown = 1 << 16

// known is an answer from memory. It holds the operation, so that its
// address, which the key compares, is not reused while the entry lives.
type known struct {
	op   *operation
	size [kernels.MaxDims]int // unused extents zero
	p    *Pipeline
}

// hashOf mixes o's address and size's extents with seed, one
// 64×64→128-bit multiply folded to 64 bits (wyhash's mix) per extent.
func hashOf(seed uint64, o *operation, size []int) uint64 {
	const m1, m2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	h := uint64(uintptr(unsafe.Pointer(o))) ^ seed
	for _, n := range size {
		hi, lo := bits.Mul64(h^m1, uint64(n)^m2)
		h = hi ^ lo
	}
	return h
}

// is reports whether e is the answer for o at size.
func (e *known) is(o *operation, size []int) bool {
	return e.op == o && slices.Equal(e.size[:len(size)], size)
}

// load returns the pipeline answered for o at size, or nil.
func (m *knownAnswers) load(o *operation, size []int) *Pipeline {
	t := m.table.Load()
	if t == nil {
		return nil
	}
	mask := uint64(len(t.slots) - 1)
	for i := hashOf(t.seed, o, size) & mask; ; i = (i + 1) & mask {
		e := t.slots[i].Load()
		if e == nil {
			return nil
		}
		if e.is(o, size) {
			return e.p
		}
	}
}

// store keeps p as the answer for o at size, replacing any answer it
// had.
func (m *knownAnswers) store(o *operation, size []int, p *Pipeline) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.table.Load()
	switch {
	case t == nil || t.n >= maxKnown:
		t = newKnownTable(16)
	case 2*(t.n+1) > len(t.slots):
		grown := newKnownTable(2 * len(t.slots))
		for i := range t.slots {
			if e := t.slots[i].Load(); e != nil {
				grown.insert(e)
			}
		}
		t = grown
	}
	m.table.Store(t)
	e := &known{op: o, p: p}
	copy(e.size[:], size)
	t.insert(e)
}

func newKnownTable(slots int) *knownTable {
	return &knownTable{seed: rand.Uint64(), slots: make([]atomic.Pointer[known], slots)}
}

// insert puts e in its key's slot, or in the first empty slot of its
// probe.
func (t *knownTable) insert(e *known) {
	mask := uint64(len(t.slots) - 1)
	size := e.size[:len(e.op.dims)]
	for i := hashOf(t.seed, e.op, size) & mask; ; i = (i + 1) & mask {
		old := t.slots[i].Load()
		if old == nil {
			t.n++
		}
		if old == nil || old.is(e.op, size) {
			t.slots[i].Store(e)
			return
		}
	}
}
