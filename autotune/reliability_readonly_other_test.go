//go:build !linux

package autotune_test

import (
	"os"
	"testing"
)

// makeUnwritable makes the file at path unwritable with its permissions,
// which does not stop root.
func makeUnwritable(tb testing.TB, path string) (ok bool, why string) {
	tb.Helper()
	if os.Geteuid() == 0 {
		return false, "root ignores permissions and this platform has no immutable attribute here"
	}
	return chmodUnwritable(tb, path)
}
