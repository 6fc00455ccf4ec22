//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package store

import (
	"os"
	"syscall"
)

// ownedByMe reports whether the file fi describes belongs to this
// process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
