package hal_test

import (
	"testing"

	"github.com/vkbench/vkbench/hal"
)

// TestBindingIndex: a (set, binding) has its place in the flat list of an
// executable's bindings, set 0's first, then set 1's; without Sets every
// binding is in set 0; a binding past its set's count, or a set past
// Sets, has none. vk's check of a module's bindings and the root
// package's buffer sizes both ask it.
func TestBindingIndex(t *testing.T) {
	spread := hal.ExecutableDesc{Bindings: 5, Sets: []int{2, 0, 3}}
	flat := hal.ExecutableDesc{Bindings: 3}
	for _, c := range []struct {
		desc         hal.ExecutableDesc
		set, binding uint32
		want         int
		ok           bool
	}{
		{spread, 0, 0, 0, true},
		{spread, 0, 1, 1, true},
		{spread, 0, 2, 0, false},
		{spread, 1, 0, 0, false},
		{spread, 2, 0, 2, true},
		{spread, 2, 2, 4, true},
		{spread, 2, 3, 0, false},
		{spread, 3, 0, 0, false},
		{flat, 0, 2, 2, true},
		{flat, 0, 3, 0, false},
		{flat, 1, 0, 0, false},
	} {
		if got, ok := c.desc.BindingIndex(c.set, c.binding); got != c.want || ok != c.ok {
			t.Errorf("sets %v of %d: BindingIndex(%d, %d) = %d, %v; want %d, %v", c.desc.Sets, c.desc.Bindings, c.set, c.binding, got, ok, c.want, c.ok)
		}
	}
}
