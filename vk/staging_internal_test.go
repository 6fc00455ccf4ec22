//go:build cgo

package vk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
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
	b := stagedBuffer(t, d, size)
	model := randomBytes(5, size)
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
	if bytes.Equal(a, b) {
		return -1
	}
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

// chunkCtx is a context that ends with err (nil: it does not end) once
// the device has queued after submissions, having run fire first: it
// counts a transfer's chunks as they are queued, so that a test can end
// it, or release the device, after the first.
type chunkCtx struct {
	context.Context
	d     *device
	after uint64
	err   error
	fire  func()
	once  sync.Once
	done  chan struct{}
}

func newChunkCtx(d *device, err error, fire func()) *chunkCtx {
	d.queueMu.Lock()
	defer d.queueMu.Unlock()
	return &chunkCtx{Context: context.Background(), d: d, after: d.submitted + 1, err: err, fire: fire, done: make(chan struct{})}
}

// queued is how many submissions the device has queued.
func queued(d *device) uint64 {
	d.queueMu.Lock()
	defer d.queueMu.Unlock()
	return d.submitted
}

func (c *chunkCtx) check() {
	if queued(c.d) < c.after {
		return
	}
	c.once.Do(func() {
		if c.fire != nil {
			c.fire()
		}
		if c.err != nil {
			close(c.done)
		}
	})
}

func (c *chunkCtx) Done() <-chan struct{} { c.check(); return c.done }

func (c *chunkCtx) Err() error {
	c.check()
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// TestStagedTransferEnds: a staged Write or Read whose context ends
// (cancelled, or past its deadline) after its first chunk is queued
// returns the context's error as its status and queues no other chunk;
// the device's next transfers, through the same staging slots, move
// the right bytes.
func TestStagedTransferEnds(t *testing.T) {
	d := openDefault(t, true)
	const size = 2*stagingChunk + 13
	b := stagedBuffer(t, d, size)
	for _, c := range []struct {
		name  string
		write bool
		err   error
		code  status.Code
	}{
		{"write cancelled", true, context.Canceled, status.Cancelled},
		{"write past its deadline", true, context.DeadlineExceeded, status.DeadlineExceeded},
		{"read cancelled", false, context.Canceled, status.Cancelled},
		{"read past its deadline", false, context.DeadlineExceeded, status.DeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := newChunkCtx(d, c.err, nil)
			f, op := b.Read, "Read"
			if c.write {
				f, op = b.Write, "Write"
			}
			err := f(ctx, 0, make([]byte, size))
			if status.CodeOf(err) != c.code || !errors.Is(err, c.err) {
				t.Errorf("%s = %v (code %v), want code %v matching %v", op, err, status.CodeOf(err), c.code, c.err)
			}
			if n := queued(d) - ctx.after + 1; n != 1 {
				t.Errorf("%s queued %d chunks, want 1: the one queued before its context ended", op, n)
			}
			model := randomBytes(2, size)
			if err := b.Write(context.Background(), 0, model); err != nil {
				t.Fatalf("Write after: %v", err)
			}
			got := make([]byte, size)
			if err := b.Read(context.Background(), 0, got); err != nil {
				t.Fatalf("Read after: %v", err)
			}
			if i := firstDiff(got, model); i >= 0 {
				t.Errorf("Write and Read after: byte %d is %#x, want %#x", i, got[i], model[i])
			}
		})
	}
}

// TestStagedTransferReleased: the device released by another goroutine
// while a staged Write or Read is between chunks: the transfer fails with
// hal.ErrReleased, and Release returns nil.
func TestStagedTransferReleased(t *testing.T) {
	for _, write := range []bool{true, false} {
		d := openDefault(t, true)
		const size = 3 * stagingChunk
		b := stagedBuffer(t, d, size)
		f, op := b.Read, "Read"
		if write {
			f, op = b.Write, "Write"
		}
		released := make(chan error, 1)
		ctx := newChunkCtx(d, nil, func() {
			go func() { released <- d.Release() }()
			for !d.released.Load() {
				runtime.Gosched()
			}
		})
		if err := f(ctx, 0, make([]byte, size)); !errors.Is(err, hal.ErrReleased) || !strings.Contains(fmt.Sprint(err), "Buffer."+op) {
			t.Errorf("%s during Device.Release = %v, want hal.ErrReleased, naming Buffer.%[1]s", op, err)
		}
		if err := <-released; err != nil {
			t.Errorf("Device.Release during %s: %v", op, err)
		}
	}
}

// stagedBuffer is a device-local buffer of d, staged; it skips t where
// device-local memory is host-visible.
func stagedBuffer(t *testing.T, d *device, size int64) *buffer {
	t.Helper()
	hb, err := d.CreateBuffer(hal.BufferDesc{Size: size, Memory: hal.DeviceLocal, Label: "staged"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(t, hb) })
	b := hb.(*buffer)
	if b.mapped != nil {
		t.Skip("the device-local memory is host-visible here: nothing is staged") // integrated GPUs
	}
	return b
}

// randomBytes is n bytes of a generator seeded by seed: random, as a
// pattern might repeat chunk to chunk.
func randomBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{byte(seed)}).Read(b)
	return b
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
