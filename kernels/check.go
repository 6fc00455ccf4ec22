package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/vkbench/vkbench/status"
)

// NewRand returns the generator for one stream of a problem's data: the
// same seed and stream always give the same numbers, and different streams
// (one per input buffer) are independent.
func NewRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15^stream))
}

// Mismatches collects the differences a Verify finds and reports the
// first few and how many there were. What names the candidate checked.
//
// Only the differences shown are described: a badly wrong result has
// millions of wrong elements, checked for every candidate of a tune, and
// past the first few each costs a count, with nothing formatted and
// nothing allocated.
type Mismatches struct {
	What  string
	count int64
	shown []string
}

const shownMismatches = 3

// Add records one difference; describe says what it is, and is called
// only while the difference is one of those shown.
func (m *Mismatches) Add(describe func() string) {
	if len(m.shown) < shownMismatches {
		m.shown = append(m.shown, describe())
	}
	m.count++
}

// Err returns nil if nothing was added, else an error matching
// ErrWrongResult that names the first Mismatches.
func (m *Mismatches) Err(checked int64) error {
	if m.count == 0 {
		return nil
	}
	more := ""
	if m.count > int64(len(m.shown)) {
		more = fmt.Sprintf("; and %d more", m.count-int64(len(m.shown)))
	}
	return status.Wrapf(ErrWrongResult, status.OK, "kernels: %s: %d of %d checked values wrong: %s%s", m.What, m.count, checked, strings.Join(m.shown, "; "), more)
}

// AddF32 records that a float was got, not within tol of want. It is at
// index, a format of the integers at ("a[%d]", "C[%d][%d]"), formatted
// only where the difference is shown.
func (m *Mismatches) AddF32(got float32, want, tol float64, index string, at ...int64) {
	m.Add(func() string {
		args := make([]any, len(at))
		for i, n := range at {
			args[i] = n
		}
		return fmt.Sprintf("%s: got %.9g, want %.9g (|difference| %.3g > tolerance %.3g)", fmt.Sprintf(index, args...), got, want, math.Abs(float64(got)-want), tol)
	})
}

// Merge adds what o found after what m found: a check split into parts
// run at once (each with a Mismatches of its own) merges them in order,
// so that the first differences shown are still the lowest indices.
func (m *Mismatches) Merge(o *Mismatches) {
	m.count += o.count
	n := min(len(o.shown), shownMismatches-len(m.shown))
	m.shown = append(m.shown, o.shown[:n]...)
}
