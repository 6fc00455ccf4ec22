package autotune_test

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h (chattr +i), which
// x/sys/unix does not name.
const fsImmutableFL = 0x10

// makeUnwritable makes the file at path unwritable even to root, with the
// immutable attribute (chattr +i), undone at cleanup. It reports why not
// when the file system or the process's capabilities do not allow it.
func makeUnwritable(tb testing.TB, path string) (ok bool, why string) {
	tb.Helper()
	if os.Geteuid() != 0 {
		return chmodUnwritable(tb, path)
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer closeOK(tb, f)
	flags, err := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return false, "FS_IOC_GETFLAGS: " + err.Error()
	}
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags|fsImmutableFL); err != nil {
		return false, "chattr +i: " + err.Error()
	}
	tb.Cleanup(func() {
		f, err := os.Open(path)
		if err != nil {
			tb.Error(err)
			return
		}
		defer closeOK(tb, f)
		if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags&^fsImmutableFL); err != nil {
			tb.Errorf("chattr -i %s: %v", path, err)
		}
	})
	return true, ""
}
