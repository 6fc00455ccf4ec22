//go:build linux

package devtest

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h (chattr +i), which
// x/sys/unix does not name.
const fsImmutableFL = 0x10

// MakeUnwritable makes the file or folder at path unwritable, even to
// root: with its permissions for other users, with the immutable attribute
// (chattr +i) for root, undone when tb ends. It reports why not when the
// file system or the process's capabilities do not allow it.
func MakeUnwritable(tb testing.TB, path string) (ok bool, why string) {
	tb.Helper()
	if os.Geteuid() != 0 {
		return chmodUnwritable(tb, path)
	}
	if err := setImmutable(path, true); err != nil {
		return false, "chattr +i: " + err.Error()
	}
	tb.Cleanup(func() {
		if err := setImmutable(path, false); err != nil {
			tb.Errorf("chattr -i %s: %v", path, err)
		}
	})
	return true, ""
}

// setImmutable sets or clears the immutable attribute of path.
func setImmutable(path string, on bool) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	flags, err := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return err
	}
	if on {
		flags |= fsImmutableFL
	} else {
		flags &^= fsImmutableFL
	}
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags)
}
