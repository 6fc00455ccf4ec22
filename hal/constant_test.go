package hal_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// TestConstants: a list of specialization constants and its map say the
// same, the list in constant_id order; a constant_id given twice is an
// error that names it, and the map keeps the last value, as every caller's
// own loop did.
func TestConstants(t *testing.T) {
	values := map[uint32]uint32{7: 1, 0: 64, 3: 2}
	cs := hal.ConstantsOf(values)
	if diff := cmp.Diff([]hal.Constant{{0, 64}, {3, 2}, {7, 1}}, cs); diff != "" {
		t.Errorf("ConstantsOf (-want +got):\n%s", diff)
	}
	back, err := hal.ConstantValues(cs)
	if diff := cmp.Diff(values, back); err != nil || diff != "" {
		t.Errorf("ConstantValues: %v (-want +got):\n%s", err, diff)
	}
	if cs := hal.ConstantsOf(nil); cs != nil {
		t.Errorf("ConstantsOf(nil) = %v, want nil", cs)
	}
	twice, err := hal.ConstantValues([]hal.Constant{{1, 5}, {2, 6}, {1, 7}, {2, 8}})
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "specialization constant 1 is given twice") {
		t.Errorf("constant_id 1 twice: %v, want INVALID_ARGUMENT naming it", err)
	}
	if diff := cmp.Diff(map[uint32]uint32{1: 7, 2: 8}, twice); diff != "" {
		t.Errorf("constant_id 1 twice (-want +got):\n%s", diff)
	}
}
