package faulty

import (
	"context"

	"github.com/vkbench/vkbench/hal"
)

type buffer struct{ wrapped[hal.Buffer] }

func (b *buffer) Size() int64 { return b.inner.Size() }

func (b *buffer) Memory() hal.MemoryKind { return b.inner.Memory() }

func (b *buffer) Write(ctx context.Context, offset int64, data []byte) error {
	return b.dev.forward(BufferWrite, func() error { return b.inner.Write(ctx, offset, data) })
}

func (b *buffer) Read(ctx context.Context, offset int64, dst []byte) error {
	f, err := b.dev.enter(BufferRead)
	if err != nil {
		return err
	}
	if err := b.inner.Read(ctx, offset, dst); err != nil || !f.corrupt {
		return err
	}
	for i := range dst {
		dst[i] ^= 0xff
	}
	return nil
}
