package manifest

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
)

// TestFillPieces fills a buffer of one fillChunk and three elements more,
// so that its last piece is short, and reads it back: every element is
// where it belongs, none left out or written twice.
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
	if err := fill(ctx, buf, n, u32, func(k int64, dst []byte) { binary.LittleEndian.PutUint32(dst, uint32(k)) }); err != nil {
		t.Fatalf("fill: %v", err)
	}
	got := make([]byte, 4*n)
	if err := buf.Read(ctx, 0, got); err != nil {
		t.Fatal(err)
	}
	for k := range n {
		if v := binary.LittleEndian.Uint32(got[4*k:]); v != uint32(k) {
			t.Fatalf("element %d of %d (piece %d) = %d; want %d", k, n, 4*k/fillChunk, v, k)
		}
	}
}
