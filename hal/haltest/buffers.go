package haltest

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// memoryKinds are the kinds every device must offer.
var memoryKinds = []hal.MemoryKind{hal.DeviceLocal, hal.HostVisible}

func testBufferReadWrite(e *env) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mem := range memoryKinds {
		// An odd size, so that no backend can round it away.
		const size = 4099
		b := e.buffer(size, mem)
		if b.Size() != size {
			e.Errorf("%v buffer: Size() = %d, want %d", mem, b.Size(), size)
		}
		if b.Memory() != mem {
			e.Errorf("%v buffer: Memory() = %v", mem, b.Memory())
		}
		model := random[byte](rng, size)
		e.write(b, 0, model)
		for _, w := range []struct{ off, n int64 }{
			{0, 1}, {1, 3}, {5, 1000}, {size - 7, 7}, {size - 1, 1}, {4093, 2}, {2047, 1025}, {3, 0},
		} {
			data := random[byte](rng, int(w.n))
			e.write(b, w.off, data)
			copy(model[w.off:], data)
		}
		check(e, fmt.Sprintf("%v buffer after writes at odd offsets", mem), e.read(b, 0, size), model, 0)
		for _, r := range []struct{ off, n int64 }{
			{0, 1}, {1, 3}, {7, 1001}, {size - 3, 3}, {size - 1, 1},
		} {
			check(e, fmt.Sprintf("%v buffer: Read(offset %d, %d bytes)", mem, r.off, r.n), e.read(b, r.off, r.n), model[r.off:r.off+r.n], 0)
		}

		for _, bad := range []struct{ off, n int64 }{
			{-1, 1}, {-4, 8}, {size - 3, 4}, {size, 1}, {size + 1, 1}, {0, size + 1}, {1 << 40, 4},
		} {
			junk := bytes.Repeat([]byte{0x5a}, int(bad.n))
			wantCode(e, fmt.Sprintf("%v buffer of %d bytes: Write(offset %d, %d bytes)", mem, size, bad.off, bad.n),
				b.Write(e.ctx, bad.off, junk), status.InvalidArgument, nil)
			wantCode(e, fmt.Sprintf("%v buffer of %d bytes: Read(offset %d, %d bytes)", mem, size, bad.off, bad.n),
				b.Read(e.ctx, bad.off, junk), status.InvalidArgument, nil)
		}
		check(e, fmt.Sprintf("%v buffer changed by out-of-range writes that failed", mem), e.read(b, 0, size), model, 0)

		// Large enough that a backend staging through a smaller buffer
		// must split the copy.
		const large = 5<<20 + 13
		big := e.buffer(large, mem)
		data := random[byte](rng, large)
		e.write(big, 0, data)
		check(e, fmt.Sprintf("%v buffer of %d bytes read back", mem, large), e.read(big, 0, large), data, 0)
		e.write(big, 3, data[:large-3])
		check(e, fmt.Sprintf("%v buffer of %d bytes written and read at offset 3", mem, large), e.read(big, 3, large-3), data[:large-3], 0)
	}
}

// random returns n values of rng's draws, bytes or words.
func random[T byte | uint32](rng *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(rng.Uint32())
	}
	return v
}
