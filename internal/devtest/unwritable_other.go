//go:build !linux

package devtest

import (
	"os"
	"testing"
)

// MakeUnwritable makes the file or folder at path unwritable with its
// permissions, which does not stop root.
func MakeUnwritable(tb testing.TB, path string) (ok bool, why string) {
	tb.Helper()
	if os.Geteuid() == 0 {
		return false, "root ignores permissions and this platform has no immutable attribute here"
	}
	return chmodUnwritable(tb, path)
}
