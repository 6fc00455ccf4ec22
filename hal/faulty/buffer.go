package faulty

import (
	"context"

	"github.com/vkbench/vkbench/hal"
)

var _ hal.Buffer = (*buffer)(nil)

// buffer wraps a hal.Buffer.
type buffer struct {
	dev   *device
	inner hal.Buffer
}

// unwrapBuffer returns the inner buffer of b if b is a wrapper, else b, so
// that a foreign buffer reaches the inner device as it is, to be refused
// there.
func unwrapBuffer(b hal.Buffer) hal.Buffer {
	if w, ok := b.(*buffer); ok {
		return w.inner
	}
	return b
}

func (b *buffer) Size() int64 { return b.inner.Size() }

func (b *buffer) Memory() hal.MemoryKind { return b.inner.Memory() }

func (b *buffer) Write(ctx context.Context, offset int64, data []byte) error {
	if err := b.dev.enter(BufferWrite); err != nil {
		return err
	}
	return b.inner.Write(ctx, offset, data)
}

func (b *buffer) Read(ctx context.Context, offset int64, dst []byte) error {
	if err := b.dev.enter(BufferRead); err != nil {
		return err
	}
	return b.inner.Read(ctx, offset, dst)
}

func (b *buffer) Release() error {
	b.dev.plan.decide(Release, true)
	return b.inner.Release()
}
