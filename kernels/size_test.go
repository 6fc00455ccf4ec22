package kernels_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

func TestParseSize(t *testing.T) {
	dims := []string{"M", "N", "K"}
	for _, tt := range []struct {
		in   string
		want kernels.Size
	}{
		{"67x45x33", kernels.SizeOf(67, 45, 33)},
		{"K=33,M=67,N=45", kernels.SizeOf(67, 45, 33)},
		{"m=1Ki, n=2, k=1Mi", kernels.SizeOf(1024, 2, 1<<20)},
	} {
		got, err := kernels.ParseSize(dims, tt.in)
		if err != nil {
			t.Errorf("ParseSize(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseSize(%q) (-want +got):\n%s", tt.in, diff)
		}
		if again, err := kernels.ParseSize(dims, got.String()); err != nil || again != got {
			t.Errorf("ParseSize(%q.String()) = %v, %v", got, again, err)
		}
	}
	for _, bad := range []string{"", "1x2", "1x2x3x4", "0x1x1", "-1x2x3", "M=1,N=2", "M=1,N=2,K=3,M=4", "M=1,N=2,Q=3", "axbxc", "1x2x99999999999"} {
		_, err := kernels.ParseSize(dims, bad)
		if status.CodeOf(err) != status.InvalidArgument || strings.Count(fmt.Sprint(err), "INVALID_ARGUMENT") != 1 {
			t.Errorf("ParseSize(%q) = %v, want one INVALID_ARGUMENT", bad, err)
		}
	}
}

// TestSizeText: without dimension names ParseSize reads a tune-cache key's
// size, and a Size is its text in JSON, so that stored entries read back.
func TestSizeText(t *testing.T) {
	s, err := kernels.ParseSize(nil, "4096x2048x64")
	if err != nil || s != kernels.SizeOf(4096, 2048, 64) || s.Len() != 3 {
		t.Errorf("ParseSize(nil, 4096x2048x64) = %v (%d dims), %v", s, s.Len(), err)
	}
	for _, bad := range []string{"", "1x2x3x4x5", "0", "x"} {
		if _, err := kernels.ParseSize(nil, bad); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("ParseSize(nil, %q) = %v, want INVALID_ARGUMENT", bad, err)
		}
	}
	type stored struct {
		Shape kernels.Size `json:"shape"`
	}
	b, err := json.Marshal(stored{kernels.SizeOf(1000, 7)})
	if err != nil || string(b) != `{"shape":"1000x7"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back stored
	if err := json.Unmarshal(b, &back); err != nil || back.Shape != kernels.SizeOf(1000, 7) {
		t.Errorf("Unmarshal(%s) = %v, %v", b, back.Shape, err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = kernels.SizeOf(4096, 4096, 4096) == kernels.SizeOf(4096, 4096, 4096).With(2, 4096) }); n != 0 {
		t.Errorf("making and comparing sizes allocates %v times", n)
	}
}

// TestCheckSize: one extent per dimension, said in the singular for one;
// each positive, and below 2³¹ only for kernels that index with 32 bits
// (a Kernel of the vkbench package may index with 64, and took 2³¹ before
// CheckSize was its rule too).
func TestCheckSize(t *testing.T) {
	one, two := []string{"N"}, []string{"M", "N"}
	for _, tc := range []struct {
		dims    []string
		size    []int
		index32 bool
		says    string // "" for no error
	}{
		{one, []int{1 << 31}, false, ""},
		{one, []int{1<<31 - 1}, true, ""},
		{one, []int{1 << 31}, true, "dimension N = 2147483648 is outside [1, 2³¹)"},
		{one, []int{0}, true, "dimension N = 0 is outside [1, 2³¹)"},
		{one, []int{-1}, false, "dimension N = -1 is not positive"},
		{one, []int{1, 2}, true, `operation "scale" takes 1 dimension [N], not 2`},
		{two, []int{3}, false, `operation "scale" takes 2 dimensions [M N], not 1`},
		{two, []int{1, 2, 3, 4, 5}, false, "not 5"},
	} {
		err := kernels.CheckSize("scale", tc.dims, tc.size, tc.index32)
		if tc.says == "" && err != nil || tc.says != "" && (status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), tc.says)) {
			t.Errorf("CheckSize(%v, %v, %v) = %v, want %q", tc.dims, tc.size, tc.index32, err, tc.says)
		}
	}
}
