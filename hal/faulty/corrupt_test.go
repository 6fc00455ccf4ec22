package faulty_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
)

// TestCorruptRead: the read CorruptRead names returns the buffer's words
// with every bit flipped, the reads around it what the buffer holds, and
// the injection is counted.
func TestCorruptRead(t *testing.T) {
	plan := faulty.NewPlan()
	r := newRig(t, openDriver(t), plan)
	b := r.buffer(64, hal.DeviceLocal)
	words := randomWords(1, 64)
	r.write(b, words)
	flipped := make([]uint32, len(words))
	for i, w := range words {
		flipped[i] = ^w
	}
	plan.CorruptRead(2)
	for i, want := range [][]uint32{words, flipped, words} {
		if diff := cmp.Diff(want, r.read(b)); diff != "" {
			t.Errorf("read %d (-want +got):\n%s", i+1, diff)
		}
	}
	if n := plan.Faults(faulty.BufferRead); n != 1 {
		t.Errorf("%d BufferRead faults counted, want 1", n)
	}
}
