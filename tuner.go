package vkbench

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// TunerOptions configure a Tuner. Table is required; the rest may be
// left zero.
type TunerOptions struct {
	// Table names the cache table the answers go in, under the device's
	// hardware: the program's own name reads best ("tunesaxpy"), in lower
	// case letters, digits and '-'. It is required, so that two programs
	// sharing a cache file never mix their answers.
	Table string
	// CachePath is the file answers are kept in, which several processes
	// may share: "" for the file $VKBENCH_CACHE names, else one in the
	// user's cache folder; "off" to keep answers in memory only.
	CachePath string
	// Level is how coarsely sizes are rounded up into keys, each key
	// tuned once: "balanced" (each dimension to a power of 2; the default
	// if empty), "minimal" (a power of 4), "extensive" (a power of 2 or
	// 1.5 times one) or "full" (every size as it is asked about).
	Level string
	// Budget bounds the time spent measuring one key, the first time it
	// is asked about on a machine: 10 s if zero.
	Budget time.Duration
	// Precision is when sampling stops: once every candidate's median is
	// known to ±Precision (0.01: ±1%, the default if zero), or the budget
	// is spent. It is a fraction, not a percent.
	Precision float64
	// Warmup is the GPU time spent running the candidates before any
	// sample counts: 300 ms if zero, none if negative.
	Warmup time.Duration
	// Store is the URL of a shared store, which the machines of a fleet
	// share above each one's cache file: redis://[user:password@]host:port/db,
	// or rediss:// for TLS (the password may come from
	// $VKBENCH_STORE_PASSWORD instead); "" for none. The program imports
	// github.com/vkbench/vkbench/store/redis for it. A question is
	// answered from the file, else from the store (its answer verified on
	// this device before its first use here), else tuned, one machine of
	// the fleet at a time, and committed to both. A store that refuses
	// this program (a wrong password, say) is NewTuner's error; one out of
	// reach, then or later, is one warning, and the file serves alone.
	Store string
	// Logger receives the cache's warnings, the waits for another machine
	// that holds a key's lock (at Info) and, at Debug, where each tune's
	// time went; slog.Default() if nil.
	Logger *slog.Logger
}

// Tuner answers "which candidate of this Op is fastest for this size on
// this device?": from memory, else from the cache file, else by measuring
// every candidate and keeping the answer. It is safe for concurrent use;
// callers of Fastest asking about a key that is being tuned wait for that
// tune, and those of FastestOrDefault never wait. A nil or zero Tuner
// answers every call with an InvalidArgument error.
type Tuner struct {
	dev *Device
	t   *autotune.Tuner

	// known answers repeated questions from memory, read without a lock.
	known knownAnswers

	mu    sync.Mutex
	built map[builtKey]*Pipeline
}

// errNoTuner is the error of every call on a nil or zero Tuner.
var errNoTuner = status.New(status.InvalidArgument, "vkbench: the Tuner is nil or was not made (Device.NewTuner makes one)")

// operation returns op's operation, checked, for a tuner that was made
// and a size that fits its Dims.
func (t *Tuner) operation(op *Op, size []int) (*operation, error) {
	if t == nil || t.t == nil {
		return nil, errNoTuner
	}
	o, err := op.operation()
	if err == nil {
		err = kernels.CheckSize(o.name, o.dims, size, false)
	}
	return o, err
}

// builtKey names a candidate of an operation.
type builtKey struct {
	op   *operation
	cand int
}

// NewTuner makes a tuner for d. It opens no file yet. With a Store, it
// asks the store once whether it takes this program's requests, and ctx
// bounds that question: if ctx ends first, NewTuner returns an error that
// matches ctx's and names the store. ctx bounds NewTuner alone.
//
// A closed or lost device has no tuner (ErrReleased, ErrDeviceLost);
// options without a Table, or with one that is not a name, a Level that is
// none, a negative Budget or a Precision that is not a fraction in [0, 1),
// are InvalidArgument.
func (d *Device) NewTuner(ctx context.Context, opts TunerOptions) (*Tuner, error) {
	if err := cmp.Or(d.Err(), ctx.Err()); err != nil {
		return nil, status.Annotate(err, "vkbench: NewTuner")
	}
	if !validName(opts.Table) {
		return nil, status.Newf(status.InvalidArgument, "vkbench: TunerOptions.Table is %q; want the program's name, in lower case letters, digits and '-'", opts.Table)
	}
	if opts.Budget < 0 {
		return nil, status.Newf(status.InvalidArgument, "vkbench: TunerOptions.Budget is %v; want zero (the default) or positive", opts.Budget)
	}
	if !(opts.Precision >= 0 && opts.Precision < 1) { // NaN too
		return nil, status.Newf(status.InvalidArgument, "vkbench: TunerOptions.Precision is %g; want a fraction below 1 (0.01 for ±1%%; zero for the default), not a percent", opts.Precision)
	}
	tuning := autotune.DefaultOptions
	tuning.Tuner = opts.Table
	if opts.Level != "" {
		level, err := autotune.ParseLevel(opts.Level)
		if err != nil {
			return nil, status.Annotate(err, "vkbench: TunerOptions.Level")
		}
		tuning.Level = level
	}
	tuning.Budget = cmp.Or(opts.Budget, tuning.Budget)
	tuning.TargetHalfWidth = cmp.Or(opts.Precision, tuning.TargetHalfWidth)
	tuning.Warmup = cmp.Or(opts.Warmup, tuning.Warmup)
	tuning.Logger = cmp.Or(opts.Logger, slog.Default())
	cache, err := store.OpenContext(ctx, store.Options{Path: opts.CachePath, Logger: opts.Logger, Shared: opts.Store})
	if err != nil {
		return nil, status.Annotate(err, "vkbench: NewTuner")
	}
	t := autotune.NewTuner(&tunerDevice{Device: d.hal, owner: d}, cache, tuning)
	if err := d.keep(t); err != nil {
		return nil, err
	}
	return &Tuner{dev: d, t: t, built: map[builtKey]*Pipeline{}}, nil
}

// Fastest returns the pipeline of op's fastest candidate for a problem of
// the given size (one integer per name in op.Dims), built and ready to Run.
//
// The first question about a size's key finds the answer in the cache
// file, or tunes (see the package doc). Later questions about the same op
// and size are answered from memory, without allocating, and return the
// same *Pipeline, which belongs to the tuner: its Release does nothing,
// and the Device's Close frees it.
//
// Errors: a malformed op or size has code InvalidArgument; when no
// candidate computes correctly the code is FailedPrecondition and the
// message says what each one did wrong; a lost device matches
// ErrDeviceLost. A context that ends stops the tune, and nothing is
// stored. A panic in the Op's Prepare or Check reaches the call that ran
// the tune; those waiting for it fail (code Internal). A size whose tune
// failed returns that failure, without tuning (unless the cache has an
// answer meanwhile), for a minute, twice as long after each failure in a
// row, an hour at most; a tune its ctx ended, or that a closed or lost
// device or the cache ended, is no such failure.
func (t *Tuner) Fastest(ctx context.Context, op *Op, size ...int) (*Pipeline, error) {
	o, p, err := t.remembered(op, size, "vkbench: Fastest")
	if p != nil || err != nil {
		return p, err
	}
	p, _, err = t.answer(ctx, o, size, true)
	return p, err
}

// FastestOrDefault is Fastest for a caller that must never wait for a
// tune, such as a request with a deadline of its own. Where neither memory
// nor the cache file has the answer, it returns op's first candidate that
// applies at once, with pending true, and remembers nothing; where nobody
// tunes the size's key (another goroutine, or another machine sharing the
// Store), it starts the tune in the background, on ctx's values but not
// its end, so the request's deadline does not end it. Later calls get the
// first candidate, pending, until the tune ends, and then its answer;
// Fastest waits for it. A tune that fails is not lost: the next
// FastestOrDefault of the key returns its error, once (a panic in Prepare
// or Check is one, code Internal), and later calls get the first
// candidate, pending, without tuning, until the failure's wait (see
// Fastest) is over. A ctx already ended is its error, unless memory has
// the answer, and starts nothing. Device.Close ends a background tune:
// its ctx ends, with a cause that matches ErrReleased, and so does the
// Fastest of a caller waiting for it.
func (t *Tuner) FastestOrDefault(ctx context.Context, op *Op, size ...int) (p *Pipeline, pending bool, err error) {
	o, p, err := t.remembered(op, size, "vkbench: FastestOrDefault")
	if p != nil || err != nil {
		return p, false, err
	}
	return t.answer(ctx, o, size, false)
}

// remembered returns op's operation, checked, and the answer memory has
// for size, if the device is still usable (nil where memory has none);
// call names the caller in the error of a device closed or lost.
func (t *Tuner) remembered(op *Op, size []int, call string) (*operation, *Pipeline, error) {
	o, err := t.operation(op, size)
	if err != nil {
		return nil, nil, err
	}
	p := t.known.load(o, size)
	if p != nil {
		if err := t.dev.Err(); err != nil {
			return nil, nil, status.Annotate(err, call)
		}
	}
	return o, p, nil
}

// answer finds the answer for o at size that memory does not have,
// waiting for another caller's tune unless wait is false, and keeps it in
// memory unless it is pending. It is apart from Fastest so that an answer
// from memory does not pay for its frame.
func (t *Tuner) answer(ctx context.Context, o *operation, size []int, wait bool) (p *Pipeline, pending bool, err error) {
	if len(o.cands) == 0 {
		return nil, false, status.Newf(status.InvalidArgument, "vkbench: Op %q has no Candidates to choose among; Search its Space", o.name)
	}
	var i int
	call := "vkbench: FastestOrDefault"
	if wait {
		call = "vkbench: Fastest"
		i, err = t.t.Fastest(ctx, o, kernels.SizeOf(size...))
	} else {
		i, pending, err = t.t.FastestOrDefault(ctx, o, kernels.SizeOf(size...))
	}
	if err == nil {
		p, err = t.pipeline(o, i)
	}
	if err != nil {
		return nil, false, status.Annotate(err, call)
	}
	if !pending {
		t.known.store(o, size, p)
	}
	return p, pending, nil
}

// pipeline returns candidate i of o, built once per tuner.
func (t *Tuner) pipeline(o *operation, i int) (*Pipeline, error) {
	key := builtKey{o, i}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.built[key]; p != nil {
		return p, nil
	}
	p, err := t.dev.build(o.kerns[i], o.cands[i])
	if err != nil {
		return nil, err
	}
	p.tuned = true
	t.built[key] = p
	return p, nil
}

// Result returns what the cache file holds for op at size: the winner,
// and every candidate's outcome, timing and error, which say why it won.
// It is nil (and no error) when the key has not been tuned, or when the
// cache keeps answers in memory only. Result measures nothing; ctx ending
// while it waits for another process's lock on the file is its error,
// which matches ctx's. It reads Fastest's answers: an Op without
// Candidates has none (InvalidArgument), and Search's are the cache's
// keys of op.Name+".space", which vkbench cache show explains.
func (t *Tuner) Result(ctx context.Context, op *Op, size ...int) (*Result, error) {
	o, err := t.operation(op, size)
	if err != nil {
		return nil, err
	}
	if len(o.cands) == 0 {
		return nil, status.Newf(status.InvalidArgument, "vkbench: Result: Op %q has no Candidates, whose answers Result reads; Search's are the cache's keys %s%s/…, which vkbench cache show explains", o.name, o.name, autotune.SpaceSuffix)
	}
	e, err := t.t.Stored(ctx, o, kernels.SizeOf(size...))
	if e == nil || err != nil {
		return nil, err
	}
	return resultOf(e), nil
}
