package catalogue

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/vkbench/vkbench/kernels"
)

func TestAffinePower(t *testing.T) {
	for _, tt := range []struct{ a, b, x uint32 }{
		{3, 7, 11}, {0xdeadbeef, 0x12345678, 0x9abcdef0}, {1, 1, 0}, {0, 5, 9}, {0xffffffff, 3, 1},
	} {
		x := tt.x
		for iters := int64(0); iters <= 70; iters++ {
			ra, rb := affinePower(tt.a, tt.b, iters)
			if got := ra*tt.x + rb; got != x {
				t.Fatalf("a=%d b=%d: %d steps from %d: got %d, want %d", tt.a, tt.b, iters, tt.x, got, x)
			}
			x = tt.a*x + tt.b
		}
	}
}

func TestParallelKeepsOrderAndCount(t *testing.T) {
	const n = 1 << 20
	bad := map[int64]bool{5: true, 700000: true, 700001: true, n - 1: true}
	m := kernels.Mismatches{What: "test"}
	parallel(n, 1, &m, func(lo, hi int64, m *kernels.Mismatches) {
		for i := lo; i < hi; i++ {
			if bad[i] {
				m.Add(func() string { return fmt.Sprintf("x[%d]", i) })
			}
		}
	})
	// The count and the first differences, lowest indices first.
	want := "kernels: test: 4 of 1048576 checked values wrong: x[5]; x[700000]; x[700001]; and 1 more"
	if err := m.Err(n); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Err = %v, want %s", err, want)
	}
}

func TestRandomFillDoesNotDependOnProcessors(t *testing.T) {
	const n = 5*randomBlock + 17
	prev := runtime.GOMAXPROCS(1)
	one := randomWords(7, 3, n)
	runtime.GOMAXPROCS(4)
	four := randomWords(7, 3, n)
	runtime.GOMAXPROCS(prev)
	for i := range one {
		if one[i] != four[i] {
			t.Fatalf("word %d: %#x with one processor, %#x with four", i, one[i], four[i])
		}
	}
	if other := randomWords(8, 3, n); other[0] == one[0] && other[n-1] == one[n-1] {
		t.Error("another seed gave the same words")
	}
	if s := randomSigned(7, 3, n); s[0] < -1 || s[0] >= 1 {
		t.Errorf("randomSigned out of [-1, 1): %v", s[0])
	}
}

// TestParallelSharesFewLargeBlocks checks that a range of a few blocks,
// each standing for many elements, is still shared among the processors
// (transpose's check of a gigabyte ran on one core when it was not).
func TestParallelSharesFewLargeBlocks(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one processor: nothing to share")
	}
	const blocks = 64
	var mu sync.Mutex
	calls := 0
	covered := make([]bool, blocks)
	m := kernels.Mismatches{What: "test"}
	parallel(blocks, 1<<16, &m, func(lo, hi int64, _ *kernels.Mismatches) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		for b := lo; b < hi; b++ {
			if covered[b] {
				t.Errorf("block %d checked twice", b)
			}
			covered[b] = true
		}
	})
	if calls < 2 {
		t.Errorf("%d blocks of 2¹⁶ elements went to %d call(s) of fn, want one per processor", blocks, calls)
	}
	for b, ok := range covered {
		if !ok {
			t.Errorf("block %d not checked", b)
		}
	}
}
