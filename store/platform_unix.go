//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package store

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// canRelock says that this platform can release and take again the lock of
// a file that stays open (flock(2)), so a read handle is kept between
// lookups without holding the lock between them.
const canRelock = true

// lockFile takes the advisory lock bbolt uses (shared, or exclusive),
// waiting at most timeout. It polls as bbolt does, but starts with short
// waits: a commit holds the lock for milliseconds.
func lockFile(f *os.File, exclusive bool, timeout time.Duration) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return err
		case time.Now().After(deadline):
			return errLocked
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// unlockFile releases the lock taken by lockFile (or by bolt.Open).
func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// ownedByMe reports whether the file fi describes belongs to this
// process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
