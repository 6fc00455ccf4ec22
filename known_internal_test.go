package vkbench

import (
	"fmt"
	"sync"
	"testing"
)

// knownKey is a question for the table: an operation and a size.
type knownKey struct {
	op   *operation
	size []int
}

// knownKeys are questions that a table must tell apart: the same sizes
// of two operations (one of them of other dimensions), extents swapped,
// and sizes that differ in one extent only, each one a word that a hash
// of the wrong words would miss.
func knownKeys() []knownKey {
	a, b := &operation{dims: []string{"M", "N"}}, &operation{dims: []string{"M", "N"}}
	c := &operation{dims: []string{"M", "N", "K", "B"}}
	var keys []knownKey
	for i := 1; i <= 40; i++ {
		keys = append(keys,
			knownKey{a, []int{i, 1}}, knownKey{a, []int{1, i + 1}},
			knownKey{b, []int{i, 1}}, knownKey{b, []int{1, i + 1}},
			knownKey{c, []int{i, 1, 1, 1}}, knownKey{c, []int{1, 1, 1, i + 1}}, knownKey{c, []int{1 << 40, 1, i, 1}})
	}
	return keys
}

// TestKnownAnswers: every question stored is answered with its own
// pipeline, through the table's growth, and none that was not stored is;
// storing a question again replaces its answer and adds no entry.
func TestKnownAnswers(t *testing.T) {
	var m knownAnswers
	keys := knownKeys()
	answers := make(map[string]*Pipeline)
	for i, k := range keys {
		if p := m.load(k.op, k.size); p != nil {
			t.Fatalf("%p %v: answered before it was stored", k.op, k.size)
		}
		p := &Pipeline{}
		m.store(k.op, k.size, p)
		answers[fmt.Sprintf("%p %v", k.op, k.size)] = p
		for _, k := range keys[:i+1] {
			if got, want := m.load(k.op, k.size), answers[fmt.Sprintf("%p %v", k.op, k.size)]; got != want {
				t.Fatalf("after %d stores: %p %v answered %p, want %p", i+1, k.op, k.size, got, want)
			}
		}
	}
	n := m.table.Load().n
	if n != len(keys) {
		t.Errorf("%d entries, want %d", n, len(keys))
	}
	k := keys[3]
	again := &Pipeline{}
	m.store(k.op, k.size, again)
	if got := m.load(k.op, k.size); got != again {
		t.Errorf("stored again: answered %p, want the new %p", got, again)
	}
	if got := m.table.Load().n; got != n {
		t.Errorf("stored again: %d entries, want %d", got, n)
	}
	for _, k := range []knownKey{{k.op, []int{2, 2}}, {&operation{dims: k.op.dims}, k.size}} {
		if got := m.load(k.op, k.size); got != nil {
			t.Errorf("%p %v: answered %p, never stored", k.op, k.size, got)
		}
	}
}

// TestKnownAnswersStartOver: a table of maxKnown answers starts over
// empty at the next new one, so that memory stays bounded.
func TestKnownAnswersStartOver(t *testing.T) {
	var m knownAnswers
	o := &operation{dims: []string{"N"}}
	p := &Pipeline{}
	for n := 1; n <= maxKnown; n++ {
		m.store(o, []int{n}, p)
	}
	if m.load(o, []int{1}) != p || m.load(o, []int{maxKnown}) != p {
		t.Fatalf("a full table lost an answer")
	}
	m.store(o, []int{maxKnown + 1}, p)
	if m.load(o, []int{1}) != nil || m.load(o, []int{maxKnown + 1}) != p {
		t.Errorf("past maxKnown answers: the first still answered, or the last not")
	}
	if n := m.table.Load().n; n != 1 {
		t.Errorf("%d entries after starting over, want 1", n)
	}
}

// TestKnownAnswersConcurrent: readers probing while a writer inserts and
// grows the table find every answer stored before they looked (run with
// -race, it also shows the table's reads and writes are synchronized).
func TestKnownAnswersConcurrent(t *testing.T) {
	var m knownAnswers
	keys := knownKeys()
	first := keys[:len(keys)/4]
	p := &Pipeline{}
	for _, k := range first {
		m.store(k.op, k.size, p)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				for _, k := range first {
					if m.load(k.op, k.size) != p {
						t.Errorf("%p %v: lost while the table grew", k.op, k.size)
						return
					}
				}
			}
		})
	}
	for _, k := range keys[len(first):] {
		m.store(k.op, k.size, p)
	}
	wg.Wait()
}
