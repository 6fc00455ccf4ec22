package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gofrs/flock"
)

// After a wait for another process's lock runs out, the next lockBackoff
// of waits last at most lockRetry: a process that held the lock that long
// is likely to go on holding it, and waiting the whole timeout again at
// every lookup and commit would stall the caller for seconds a question.
const (
	lockBackoff = 30 * time.Second
	lockRetry   = 50 * time.Millisecond
)

// lockWait is how long to wait for another process's lock now.
func (bf *boltFile) lockWait() time.Duration {
	if at := bf.lockedAt.Load(); at != 0 && time.Since(time.Unix(0, at)) < lockBackoff {
		return min(lockRetry, bf.timeout)
	}
	return bf.timeout
}

// lockedError is a wait for another process's lock on the file that ran
// out, with how long it waited.
type lockedError struct{ waited time.Duration }

func (e lockedError) Error() string { return fmt.Sprintf("store: lock timeout after %v", e.waited) }

// lockPoll is how often a wait for another process's lock tries again: a
// commit holds the lock for milliseconds.
const lockPoll = 5 * time.Millisecond

// lockPath takes the advisory lock bbolt uses (shared, or exclusive) on
// the file at path, through a descriptor of its own opened with flag (a
// file not there is fs.ErrNotExist), waiting at most wait.
func lockPath(ctx context.Context, path string, flag int, exclusive bool, wait time.Duration) (*flock.Flock, error) {
	fl := flock.New(path, flock.SetFlag(flag))
	try := fl.TryRLockContext
	if exclusive {
		try = fl.TryLockContext
	}
	if err := lockWithin(ctx, wait, func(ctx context.Context) error {
		_, err := try(ctx, lockPoll)
		return err
	}); err != nil {
		return nil, err
	}
	return fl, nil
}

// lockWithin runs lock, which polls for a file lock until the context it
// is given ends, for at most wait: a lockedError when the wait ran out,
// ctx's own error when ctx ended first (no back-off).
func lockWithin(ctx context.Context, wait time.Duration, lock func(context.Context) error) error {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err := lock(wctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return lockedError{wait}
	}
	return err
}
