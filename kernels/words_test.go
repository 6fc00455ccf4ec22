package kernels_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// memBuffer is a hal.Buffer in host memory.
type memBuffer struct {
	hal.Buffer
	b []byte
}

func (m *memBuffer) Write(_ context.Context, off int64, data []byte) error {
	copy(m.b[off:], data)
	return nil
}

func (m *memBuffer) Read(_ context.Context, off int64, dst []byte) error {
	copy(dst, m.b[off:])
	return nil
}

// TestWords: WriteWords puts 32-bit words in a buffer little-endian, as a
// device holds them, whatever the host's order, and ReadWords reads them
// back: on this host, and by the branch a big-endian host takes, which
// no host here runs otherwise.
func TestWords(t *testing.T) {
	for _, host := range []struct {
		name  string
		write func(context.Context, hal.Buffer, []float32) error
		read  func(context.Context, hal.Buffer, []int32) error
	}{
		{"this host", kernels.WriteWords[float32], kernels.ReadWords[int32]},
		{"a big-endian host", kernels.WriteWordsBigEndianHost[float32], kernels.ReadWordsBigEndianHost[int32]},
	} {
		ctx := context.Background()
		const n = 1<<16 + 3
		buf := &memBuffer{b: make([]byte, 4*n)}
		in := make([]float32, n)
		for i := range in {
			in[i] = float32(i) - 0.5
		}
		if err := host.write(ctx, buf, in); err != nil {
			t.Fatal(err)
		}
		for i, f := range in {
			if got := binary.LittleEndian.Uint32(buf.b[4*i:]); got != math.Float32bits(f) {
				t.Fatalf("%s: word %d in the buffer is %#x, want %#x", host.name, i, got, math.Float32bits(f))
			}
		}
		for i := range n {
			binary.LittleEndian.PutUint32(buf.b[4*i:], uint32(byte(i))|uint32(byte(i>>8))<<24)
		}
		out := make([]int32, n)
		if err := host.read(ctx, buf, out); err != nil {
			t.Fatal(err)
		}
		for i, v := range out {
			if want := int32(uint32(byte(i)) | uint32(byte(i>>8))<<24); v != want {
				t.Fatalf("%s: out[%d] = %#x, want %#x", host.name, i, v, want)
			}
		}
	}
}
