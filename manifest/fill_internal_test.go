package manifest

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/status"
)

// TestFillPieces fills a buffer of one fillChunk and three elements more,
// so that its last piece is short, and reads it back: every element is
// where it belongs, none left out or written twice; kept, as for an input
// an expected value reads, the host copy holds them too.
func TestFillPieces(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	u32, _ := lookupScalarType("u32")
	n := int64(fillChunk/4 + 3)
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * n, Label: "filled"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = buf.Release() })
	for _, keep := range [][]byte{nil, make([]byte, 4*n)} {
		if err := buf.Write(ctx, 0, make([]byte, 4*n)); err != nil {
			t.Fatal(err)
		}
		if err := fill(ctx, buf, n, u32, func(k int64, dst []byte) { binary.LittleEndian.PutUint32(dst, uint32(k)) }, keep); err != nil {
			t.Fatalf("fill: %v", err)
		}
		got := make([]byte, 4*n)
		if err := buf.Read(ctx, 0, got); err != nil {
			t.Fatal(err)
		}
		for what, b := range map[string][]byte{"the buffer": got, "the kept copy": keep} {
			for k := range int64(len(b) / 4) {
				if v := binary.LittleEndian.Uint32(b[4*k:]); v != uint32(k) {
					t.Fatalf("element %d of %d (piece %d) of %s = %d; want %d", k, n, 4*k/fillChunk, what, v, k)
				}
			}
		}
	}
}

// TestFillWriteFails makes the write of a fill's first piece of three
// fail: fill returns that error, and neither makes nor writes another.
func TestFillWriteFails(t *testing.T) {
	ctx := context.Background()
	plan := faulty.NewPlan()
	dev := faulty.Wrap(devtest.Device(t), plan)
	u32, _ := lookupScalarType("u32")
	per := int64(fillChunk / 4)
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * 3 * per, Label: "filled"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = buf.Release() })
	plan.FailNth(faulty.BufferWrite, 1, status.Aborted)
	var made int64
	err = fill(ctx, buf, 3*per, u32, func(int64, []byte) { made++ }, nil)
	if !errors.Is(err, faulty.ErrInjected) {
		t.Fatalf("fill = %v; want the injected error", err)
	}
	if made != per {
		t.Errorf("fill made %d elements; want %d, one piece", made, per)
	}
	if w := plan.Calls(faulty.BufferWrite); w != 1 {
		t.Errorf("fill wrote %d times; want once", w)
	}
}

// TestFillCancelled cancels a fill's context while it makes its second
// piece of three: fill returns the context's error within fillCheck
// elements, having written the first piece alone.
func TestFillCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	plan := faulty.NewPlan()
	dev := faulty.Wrap(devtest.Device(t), plan)
	u32, _ := lookupScalarType("u32")
	per := int64(fillChunk / 4)
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * 3 * per, Label: "filled"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = buf.Release() })
	var late int64
	err = fill(ctx, buf, 3*per, u32, func(k int64, _ []byte) {
		if ctx.Err() != nil {
			late++
		}
		if k == per+100 {
			cancel()
		}
	}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("fill = %v; want %v", err, context.Canceled)
	}
	if late > fillCheck {
		t.Errorf("fill made %d elements after it was cancelled; want at most %d", late, fillCheck)
	}
	if w := plan.Calls(faulty.BufferWrite); w != 1 {
		t.Errorf("fill wrote %d times; want once, the first piece", w)
	}
}
