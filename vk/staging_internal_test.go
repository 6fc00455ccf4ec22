//go:build cgo

package vk

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/vkbench/vkbench/hal"
)

func TestParallelCopy(t *testing.T) {
	for _, n := range []int{0, 1, 1<<20 - 1, 1 << 20, 2<<20 + 7, 16 << 20} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + i>>11)
		}
		dst := make([]byte, n+3)
		dst[n], dst[n+1], dst[n+2] = 0xaa, 0xbb, 0xcc
		parallelCopy(dst[:n], src)
		if !bytes.Equal(dst[:n], src) {
			t.Errorf("%d bytes: copy differs", n)
		}
		if dst[n] != 0xaa || dst[n+1] != 0xbb || dst[n+2] != 0xcc {
			t.Errorf("%d bytes: wrote past the end", n)
		}
	}
}

// TestStagedTransfers: a device-local buffer of several staging chunks,
// written and read whole, at an odd offset and in a span that begins and
// ends inside chunks, holds what was written.
func TestStagedTransfers(t *testing.T) {
	d := openDefault(t, true)
	ctx := context.Background()
	const size = 3*stagingChunk + 13
	hb, err := d.CreateBuffer(hal.BufferDesc{Size: size, Memory: hal.DeviceLocal, Label: "staged"})
	if err != nil {
		t.Fatal(err)
	}
	defer release(t, hb)
	b := hb.(*buffer)
	if b.mapped != nil {
		t.Skip("the device-local memory is host-visible here: nothing is staged") // integrated GPUs
	}
	model := make([]byte, size) // random: a pattern might repeat chunk to chunk
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range model {
		model[i] = byte(rng.Uint32())
	}
	check := func(what string, off, n int) {
		t.Helper()
		got := make([]byte, n)
		if err := b.Read(ctx, int64(off), got); err != nil {
			t.Fatalf("%s: Read(%d, %d bytes): %v", what, off, n, err)
		}
		if i := firstDiff(got, model[off:off+n]); i >= 0 {
			t.Errorf("%s: Read(%d, %d bytes): byte %d (of the buffer) is %#x, want %#x", what, off, n, off+i, got[i], model[off+i])
		}
	}
	if err := b.Write(ctx, 0, model); err != nil {
		t.Fatal(err)
	}
	check("written whole", 0, size)
	check("a span across two chunk boundaries", stagingChunk-5, stagingChunk+12)
	for i := 3; i < size; i++ {
		model[i] ^= 0x5a
	}
	if err := b.Write(ctx, 3, model[3:]); err != nil {
		t.Fatal(err)
	}
	check("written at offset 3", 0, size)

}

// firstDiff is the index of the first byte where a and b differ, -1 where
// none does.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// BenchmarkStagedTransfer measures Write and Read of a device-local
// buffer of 256 MiB (16 staging chunks), through the staging slots, in
// bytes a second:
//
//	go test ./vk -run '^$' -bench StagedTransfer
func BenchmarkStagedTransfer(b *testing.B) {
	d := openDefault(b, false)
	ctx := context.Background()
	const size = 256 << 20
	hb, err := d.CreateBuffer(hal.BufferDesc{Size: size, Memory: hal.DeviceLocal, Label: "staged"})
	if err != nil {
		b.Fatal(err)
	}
	defer release(b, hb)
	data := make([]byte, size)
	for _, c := range []struct {
		name string
		f    func(context.Context, int64, []byte) error
	}{{"write", hb.Write}, {"read", hb.Read}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				if err := c.f(ctx, 0, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
