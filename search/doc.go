// Package search decides which points of a parameter space are worth
// measuring: the strategies, the grid they see, the model that guides
// one of them, the driver that runs a search the same way whatever
// evaluates its points, the tuning log that records every evaluation, and
// the replay of a search against such a log.
//
// # Strategies
//
// A kernel with a parameter space (kernels.Space) has too many
// configurations to measure them all on a large problem. A Strategy
// proposes them one at a time and is told each one's median time:
//
//   - Exhaustive: every point, in the space's order.
//   - Random: a seeded random order, without repetition.
//   - Anneal: simulated annealing between neighbouring points (one or two
//     params one value apart in their lists), cooling over the budget.
//   - Bayes: Bayesian optimization; a Gaussian process models the log of
//     the times and the point of largest expected improvement comes next.
//   - Auto: Exhaustive up to SmallSpace points, Bayes above.
//
// NewStrategy makes one by name; Strategies lists the names. A failed
// point (did not build, computed a wrong result) is told with ok false
// and never wins. Seeded, every strategy is deterministic: the same seed,
// space and results propose the same points.
//
// # The grid
//
// A strategy does not see kernels or devices, only a Grid: the space's
// params and, for each valid point, the position of its value in each
// param's list. GridOf makes it from kernels.Space.Points. Positions, not
// values, are what the model scales to [0, 1] and what annealing steps
// along, so a param of values 16, 32, 64, 128 is four evenly spaced
// steps.
//
// # The model
//
// Bayes fits a Gaussian process with a Matérn 5/2 kernel, one length
// scale a param (a param that hardly matters gets a long one), to the
// standardized log times of the points told so far, after a random
// initial design of max(10, 2 × params) points. Its hyperparameters are
// chosen by the marginal likelihood over a small grid of values, again
// each time the results grow by a fifth. Proposals still outstanding are
// counted at the model's prediction (the kriging believer), so that
// proposals made before their results arrive do not crowd one spot.
//
// # Driving a search
//
// Drive runs a Strategy against an Evaluator: autotune's Tuner.Search
// measures each point on a device (or answers it from the tuning log), a
// replay answers from a recorded log. Drive keeps Options.Lookahead
// proposals outstanding, so that the next pipelines compile while the GPU
// measures, and tells results in the order proposed; since the strategy
// sees the same results in the same order, a seeded search proposes the
// same points on a device and in a replay. Options bound the search
// (MaxEvals, TimeLimit) and Fill gives their defaults:
//
//	opts := search.Options{Strategy: search.Bayes, Seed: 1}
//	if err := opts.Fill(grid.Len()); err != nil {
//		return err
//	}
//	s, err := search.NewStrategy(opts.Strategy, grid, opts.Seed, opts.MaxEvals)
//	if err != nil {
//		return err
//	}
//	evaluated, err := search.Drive(ctx, s, evaluator, opts, nil)
//
// A caller's own Strategy is driven the same way (ExampleDrive).
//
// # The tuning log
//
// Every evaluation is recorded as a LogRecord: the configuration, the
// identity of its kernel, its results.Result and the time it took to
// compile and to measure. A search is recorded as a LogSearch: its
// strategy, seed and bounds and the configurations it evaluated, in
// order. A TuneLog is one key's header (the hardware, the key, the
// space), records and searches.
//
// The tune cache keeps each key's log in its store (LogEvals, AppendLog,
// SaveLogHeader, AddLogSearch and ReadLog, each waiting for the file no
// longer than its context), one record written as each evaluation
// completes. WriteTuneLog and ReadTuneLog are its exported form (vkbench
// cache export-log): JSON lines, LogFormat; a reader skips lines of kinds
// it does not know, so the format can grow.
//
// # Replay
//
// Replay runs a search against a TuneLog instead of a device, over the
// configurations the log records (the space's others are not proposed):
// each point proposed is answered by its record, on a clock that adds up
// the recorded compile and measure times. The log of one exhaustive
// search lets every strategy be compared, and tested, without a GPU:
// ReplayResult.EvalsWithin counts the evaluations a strategy needed to
// come within a fraction of the log's best, and ReplayOptions.StopWithin
// ends the search there (vkbench replay prints both). The best is by the
// objective the log's last search picked its winner by (TuneLog.Objective):
// time, or energy or edp, whose winners ReplayOptions.Pick names; by time
// where a verified record lacks its energy. Strategies are told times
// either way, as on a device.
//
//	l, err := search.ReadTuneLog(f)
//	if err != nil {
//		return err
//	}
//	r, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: search.Bayes, Seed: 1}, StopWithin: 0.03})
//	if err != nil {
//		return err
//	}
//	fmt.Println(r.EvalsWithin(0.03), "of", r.Points)
package search
