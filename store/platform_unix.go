//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package store

import (
	"errors"
	"os"
	"sync"
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

// processGone reports whether no process has id pid: kill(2) with signal
// 0 finds none (ESRCH). A process of another user exists (EPERM), and so
// does one that has exited but that its parent has not yet reaped.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// pidNamespace names the process namespace of this process's id where the
// platform has namespaces (Linux: "pid:[4026531836]"), else "".
var pidNamespace = sync.OnceValue(func() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
})
