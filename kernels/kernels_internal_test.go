package kernels

import "testing"

func TestAffinePower(t *testing.T) {
	for _, tt := range []struct{ a, b, x uint32 }{
		{3, 7, 11}, {0xdeadbeef, 0x12345678, 0x9abcdef0}, {1, 1, 0}, {0, 5, 9}, {0xffffffff, 3, 1},
	} {
		x := tt.x
		for iters := int64(0); iters <= 70; iters++ {
			ra, rb := affinePower(tt.a, tt.b, iters)
			if got := ra*tt.x + rb; got != x {
				t.Fatalf("a=%d b=%d: %d steps from %d: got %d, want %d", tt.a, tt.b, iters, tt.x, got, x)
			}
			x = tt.a*x + tt.b
		}
	}
}
