package kernels

import (
	"context"
	"encoding/binary"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
)

// littleEndian is whether the host's byte order is the devices' own: a
// storage buffer holds 32-bit words little-endian.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// WriteWords writes words to the start of buf as the device holds them:
// from words' own memory on a little-endian host, without a copy, from a
// little-endian copy elsewhere.
func WriteWords[T ~uint32 | ~int32 | ~float32](ctx context.Context, buf hal.Buffer, words []T) error {
	return writeWords(ctx, buf, words, littleEndian)
}

// ReadWords reads len(words) words from the start of buf into words, as
// WriteWords writes them.
func ReadWords[T ~uint32 | ~int32 | ~float32](ctx context.Context, buf hal.Buffer, words []T) error {
	return readWords(ctx, buf, words, littleEndian)
}

// writeWords is WriteWords on a host whose order is little-endian or not:
// a test runs the other host's branch too.
func writeWords[T ~uint32 | ~int32 | ~float32](ctx context.Context, buf hal.Buffer, words []T, hostLittle bool) error {
	if hostLittle {
		return buf.Write(ctx, 0, WordBytes(words))
	}
	b, _ := binary.Append(nil, binary.LittleEndian, words) // 32-bit words always encode
	return buf.Write(ctx, 0, b)
}

// readWords is ReadWords as writeWords is WriteWords.
func readWords[T ~uint32 | ~int32 | ~float32](ctx context.Context, buf hal.Buffer, words []T, hostLittle bool) error {
	if hostLittle {
		return buf.Read(ctx, 0, WordBytes(words))
	}
	b := make([]byte, 4*len(words))
	if err := buf.Read(ctx, 0, b); err != nil {
		return err
	}
	_, err := binary.Decode(b, binary.LittleEndian, words)
	return err
}

// WordBytes is the memory of words seen as bytes, without a copy: in the
// host's byte order, which WriteWords and ReadWords turn into the device's.
func WordBytes[T ~uint32 | ~int32 | ~float32](words []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 4*len(words))
}
