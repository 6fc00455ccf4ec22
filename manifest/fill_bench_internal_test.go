package manifest

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
)

// BenchmarkFill fills 128 MiB of random f32 into a device buffer as
// allocate does: an input, and an input an expected value reads (kept on
// the host as well).
func BenchmarkFill(b *testing.B) {
	ctx := context.Background()
	dev := devtest.Device(b)
	f32, _ := lookupScalarType("f32")
	const bytes = 128 << 20
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: bytes, Label: "filled"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = buf.Release() })
	in := bufferInit{kind: "random", lo: floatValue(-1), hi: floatValue(1)}
	for _, read := range []bool{false, true} {
		b.Run(fmt.Sprintf("read=%v", read), func(b *testing.B) {
			b.SetBytes(bytes)
			for b.Loop() {
				var keep []byte
				if read {
					keep = make([]byte, bytes)
				}
				if err := fill(ctx, buf, bytes/4, f32, in.source(f32, kernels.NewRand(1, 0)), keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
