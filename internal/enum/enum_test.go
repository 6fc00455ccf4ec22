package enum_test

import (
	"testing"

	"github.com/vkbench/vkbench/internal/enum"
)

type color uint8

type mode int

// TestName: a value with a name reads as it; one past the names, or one
// they leave out, reads as unknown, with its number where unknown asks
// for it, negative numbers too.
func TestName(t *testing.T) {
	names := []string{1: "red", 2: "green"}
	for _, c := range []struct {
		v             color
		unknown, want string
	}{
		{1, "color(%d)", "red"},
		{2, "other", "green"},
		{0, "color(%d)", "color(0)"},
		{3, "color(%d)", "color(3)"},
		{200, "other", "other"},
	} {
		if got := enum.Name(c.v, names, c.unknown); got != c.want {
			t.Errorf("Name(%d, %q) = %q, want %q", uint8(c.v), c.unknown, got, c.want)
		}
	}
	if got := enum.Name(mode(-1), []string{"code"}, "Mode(%d)"); got != "Mode(-1)" {
		t.Errorf("Name(-1) = %q, want Mode(-1)", got)
	}
	if got := enum.Name(mode(0), []string{"code"}, "Mode(%d)"); got != "code" {
		t.Errorf("Name(0) = %q, want code", got)
	}
}
