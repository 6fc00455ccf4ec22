package autotune_test

import (
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
)

func TestBucket(t *testing.T) {
	tests := []struct {
		level autotune.Level
		in    []int
		want  string
	}{
		{autotune.Balanced, []int{1000, 1024, 1025}, "1024x1024x2048"},
		{autotune.Balanced, []int{8192, 1, 3}, "8192x1x4"},
		{autotune.Minimal, []int{8192, 1000, 5}, "16384x1024x16"},
		{autotune.Extensive, []int{3, 5, 1000}, "3x6x1024"},
		{autotune.Full, []int{1000, 7}, "1000x7"},
	}
	for _, tc := range tests {
		got := tc.level.Bucket(kernels.SizeOf(tc.in...)).String()
		if got != tc.want {
			t.Errorf("%s.Bucket(%v) = %s, want %s", tc.level, tc.in, got, tc.want)
		}
	}
	var zero autotune.Options
	if zero.Level != autotune.Balanced {
		t.Errorf("the zero Options level is %s, want balanced", zero.Level)
	}
}

func TestKeyRoundTrip(t *testing.T) {
	k, err := autotune.ParseKey("gemm/f32/4096x4096x4096")
	if err != nil {
		t.Fatal(err)
	}
	if k.String() != "gemm/f32/4096x4096x4096" || k.Size.Len() != 3 {
		t.Errorf("round trip = %+v", k)
	}
	for _, bad := range []string{"", "gemm", "gemm/f32", "gemm/f32/0", "gemm/f32/4x-1", "/f32/4", "gemm/f32/1x2x3x4x5"} {
		if _, err := autotune.ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) succeeded", bad)
		}
	}
}
