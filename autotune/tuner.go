package autotune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// Tuner answers "which candidate is fastest?" for one device: from memory,
// else from the store, else by measuring and committing the answer.
// It is safe for concurrent use; a key being tuned is Pending, and other
// callers asking for it wait for that tune instead of starting another.
type Tuner struct {
	dev   hal.Device
	store *store.Store
	table store.Table
	opts  Options

	// known holds, for each comparable operation value, its whole
	// candidate list (key: the operation) and the subsets of it that
	// apply at some sizes (Candidate.Applies; key: an applyKey), with
	// their checksums, each kept once made.
	known sync.Map

	mu      sync.Mutex
	pending map[answerKey]*tune
	// failed holds the last failure of each key whose tune failed for
	// its own sake (fail): the key is not tuned again before its time.
	failed map[answerKey]*failure
	// now is the clock of those times (time.Now; tests move theirs).
	now func() time.Time
	// stopped is Stop's cause: FastestOrDefault starts no tune after it.
	stopped error

	// answers are the answers known to this tuner: read from the store,
	// committed, or (where the store could not take them) only here.
	answerMu sync.RWMutex
	answers  map[answerKey]int
}

// applyKey is an operation and the indices of its candidates that apply.
type applyKey struct {
	op      kernels.Operation
	applies string
}

// applySubset is op restricted to the candidates at index (nil: all of
// them).
type applySubset struct {
	op    kernels.Operation
	index []int
	// sum is the checksum the subset is tuned under: for a subset, the
	// whole's, "+", the subset's, so that the answers of every subset of
	// one list stay side by side under a key (Commit).
	sum string
}

// answerKey is a question the tuner answers: a key, of a candidate list.
type answerKey struct {
	key      Key
	checksum string
}

func (t *Tuner) remember(k Key, checksum string, fastest int) {
	t.answerMu.Lock()
	t.answers[answerKey{k, checksum}] = fastest
	t.answerMu.Unlock()
}

// tune is one tune in flight; done closes when it ends. stopped is
// whether it ended because its caller's context did, which ends no other
// caller's. cancel is set where FastestOrDefault started it in the
// background, where nobody waits for its answer or its panic: it ends the
// tune's context, for Stop. measured is whether it got to measuring,
// where alone a failure is the key's own (fail). look is the key's last
// failure where its wait lasts: the tune reads the store, else is look.
// rejected is the digest of a shared answer that failed its check here
// (fromShared); within the wait, the failure's until another fails.
type tune struct {
	done     chan struct{}
	force    bool
	cancel   context.CancelCauseFunc
	entry    *Entry
	err      error
	stopped  bool
	measured bool
	look     error
	rejected string
}

// NewTuner makes a tuner for dev that keeps its answers in s, in the
// table of dev's hardware and opts.Tuner (+"+"+objective for another
// objective than time, such as "builtin+energy").
func NewTuner(dev hal.Device, s *store.Store, opts Options) *Tuner {
	opts.fill()
	table := store.Table{Hardware: dev.Info().Hardware(), Tuner: opts.Tuner}
	if opts.Objective != ObjectiveTime {
		table.Tuner += "+" + string(opts.Objective)
	}
	return &Tuner{
		dev:     dev,
		store:   s,
		table:   table,
		opts:    opts,
		pending: map[answerKey]*tune{},
		failed:  map[answerKey]*failure{},
		now:     time.Now,
		answers: map[answerKey]int{},
	}
}

// Table is where the tuner's answers are stored.
func (t *Tuner) Table() store.Table { return t.table }

// Store is the store the tuner keeps its answers in.
func (t *Tuner) Store() *store.Store { return t.store }

// Key returns the key that size of op is tuned under: bucketed by the
// tuning level, unless a candidate of op applies at size but not at the
// bucket's shape (kernels.Candidate.Applies): bucketing must never turn a
// candidate that is valid at the size asked into a failed one.
func (t *Tuner) Key(op kernels.Operation, size kernels.Size) Key {
	k := Key{Op: op.Name(), DType: op.DType().String(), Size: t.opts.Level.Bucket(size)}
	if k.Size != size && !appliesAt(op, k.Size) {
		k.Size = size
	}
	return k
}

// appliesAt reports whether every candidate of op applies at size.
func appliesAt(op kernels.Operation, size kernels.Size) bool {
	return !slices.ContainsFunc(op.Candidates(), func(c kernels.Candidate) bool { return c.Applies != nil && !c.Applies(size) })
}

// memo returns what create makes of op under key, kept where op is
// comparable (every time where it is not: no map can hold it).
func (t *Tuner) memo(op kernels.Operation, key any, create func() (applySubset, error)) (applySubset, error) {
	if !reflect.TypeOf(op).Comparable() {
		return create()
	}
	if s, ok := t.known.Load(key); ok {
		return s.(applySubset), nil
	}
	s, err := create()
	if err == nil {
		t.known.Store(key, s)
	}
	return s, err
}

// Err is the device's: nil while it works, an error matching
// hal.ErrDeviceLost once it is lost, or hal.ErrReleased once released.
func (t *Tuner) Err() error { return t.dev.Err() }

// Fastest returns the index of op's fastest candidate for size: from
// memory, else from the store, else tuned and committed. If another caller
// is tuning the key, Fastest waits for it (or for ctx), and tunes the key
// itself where that caller's context ended first; where Stop ended it (a
// tune FastestOrDefault started), Fastest returns Stop's cause. A key
// whose last tune failed for its own sake is that failure, untuned, until
// its wait is over, unless the store has an answer (see the package doc).
func (t *Tuner) Fastest(ctx context.Context, op kernels.Operation, size kernels.Size) (int, error) {
	i, _, err := t.fastest(ctx, op, size, false)
	return i, err
}

// FastestOrDefault is Fastest for callers that must never wait for a
// tune, such as a request with a deadline. Where neither memory nor the
// local file has the answer, it returns the default candidate (index 0)
// and pending true at once, and where nobody tunes the key it starts the
// tune in the background, on ctx's values but not its end
// (context.WithoutCancel): later FastestOrDefault calls get the default
// until it ends, and Fastest callers wait for it, as for any tune. A
// tune of the key that fails (a panic in it included, code Internal) is
// the error of the next FastestOrDefault call of the key, once; later
// calls get the store's answer, else the default, pending, and no tune
// starts until the failure's wait is over (see the package doc). A ctx
// already ended is its error, unless memory has the answer, and starts
// nothing, and so is Stop's cause after Stop: a program shutting down
// starts no tunes.
func (t *Tuner) FastestOrDefault(ctx context.Context, op kernels.Operation, size kernels.Size) (i int, pending bool, err error) {
	return t.fastest(ctx, op, size, true)
}

// fastest is Fastest, and with behind FastestOrDefault.
func (t *Tuner) fastest(ctx context.Context, op kernels.Operation, size kernels.Size, behind bool) (i int, pending bool, err error) {
	if err := t.Err(); err != nil {
		return 0, false, err
	}
	target, index, sum, err := t.applicable(op, size)
	if err != nil {
		return 0, false, err
	}
	k := t.Key(target, size)
	t.answerMu.RLock() // a hit allocates nothing
	i, ok := t.answers[answerKey{k, sum}]
	t.answerMu.RUnlock()
	if !ok {
		var e *Entry
		if behind {
			e, err = t.tuneBehind(ctx, target, k, sum)
		} else {
			e, err = t.tune(ctx, target, k, sum, false, untilLockWait)
		}
		switch _, notStored := errors.AsType[*NotStoredError](err); {
		case errors.Is(err, errPending):
			// The default candidate is the first that applies.
			i, pending = 0, true
		case err != nil && !notStored:
			return 0, false, err
		default: // an answer the store could not take answers all the same
			i = e.Fastest
		}
	}
	if index != nil {
		i = index[i]
	}
	return i, pending, nil
}

// Tune tunes op at size's key and commits the answer, unless the cache
// already has one (then that entry is returned without measuring). force
// measures again and replaces the stored answer, under the key's lock,
// never taking another's answer instead, nor that of an unforced tune of
// the key in flight in this process.
//
// When the answer cannot be written to the store, Tune returns the entry
// and a *NotStoredError: the answer is kept in memory, so that this tuner
// uses it, but the next process will tune again. Fastest does not fail
// for it; a caller whose purpose is to store answers should. A device
// lost while measuring returns, with the loss, the uncommitted entry of
// what was measured (Measure). Unless force, a key whose last tune failed
// is the store's answer, else that failure, while its wait lasts (see the
// package doc).
func (t *Tuner) Tune(ctx context.Context, op kernels.Operation, size kernels.Size, force bool) (*Entry, error) {
	if err := t.Err(); err != nil {
		return nil, err
	}
	target, index, sum, err := t.applicable(op, size)
	if err != nil {
		return nil, err
	}
	e, err := t.tune(ctx, target, t.Key(target, size), sum, force, untilLockWait)
	return e.remapped(index), err
}

// Stored returns what the cache holds for op at size, as Tune would
// answer it but without measuring: the entry, its indices op's, or nil
// (and no error) when the key has not been tuned. ctx ending while it
// waits (for another process's lock on the file, for a shared store) is
// its error, ctx's.
func (t *Tuner) Stored(ctx context.Context, op kernels.Operation, size kernels.Size) (*Entry, error) {
	target, index, sum, err := t.applicable(op, size)
	if err != nil {
		return nil, err
	}
	e, err := ReadEntry(ctx, t.store, t.table, t.Key(target, size), sum)
	return e.remapped(index), err
}

// NotStoredError is Tune's error when its answer could not be written to
// the store. Its code is the store's error's.
type NotStoredError struct {
	Key Key
	// Path is the store's file ("" for a store without one).
	Path string
	Err  error
}

// Error says which answer was not stored, in which file, and why.
func (e *NotStoredError) Error() string {
	return fmt.Sprintf("autotune: the answer for %s was not stored in the tune cache %s, only kept in memory: %v", e.Key, e.Path, e.Err)
}

// Unwrap returns the store's error.
func (e *NotStoredError) Unwrap() error { return e.Err }

var errPending = status.New(status.Unavailable, "autotune: key is being tuned")

// applicable returns the operation to tune for size and its checksum: op
// itself when every candidate applies at size (allocating nothing), else
// the subset of those that do, with their indices in op. No candidate
// applying is InvalidArgument.
func (t *Tuner) applicable(op kernels.Operation, size kernels.Size) (kernels.Operation, []int, string, error) {
	whole, _ := t.memo(op, op, func() (applySubset, error) { return applySubset{op: op, sum: Checksum(op.Candidates())}, nil })
	if appliesAt(op, size) {
		return op, nil, whole.sum, nil
	}
	applies := func(c kernels.Candidate) bool { return c.Applies == nil || c.Applies(size) }
	var index []int
	for i, c := range op.Candidates() {
		if applies(c) {
			index = append(index, i)
		}
	}
	if len(index) == 0 {
		return nil, nil, "", status.Newf(status.InvalidArgument, "autotune: no candidate of %s applies at size %v", op.Name(), size)
	}
	s, err := t.memo(op, applyKey{op, fmt.Sprint(index)}, func() (applySubset, error) {
		sub, err := kernels.Subset(op, applies)
		if err != nil {
			return applySubset{}, err
		}
		return applySubset{sub, index, whole.sum + "+" + Checksum(sub.Candidates())}, nil
	})
	return s.op, s.index, s.sum, err
}

// tune answers k by the tune in flight, or by tuning it (only reading
// the store while its last failure's wait lasts, unless force: start).
func (t *Tuner) tune(ctx context.Context, op kernels.Operation, k Key, sum string, force bool, wait patience) (*Entry, error) {
	mk := answerKey{k, sum}
	t.mu.Lock()
	if p, ok := t.pending[mk]; ok {
		t.mu.Unlock()
		select {
		case <-p.done:
			// This caller tunes k itself where the tune it joined was
			// stopped by its own caller's context, or was not forced and
			// this one is: that one may have kept the very answer the
			// force was asked to replace.
			if p.stopped && ctx.Err() == nil || force && !p.force {
				return t.tune(ctx, op, k, sum, force, wait)
			}
			return p.entry, p.err
		case <-ctx.Done():
			return nil, status.Wrap(ctx.Err(), status.CodeOf(ctx.Err()), "autotune: waiting for the tune of "+k.String())
		}
	}
	p := t.start(mk, force)
	t.mu.Unlock()
	t.run(ctx, op, k, sum, p, wait)
	return p.entry, p.err
}

// tuneBehind is tune for FastestOrDefault: the error of its last tune that
// failed, once, or errPending while a tune is in flight, or the local
// file's answer, or errPending, having started the tune in the background
// (only a reading of the store while the failure's wait lasts).
func (t *Tuner) tuneBehind(ctx context.Context, op kernels.Operation, k Key, sum string) (*Entry, error) {
	mk := answerKey{k, sum}
	t.mu.Lock()
	f := t.failed[mk]
	told := f == nil || f.told
	inFlight := t.pending[mk] != nil
	if !told {
		f.told = true
	}
	t.mu.Unlock()
	switch {
	case !told:
		return nil, f.err
	case inFlight:
		return nil, errPending
	}
	if e := t.fromFile(ctx, k, sum); e != nil {
		t.mu.Lock()
		delete(t.failed, mk) // an answer ends the wait
		t.mu.Unlock()
		return e, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, status.Wrap(err, status.CodeOf(err), "autotune: "+k.String())
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.stopped != nil:
		return nil, status.Annotatef(t.stopped, "autotune: %s: the tuner was stopped", k)
	case t.pending[mk] == nil: // nobody started it while the file was read
		p := t.start(mk, false)
		var bg context.Context
		bg, p.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
		go t.run(bg, op, k, sum, p, untilLockWait)
	}
	return nil, errPending
}

// Stop ends the tunes FastestOrDefault started in the background at once:
// their contexts are cancelled, with cause (context.Cause;
// context.Canceled where nil), and a caller waiting for one gets an error
// matching cause. It does not wait for them to return, and ends no other
// tune; after it, FastestOrDefault starts none, and returns cause where
// it would.
func (t *Tuner) Stop(cause error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = cmp.Or(cause, context.Canceled)
	for _, p := range t.pending {
		if p.cancel != nil {
			p.cancel(t.stopped)
		}
	}
}

// start registers a tune of mk in flight, a look where mk's failure
// waits (unless force); t.mu is held.
func (t *Tuner) start(mk answerKey, force bool) *tune {
	// A tune that panics (in an Op's Prepare, say) ends all the same: its
	// waiters get this error, and the panic goes on to the call that ran
	// it, or, in the background, is the tune's failure.
	p := &tune{done: make(chan struct{}), force: force, err: status.Newf(status.Internal, "autotune: the tune of %s panicked, in the call that ran it", mk.key)}
	if f := t.failed[mk]; f != nil && !force && t.now().Before(f.until) {
		p.look, p.rejected = f.err, f.rejected
	}
	t.pending[mk] = p
	return p
}

// run runs the tune p, registered by start, and ends it.
func (t *Tuner) run(ctx context.Context, op kernels.Operation, k Key, sum string, p *tune, wait patience) {
	mk := answerKey{k, sum}
	defer func() {
		t.mu.Lock()
		delete(t.pending, mk)
		if p.cancel != nil {
			if r := recover(); r != nil {
				p.err = status.Newf(status.Internal, "autotune: the tune of %s panicked: %v", k, r)
			}
		}
		t.fail(ctx, mk, p)
		t.mu.Unlock()
		close(p.done)
	}()
	p.entry, p.err = t.resolve(ctx, op, k, sum, p, wait)
	switch {
	case p.err == nil || ctx.Err() == nil:
	case p.cancel != nil: // Stop ended it: who joined it gets Stop's cause
		p.err = status.Annotatef(context.Cause(ctx), "autotune: tuning %s in the background", k)
	default: // its caller's context did, which ends no other caller's
		p.stopped = true
	}
}

// A key whose tune failed for its own sake is not tuned again for
// failWait after its first failure, twice as long after each failure in
// a row, failWaitMax at most; a tune that answers ends the count. Such a
// failure (no candidate correct, none built, the operation's Prepare
// failed or panicked) recurs until something outside the process
// changes, and a server asking per request would spend a whole tune on
// it per request. A minute is many times a failing tune's own time (it
// fails before sampling: a build and one checked run of each candidate),
// so a key that always fails takes a few percent of the device at first
// and under 0.1% at the cap, while a failure that passes (memory other
// work held while measuring) costs a minute of the default candidate;
// the store's failures (a file kept locked, a shared store away) are
// none of the key's, and not remembered. An hour at most still tries 24
// times a day, and sees a fix within the hour. They are no options: a
// caller has nothing to gain from other numbers that it would know
// better than these.
const (
	failWait    = time.Minute
	failWaitMax = time.Hour
)

// failure is the last tune of a key, failed for its own sake, or (wait
// 0) in the background by the store's, until FastestOrDefault told it.
type failure struct {
	err   error
	wait  time.Duration // how long after it the key is not tuned
	until time.Time     // the end of that wait, by Tuner.now
	told  bool          // whether FastestOrDefault returned err
	// rejected is the digest of the last shared answer that failed its
	// check here: until the wait's end, a reading of the store skips it
	// instead of a Prepare, a build and a checked run per question; an
	// answer naming another winner is checked.
	rejected string
}

// fail records p's error, the end of mk's tune on ctx; t.mu is held. An
// answer (nil, or one the store could not take) forgets mk's failures; a
// failure not of mk's own changes nothing else: ctx ended, the device
// closed or lost, or the store failed (before measuring), which the next
// FastestOrDefault returns, once, where the tune was in the background.
// mk's failure, if any, keeps the shared answer p rejected.
func (t *Tuner) fail(ctx context.Context, mk answerKey, p *tune) {
	_, notStored := errors.AsType[*NotStoredError](p.err)
	f, at := t.failed[mk], t.now()
	switch {
	case p.err == nil || notStored:
		delete(t.failed, mk)
	case ctx.Err() != nil || t.dev.Err() != nil:
	case !p.measured:
		if f == nil && p.cancel != nil {
			t.failed[mk] = &failure{err: p.err, until: at}
		}
	default:
		wait := failWait
		if f != nil && f.wait > 0 {
			wait = min(2*f.wait, failWaitMax)
		}
		t.failed[mk] = &failure{wait: wait, until: at.Add(wait), err: status.Annotatef(p.err,
			"autotune: the tune of %s failed at %s, and is not tried again before %s", mk.key, at.Format(time.TimeOnly), at.Add(wait).Format(time.TimeOnly))}
	}
	if f := t.failed[mk]; f != nil {
		f.rejected = p.rejected
	}
}

// resolve answers one key for p: from the store's tiers, else by
// measuring and committing.
func (t *Tuner) resolve(ctx context.Context, op kernels.Operation, k Key, sum string, p *tune, wait patience) (*Entry, error) {
	if p.look != nil { // the store's tiers are cheap reads; tuning waits
		e, err := t.fromFile(ctx, k, sum), error(nil)
		if e == nil {
			e, err = t.fromShared(ctx, op, k, sum, &p.rejected)
		}
		if e == nil {
			err = cmp.Or(err, p.look)
		}
		return e, err
	}
	force := p.force
	// A forced tune takes no answer but waits for the lock while its
	// holder renews it, so that two machines forcing one key never
	// measure it side by side and race to publish.
	take := !force
	if force {
		wait = whileRenewed
	}
	switch c, err := t.claim(ctx, op, k, sum, wait, take, &p.rejected); {
	case err != nil:
		return nil, err
	case c.answer != nil:
		return c.answer, nil
	case c.lease != nil:
		defer func() { _ = c.lease.Release() }() // one that fails expires
	}
	p.measured = true
	e, errs, err := measure(ctx, t.dev, op, k.Size, t.opts)
	if err != nil {
		return e, status.Annotatef(err, "autotune: tuning %s", k)
	}
	if e.Fastest < 0 {
		name, cause := firstError(e, errs)
		return e, status.Wrapf(cause, status.FailedPrecondition, "autotune: no candidate of %s computed correctly on %s; the first, %s, failed", k, t.dev.Info().Name, name)
	}
	stored, err := t.publish(ctx, op, k, sum, e, force, false)
	if err != nil {
		return e, &NotStoredError{Key: k, Path: t.store.Path(), Err: err}
	}
	return stored, nil
}

// fromFile returns the local file's answer for k, remembered; nil when it
// has none readable, or when ctx ended (its caller asks ctx).
func (t *Tuner) fromFile(ctx context.Context, k Key, sum string) *Entry {
	e, err := ReadEntry(ctx, t.store, t.table, k, sum)
	if err != nil || e == nil {
		return nil
	}
	return t.answered(k, sum, e, FromFile, t.store.Path())
}

func firstError(e *Entry, errs []error) (string, error) {
	for i, r := range e.Results {
		if r.Outcome != results.Failed && r.Outcome != results.Wrong && r.Outcome != results.Unsupported {
			continue
		}
		if i < len(errs) && errs[i] != nil {
			return r.Name, errs[i]
		}
		return r.Name, status.New(status.Unknown, r.Error)
	}
	return "none", status.New(status.NotFound, "the operation has no candidates")
}
