//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package store

import (
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
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

// lockFile takes the lock bolt.Open is about to take on f, its own
// descriptor (exclusive, or shared), trying every lockPoll until ctx
// ends, with ctx's error: bolt.Open's own wait knows nothing of a
// caller's context. flock(2) on a descriptor that holds the lock already
// takes it again at once.
func lockFile(ctx context.Context, f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		switch err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); {
		case err == nil:
			return nil
		case !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR):
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
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
