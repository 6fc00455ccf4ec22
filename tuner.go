package vkbench

import (
	"context"
	"sync"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// TunerOptions configure a Tuner. The zero value keeps answers in the
// default cache file and measures as carefully as the vkbench command.
type TunerOptions struct {
	// CachePath is the file answers are kept in, which several processes
	// may share: "" for the file $VKBENCH_CACHE names, else one in the
	// user's cache folder; "off" to keep answers in memory only.
	CachePath string
	// Table names the cache table the answers go in: the program's own
	// name reads best. "app" if empty.
	Table string
	// Budget bounds the time spent measuring one key, the first time it
	// is asked about on a machine: 10 s if zero.
	Budget time.Duration
	// Precision is when sampling stops: once every candidate's median is
	// known to ±Precision (0.01: ±1%, the default if zero), or the budget
	// is spent.
	Precision float64

	// Cache is for what CachePath does not cover (a lock timeout, no file
	// at all): package autotune's options; CachePath overrides its Path.
	Cache store.Options
	// Tuning is for what the fields above do not cover (sample counts,
	// cold caches): package autotune's options, nil for its defaults; the
	// fields above override it where they are set.
	Tuning *autotune.Options
}

// Tuner answers "which candidate of this Op is fastest for this size on
// this device?": from memory, else from the cache file, else by measuring
// every candidate and keeping the answer. It is safe for concurrent use;
// callers asking about a key that is being tuned wait for that tune.
type Tuner struct {
	dev   *Device
	t     *autotune.Tuner
	cache *store.Store

	mu    sync.RWMutex
	built map[builtKey]*Pipeline
}

// builtKey names a candidate of an operation.
type builtKey struct {
	op   *operation
	cand int
}

// NewTuner makes a tuner for d. It opens nothing yet: the cache file is
// read when a question is first asked, and written when an answer is
// found. A closed or lost device has no tuner (ErrReleased, ErrDeviceLost).
func (d *Device) NewTuner(opts TunerOptions) (*Tuner, error) {
	if err := d.Err(); err != nil {
		return nil, err
	}
	copts := opts.Cache
	if opts.CachePath != "" {
		copts.Path = opts.CachePath
	}
	cache, err := store.Open(copts)
	if err != nil {
		return nil, err
	}
	tuning := autotune.DefaultOptions
	tuning.Tuner = "app"
	if opts.Tuning != nil {
		tuning = *opts.Tuning
	}
	if opts.Table != "" {
		tuning.Tuner = opts.Table
	}
	if opts.Budget > 0 {
		tuning.Budget = opts.Budget
	}
	if opts.Precision > 0 {
		tuning.TargetHalfWidth = opts.Precision
	}
	return &Tuner{dev: d, t: autotune.NewTuner(&tunerDevice{Device: d.hal, owner: d}, cache, tuning), cache: cache, built: map[builtKey]*Pipeline{}}, nil
}

// Fastest returns the pipeline of op's fastest candidate for a problem of
// the given size (one integer per name in op.Dims), built and ready to Run.
//
// The first question about a size's key finds the answer in the cache
// file, or tunes: it prepares a problem of the key's size, checks every
// candidate's result, measures the correct ones with GPU timestamps, and
// stores the winner. Later questions about the same op and size are
// answered from memory, without allocating, and return the same
// *Pipeline. The pipeline belongs to the tuner: do not Release it; the
// Device's Close does.
//
// Errors: a malformed op or size has code InvalidArgument; when no
// candidate computes correctly the code is FailedPrecondition and the
// message says what each one did wrong; a lost device matches
// ErrDeviceLost, and so does every later call. A context that ends stops
// the tune, and nothing is stored.
func (t *Tuner) Fastest(ctx context.Context, op *Op, size ...int) (*Pipeline, error) {
	o, err := op.operation()
	if err != nil {
		return nil, err
	}
	if err := o.checkSize(size); err != nil {
		return nil, err
	}
	if len(o.cands) == 0 {
		return nil, status.Newf(status.InvalidArgument, "vkbench: Op %q has no Candidates to choose among; Search its Space", o.name)
	}
	i, err := t.t.Fastest(ctx, o, kernels.Size(size))
	if err != nil {
		return nil, err
	}
	key := builtKey{o, i}
	t.mu.RLock()
	p := t.built[key]
	t.mu.RUnlock()
	if p != nil {
		return p, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.built[key]; p != nil {
		return p, nil
	}
	p, err = t.dev.build(o.kerns[i], o.cands[i])
	if err != nil {
		return nil, err
	}
	t.built[key] = p
	return p, nil
}

// checkSize returns an InvalidArgument error unless size fits o's Dims.
func (o *operation) checkSize(size []int) error {
	if len(size) != len(o.dims) {
		return status.Newf(status.InvalidArgument, "vkbench: Op %q takes %d dimensions %v, not %d", o.name, len(o.dims), o.dims, len(size))
	}
	for i, n := range size {
		if n <= 0 {
			return status.Newf(status.InvalidArgument, "vkbench: Op %q: %s = %d", o.name, o.dims[i], n)
		}
	}
	return nil
}

// Entry returns what the cache file holds for op at size: the winner, and
// every candidate's outcome, statistics and error, which say why it won
// (where some of op's kernels do not apply at size, of those that do; its
// indices are op's). It is nil (and no error) when the key has not been
// tuned, or when the cache keeps answers in memory only. Entry reads the
// file and measures nothing.
func (t *Tuner) Entry(op *Op, size ...int) (*autotune.Entry, error) {
	o, err := op.operation()
	if err != nil {
		return nil, err
	}
	if err := o.checkSize(size); err != nil {
		return nil, err
	}
	return t.t.Stored(o, size)
}

// Autotune returns the tuner underneath, for what this package does not
// do: forced re-tunes, answers that must not wait for a tune in progress.
func (t *Tuner) Autotune() *autotune.Tuner { return t.t }

// Cache returns the tuner's cache, to list, export, import or clear its
// tables.
func (t *Tuner) Cache() *store.Store { return t.cache }
