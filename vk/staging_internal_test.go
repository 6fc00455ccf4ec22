//go:build cgo

package vk

import (
	"bytes"
	"testing"
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
