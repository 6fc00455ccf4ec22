// Package autotune measures candidate kernels honestly, picks the fastest,
// and remembers the answer per hardware in a store (package store).
//
// # Basics
//
// A Tuner answers "which candidate of this operation is fastest for this
// size on this device?":
//
//	s, _ := store.Open(store.Options{})
//	tuner := autotune.NewTuner(dev, s, autotune.DefaultOptions)
//	i, err := tuner.Fastest(ctx, op, kernels.SizeOf(4096, 4096, 4096))
//
// The first question about a key tunes it (or reads the answer another
// process committed to the store); later ones are answered from memory in
// tens of nanoseconds, without allocating. FastestOrDefault never waits
// for a tune: it answers the default candidate meanwhile, and tunes in the
// background. Measure measures without
// committing; TuneAll tunes on several devices at once, identical devices
// sharing the work.
//
// # Measuring
//
// Every candidate is first run on seeded random inputs and verified
// against the operation's CPU reference; one that computes wrong, or that
// the device cannot run, is recorded with its error and never wins. The
// GPU is then warmed up, and the survivors are sampled in rounds, in a
// shuffled order each round, each sample timed by GPU timestamps (runs too
// short to time alone are batched, k runs a sample, and divided by k).
// Sampling stops when every survivor's 95% confidence interval of the
// median is within Options.TargetHalfWidth, or the budget is spent, or it
// has Options.MaxSamples samples; a result still short of the target says
// which in its flags (FlagBudgetSpent, FlagMaxSamples). A candidate
// clearly slower than the leader is dropped early. No decision is made on
// fewer than Options.MinSamples samples, at least stats.MinIntervalSamples.
// A winner whose interval overlaps the runner-up's is recorded as a tie,
// with the rule that broke it.
//
// # Keys and answers
//
// A Key is an operation, an element type and the shape bucketed by the
// tuning Level; tuning runs on the bucket's representative shape. Answers
// are kept in the store's table of the device's hardware and the tuner's
// name (store.Table), keyed by the key and the Checksum of the candidate
// list, so that changing a kernel re-tunes. An Entry is JSON: the winner,
// and every candidate's statistics or error, for inspection (ReadEntry,
// Entries, Export, Import). The rule of what a commit keeps is this
// package's (Commit): the first answer committed for a question is the
// one every process sharing the store uses, until an answer that
// measured both winners side by side shows its own better beyond both
// intervals and the stored one's too. An answer the store cannot take is
// kept by the Tuner, which returns a NotStoredError from Tune.
//
// # Searching
//
// An operation with a parameter space (kernels.Searchable) is searched by
// Tuner.Search: package search proposes the configurations (its
// strategies, seeded, bounded by SearchOptions' search.Options), and the
// Tuner evaluates them, each verified and sampled as Measure samples a
// candidate while the next ones compile on CPU threads. Every evaluation
// is recorded in the store's tuning log as it completes, so an
// interrupted search, or a larger one, measures only what the log lacks.
// With a shared store, one machine of a fleet searches a key nobody has
// answered, under its lock, while the others wait for its answer as long
// as it renews the lock; a machine that continues its own search, and a
// forced search (Force) or tune, hold the lock too, waiting for it but
// never taking another's answer. A search's answer is committed as a
// tune's is (a forced search's replaces the stored one).
//
// # Caveats
//
// A key whose tune fails for its own sake (no candidate computes
// correctly, none builds, the operation's Prepare fails or panics) is not
// tuned again for a while: Fastest and Tune (unless forced) return that
// failure, and FastestOrDefault, having returned it once, the default,
// pending. They still read the store (the file, the shared tier, in the
// background for FastestOrDefault), where an answer another process
// committed meanwhile ends the wait; a shared answer that failed its check
// here is not checked again within the wait, one naming another winner
// is. The wait is a minute after the first failure, twice as long after
// each failure in a row, an hour at most; a tune that answers ends it. A
// tune ended by its context, by the device closed or lost, or by the
// store before it measured, is no such failure: it is not remembered.
//
// A device lost during a tune commits nothing, clears the key's pending
// mark, and makes every later question to that Tuner fail at once with an
// error matching hal.ErrDeviceLost. A search that loses it commits
// nothing either; its tuning log keeps what it evaluated before.
//
// A context that ends while a tune or search waits for another machine's
// lock ends it at once, with the context's code (status.Cancelled, or
// DeadlineExceeded), before anything is measured, locked or stored; a
// caller of the same Tuner that joined that tune goes on, by its own
// context.
package autotune
