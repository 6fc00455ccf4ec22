package kernels_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// mismatchesBefore is Mismatches as it was before its differences were
// described lazily, verbatim: Add took a format and boxed its arguments
// for every wrong element, and AddF32's callers formatted the index
// first. It stays as the control of BenchmarkWrongElements and the
// oracle of TestMismatchesText.
type mismatchesBefore struct {
	What  string
	count int64
	shown []string
}

func (m *mismatchesBefore) Add(format string, args ...any) {
	if len(m.shown) < 3 {
		m.shown = append(m.shown, fmt.Sprintf(format, args...))
	}
	m.count++
}

func (m *mismatchesBefore) Err(checked int64) error {
	if m.count == 0 {
		return nil
	}
	more := ""
	if m.count > int64(len(m.shown)) {
		more = fmt.Sprintf("; and %d more", m.count-int64(len(m.shown)))
	}
	return status.Wrapf(kernels.ErrWrongResult, status.OK, "kernels: %s: %d of %d checked values wrong: %s%s", m.What, m.count, checked, strings.Join(m.shown, "; "), more)
}

func (m *mismatchesBefore) AddF32(index string, got float32, want, tol float64) {
	if len(m.shown) == 3 {
		m.count++
		return
	}
	m.Add("%s: got %.9g, want %.9g (|difference| %.3g > tolerance %.3g)", index, got, want, math.Abs(float64(got)-want), tol)
}

// wrongElements is a result wrong everywhere: n elements, each checked
// as triad checks a float (within a tolerance, its index formatted) and
// as transpose checks a word (exactly, its indices and values described).
const wrongElements = 1 << 12

func wrongBefore(m *mismatchesBefore) {
	for k := range int64(wrongElements) {
		g, want := float32(k)+0.5, float64(k)
		m.AddF32(fmt.Sprintf("a[%d]", k), g, want, 1e-6)
		i, j, w := k%64, k/64, math.Float32bits(g)
		m.Add("out[%d][%d]: got %.9g (0x%08x), want in[%d][%d] = %.9g (exact)", j, i, math.Float32frombits(w), w, i, j, float32(want))
	}
}

func wrongNow(m *kernels.Mismatches) {
	for k := range int64(wrongElements) {
		g, want := float32(k)+0.5, float64(k)
		m.AddF32(g, want, 1e-6, "a[%d]", k)
		i, j, w := k%64, k/64, math.Float32bits(g)
		m.Add(func() string {
			return fmt.Sprintf("out[%d][%d]: got %.9g (0x%08x), want in[%d][%d] = %.9g (exact)", j, i, math.Float32frombits(w), w, i, j, float32(want))
		})
	}
}

// TestMismatchesText: what a user reads of a wrong result is word for
// word what it was when every difference was formatted, for one wrong
// element, for a few, and for many, added directly and merged from parts.
func TestMismatchesText(t *testing.T) {
	for _, n := range []int64{1, 2, wrongElements} {
		before := mismatchesBefore{What: "op/cand"}
		now := kernels.Mismatches{What: "op/cand"}
		for k := range n {
			before.AddF32(fmt.Sprintf("C[%d][%d]", k, k+1), float32(k)+0.25, float64(k), 0.125)
			now.AddF32(float32(k)+0.25, float64(k), 0.125, "C[%d][%d]", k, k+1)
			before.Add("y[%d]: got %d, want %d (exact)", k, int32(-k), uint32(k))
			now.Add(func() string { return fmt.Sprintf("y[%d]: got %d, want %d (exact)", k, int32(-k), uint32(k)) })
		}
		merged := kernels.Mismatches{What: "op/cand"}
		for _, half := range [][2]int64{{0, n / 2}, {n / 2, n}} {
			part := kernels.Mismatches{What: "op/cand"}
			for k := half[0]; k < half[1]; k++ {
				part.AddF32(float32(k)+0.25, float64(k), 0.125, "C[%d][%d]", k, k+1)
				part.Add(func() string { return fmt.Sprintf("y[%d]: got %d, want %d (exact)", k, int32(-k), uint32(k)) })
			}
			merged.Merge(&part)
		}
		want := before.Err(3 * n).Error()
		if got := now.Err(3 * n).Error(); got != want {
			t.Errorf("%d wrong: %s\nbefore: %s", n, got, want)
		}
		if got := merged.Err(3 * n).Error(); got != want {
			t.Errorf("%d wrong, merged from parts: %s\nbefore: %s", n, got, want)
		}
	}
	if err := (&kernels.Mismatches{}).Err(10); err != nil {
		t.Errorf("nothing added: %v", err)
	}
}

// TestWrongResultIsAVerdict: a kernel under test that computes a wrong
// result is a verdict on that kernel, FAILED_PRECONDITION (it stays wrong
// until fixed), not INTERNAL, which would tell a user that vkbench itself
// is broken; the text a person reads says what is wrong, without a code.
func TestWrongResultIsAVerdict(t *testing.T) {
	m := kernels.Mismatches{What: "op/cand"}
	m.AddF32(1.5, 1, 0.125, "y[%d]", 7)
	err := m.Err(8)
	if c := status.CodeOf(err); c != status.FailedPrecondition || !errors.Is(err, kernels.ErrWrongResult) {
		t.Errorf("code %v (matches ErrWrongResult: %v), want FAILED_PRECONDITION matching it", c, errors.Is(err, kernels.ErrWrongResult))
	}
	const want = "op/cand: 1 of 8 checked values wrong: y[7]: got 1.5, want 1 (|difference| 0.5 > tolerance 0.125): wrong result"
	if got := status.TextForPeople(err.Error()); got != "kernels: "+want {
		t.Errorf("a person reads %q, want %q", got, "kernels: "+want)
	}
}

// TestWrongElementsAllocateNothing: once the differences shown are
// described, a wrong element costs no allocation, however it is added.
func TestWrongElementsAllocateNothing(t *testing.T) {
	m := kernels.Mismatches{What: "op/cand"}
	wrongNow(&m)
	if allocs := testing.AllocsPerRun(10, func() { wrongNow(&m) }); allocs != 0 {
		t.Errorf("%v allocations for %d wrong elements past those shown; want 0", allocs, 2*wrongElements)
	}
}

// BenchmarkWrongElements records a result wrong in every element, as a
// badly wrong candidate's check does, the way the checks do now and did
// before: its ns/op and allocs/op side by side are the ratio.
func BenchmarkWrongElements(b *testing.B) {
	b.Run("before", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			wrongBefore(&mismatchesBefore{What: "bench"})
		}
	})
	b.Run("now", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			wrongNow(&kernels.Mismatches{What: "bench"})
		}
	})
}
