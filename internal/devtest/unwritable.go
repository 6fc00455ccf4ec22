package devtest

import (
	"os"
	"testing"
)

// chmodUnwritable takes the write permissions off path (a file or a
// folder), restored when tb ends.
func chmodUnwritable(tb testing.TB, path string) (bool, string) {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		return false, err.Error()
	}
	mode := fi.Mode().Perm()
	if err := os.Chmod(path, mode&^0o222); err != nil {
		return false, err.Error()
	}
	tb.Cleanup(func() {
		if err := os.Chmod(path, mode); err != nil {
			tb.Errorf("restoring the permissions of %s: %v", path, err)
		}
	})
	return true, ""
}
