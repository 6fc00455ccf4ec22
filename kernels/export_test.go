package kernels

import (
	"context"

	"github.com/vkbench/vkbench/hal"
)

// WriteWordsBigEndianHost and ReadWordsBigEndianHost are WriteWords and
// ReadWords by the branch a big-endian host takes, on any host.
func WriteWordsBigEndianHost[T ~uint32 | ~int32 | ~float32](ctx context.Context, buf hal.Buffer, words []T) error {
	return writeWords(ctx, buf, words, false)
}

func ReadWordsBigEndianHost[T ~uint32 | ~int32 | ~float32](ctx context.Context, buf hal.Buffer, words []T) error {
	return readWords(ctx, buf, words, false)
}
