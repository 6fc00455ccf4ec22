package autotune

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"time"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// The shared tier (store.Store.Shared) is asked after the local file and
// before measuring, and it is a trust boundary: its answer names its
// winner by the digest of the winner's kernel (Entry.FastestDigest), which
// must be one of this machine's candidates and is verified on this device
// (kernels.VerifyCandidate) before its first use here. Whoever can write
// the shared store can choose among this machine's verified candidates,
// never what code runs or whether it is checked.

// digest is the digest a shared answer names candidate c by (kernels.Digest
// of c alone).
func digest(c kernels.Candidate) string {
	d := kernels.Digest([]kernels.Candidate{c})
	return hex.EncodeToString(d[:])
}

// fromShared returns the shared tier's answer for k, trusted and copied
// into the local file; nil when there is none, or none to trust (with a
// warning), or one whose winner's digest is *rejected: that one failed its
// check here, which is set to the digest of each that fails (see fail).
// ctx ending while it verifies is its error.
func (t *Tuner) fromShared(ctx context.Context, op kernels.Operation, k Key, sum string, rejected *string) (*Entry, error) {
	shared := t.store.Shared()
	if shared == nil {
		return nil, nil
	}
	e, err := ReadEntry(ctx, shared, t.table, k, sum)
	if err != nil || e == nil {
		return nil, nil // a failed tier and an unreadable value have warned
	}
	index := slices.IndexFunc(op.Candidates(), func(c kernels.Candidate) bool { return e.FastestDigest != "" && digest(c) == e.FastestDigest })
	switch {
	case index < 0:
		t.store.Warn("autotune: shared store %s: %s: the answer for %s names a kernel (digest %q) that is none of this machine's candidates; ignored", shared.Path(), t.table, k, e.FastestDigest)
		return nil, nil
	case e.FastestDigest == *rejected: // checked here already, and warned
		return nil, nil
	}
	if err := kernels.VerifyCandidate(ctx, t.dev, op, k.Size, index, t.opts.Seed); err != nil {
		if ctx.Err() != nil {
			return nil, status.Wrap(ctx.Err(), status.CodeOf(ctx.Err()), "autotune: verifying the shared store's answer for "+k.String())
		}
		*rejected = e.FastestDigest
		t.store.Warn("autotune: shared store %s: %s: the answer for %s, %s, failed on this device and is ignored: %v", shared.Path(), t.table, k, op.Candidates()[index].Name, err)
		return nil, nil
	}
	e.Fastest, e.FastestName = index, op.Candidates()[index].Name
	stored, _ := commit(ctx, t.store, t.table, k, sum, e, false) // a file that cannot be written has warned
	return t.answered(k, sum, stored, FromShared, shared.Path()), nil
}

// answered remembers e, the answer to k that the tier from (at where)
// gave, and logs it for -v.
func (t *Tuner) answered(k Key, sum string, e *Entry, from Tier, where string) *Entry {
	t.remember(k, sum, e.Fastest)
	e.From = from
	if t.opts.Logger != nil {
		t.opts.Logger.Debug("autotune: answered from "+string(from), "key", k, "from", where)
	}
	return e
}

// patience is how long claim waits for a lock another holds: the tier's
// LockWait at most (a tune, which then tunes without the lock), or as
// long as the holder renews it (a search, which may take an hour, and a
// forced tune).
type patience int

const (
	untilLockWait patience = iota
	whileRenewed
)

// claimed is what claim found: the answer taken, or the lease of the
// key's lock (nil if none: a store without locks, or a wait that gave
// up); and whether it waited for another process, which may meanwhile
// have written what a caller read before (a tuning log).
type claimed struct {
	answer *Entry
	lease  *store.Lease
	waited bool
}

// claim answers k from the local file, else the shared tier, else from
// the process that holds k's lock (the shared tier's, or without one the
// file's), as long as wait says; or takes the lock and returns its lease,
// to release once the answer is committed. A holder that died stops
// renewing its lock, which expires and is taken over (at once where the
// holder was a process of this host that no longer exists). A shared tier
// that fails leaves the file's lock; a store with no locks, or one that
// fails, gives neither answer nor lease: answer k here. Without take, no
// answer is taken: it waits for the lock alone (a search that continues
// its own log, a forced search or tune). A shared answer that fails its
// check here is not checked again while it waits (rejected: fromShared).
// ctx ending while it waits is its error, of ctx's code, and so is the
// device's end.
func (t *Tuner) claim(ctx context.Context, op kernels.Operation, k Key, sum string, wait patience, take bool, rejected *string) (claimed, error) {
	if take {
		if e := t.fromFile(ctx, k, sum); e != nil {
			return claimed{answer: e}, nil
		}
	}
	locks := cmp.Or(t.store.Shared(), t.store)
	name := t.table.String() + "/" + string(entryKey(k, sum))
	poll := min(250*time.Millisecond, locks.LockExpiry()/4)
	most := locks.LockWait()
	if wait == whileRenewed {
		most = 0
	}
	var since time.Time // when the wait began; zero once its end is told
	waited := false
	ended := func() {
		if !since.IsZero() {
			t.waiting(Progress{Key: k.String(), Step: "waited", Waited: time.Since(since), MaxWait: most}, locks)
			since = time.Time{}
		}
	}
	defer ended()
	deadline := time.Now().Add(locks.LockWait())
	for {
		if err := cmp.Or(ctx.Err(), t.Err()); err != nil { // before taking a free lock too
			what := "autotune: " + k.String()
			if !since.IsZero() {
				who, _ := t.lockedBy(locks)
				what = "autotune: waiting for " + who + "'s work on " + k.String()
			}
			return claimed{}, status.Wrap(err, status.CodeOf(err), what)
		}
		lease, holder, err := locks.TryLock(ctx, name)
		if err != nil && ctx.Err() != nil {
			continue // ended while it waited for the file: said above
		}
		if err != nil && locks != t.store {
			// A shared tier that fails (it has warned) leaves the
			// processes of this machine the file's lock.
			locks = t.store
			continue
		}
		if lease != nil && lease.TookOver() != "" {
			ended()
			t.waiting(Progress{Key: k.String(), Step: "took over", Holder: lease.TookOver()}, locks)
		}
		// The answer of the holder, committed to the file or the shared
		// tier while it held the lock.
		if take {
			e, ferr := t.fromFile(ctx, k, sum), error(nil)
			if e == nil {
				e, ferr = t.fromShared(ctx, op, k, sum, rejected)
			}
			if e != nil || ferr != nil {
				if lease != nil {
					_ = lease.Release() // a failed release expires
				}
				return claimed{answer: e, waited: waited}, ferr
			}
		}
		if err != nil || lease != nil {
			return claimed{lease: lease, waited: waited}, nil
		}
		waited = true
		now, step := time.Now(), "waiting"
		switch {
		case since.IsZero():
			since, step = now, "wait"
		case now.After(deadline):
			if wait == untilLockWait {
				ended() // before the warning: a display clears what it drew
				who, place := t.lockedBy(locks)
				t.store.Warn("autotune: %s %s: waited %v for %s's tune of %s; tuning it here", place, locks.Path(), locks.LockWait(), who, k)
				return claimed{waited: true}, nil
			}
			// Still held: renewed within LockExpiry, so still at work.
			deadline, step = now.Add(locks.LockWait()), "wait"
		}
		t.waiting(Progress{Key: k.String(), Step: step, Holder: holder, Waited: now.Sub(since), MaxWait: most}, locks)
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
	}
}

// waiting tells Progress of a wait for another process's lock in locks,
// and the Logger, at Info, of its start, of each lock wait it goes on (a
// wait of up to an hour is news to a program that only logs) and of a
// lock taken over.
func (t *Tuner) waiting(p Progress, locks *store.Store) {
	p.InFile = locks == t.store
	if t.opts.Progress != nil {
		t.opts.Progress(p)
	}
	who, _ := t.lockedBy(locks)
	switch l := t.opts.Logger; {
	case l != nil && p.Step == "took over":
		l.Info("autotune: took over the lock of "+p.Key+" from a process of this host that no longer exists", "holder", p.Holder, "store", locks.Path())
	case l != nil && p.Step == "wait":
		msg := "autotune: waiting for " + who + "'s work on " + p.Key
		if p.Waited > 0 {
			msg = "autotune: still waiting for " + who + "'s work on " + p.Key + ", which renews its lock"
		}
		l.Info(msg, "holder", p.Holder, "waited", p.Waited.Round(time.Second), "max_wait", p.MaxWait, "store", locks.Path())
	}
}

// lockedBy says who holds a lock of locks, and where: another process in
// the cache file, or another machine in the shared store.
func (t *Tuner) lockedBy(locks *store.Store) (who, place string) {
	if locks == t.store {
		return "another process", "cache file"
	}
	return "another machine", "shared store"
}

// publish commits e, the answer measured here for k, to the local file
// and the shared tier by commit's rule, and remembers the file's. own
// replaces the file's answer all the same: a search's, picked from a log
// that holds every point the file's (this machine's earlier search) was
// picked from. The error is the local file's (the shared tier has
// warned), or ctx's.
func (t *Tuner) publish(ctx context.Context, op kernels.Operation, k Key, sum string, e *Entry, force, own bool) (*Entry, error) {
	e.FastestDigest = digest(op.Candidates()[e.Fastest])
	stored, err := commit(ctx, t.store, t.table, k, sum, e, force || own)
	t.remember(k, sum, stored.Fastest)
	if shared := t.store.Shared(); shared != nil && stored.Fastest >= 0 {
		c := *stored
		c.FastestDigest = digest(op.Candidates()[stored.Fastest])
		_, _ = commit(ctx, shared, t.table, k, sum, &c, force)
	}
	return stored, err
}
