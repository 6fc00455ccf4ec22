//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package store

import (
	"os"
	"syscall"
)

// canRelock says that this platform's file locks (flock(2)) can be
// released while the file stays open and mapped, and taken again, so a
// read handle is kept between lookups without holding the lock between
// them.
const canRelock = true

// unlockFile releases the lock bolt.Open took on its own descriptor of
// the file, which only a call on that descriptor can release.
func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// ownedByMe reports whether the file fi describes belongs to this
// process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
