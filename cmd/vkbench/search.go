package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
)

// searchFlags are tune's flags for searching parameter spaces.
type searchFlags struct {
	strategy       string
	maxEvals       int
	timeLimit      time.Duration
	compileThreads int
}

// searchHelp is what tune --help says of searching.
const searchHelp = `Searching. An operation with a parameter space (gemm: its register-blocked
kernel's tilings BM, BN, BK, TX, TY and PH, the layout of A (SWZ) and loads
without bounds checks (EXACT), 1152 configurations on an H200 at 4096³; a
manifest's candidate with "space") is searched when --strategy,
--max-evals or --time-limit is given: the strategy proposes configurations,
each is compiled, verified and measured (a wrong one never wins), and the
best by --objective the tuning log holds (of this search or an earlier one;
the summary says which) is committed under the key
OPERATION.space/dtype/shape (gemm.space/...), beside the named candidates'
answer, which plain tune and run measure.
Configurations that fail a restriction of the space (shared memory, workgroup
size, the problem's size) are never compiled. Operations without a space are
tuned as usual.

Strategies (--strategy):
  exhaustive  every configuration, in order
  random      configurations in a random order, without repetition
  anneal      simulated annealing between neighbouring configurations
  bayes       Bayesian optimization: a Gaussian process of the log times,
              the configuration of largest expected improvement next
  auto        exhaustive up to 64 configurations, bayes above (the default)

Budgets: --max-evals bounds the configurations evaluated (default: all for
exhaustive, a quarter of the space, at least 20, for the others) and
--time-limit the search's time; --seed seeds the strategy (but exhaustive,
whose order is fixed) as it seeds every measurement's inputs and sampling
order, so that a search is reproducible. Pipelines compile on
--compile-threads CPU threads while the GPU measures earlier configurations
(0: each just before it is measured; a search proposes 4 configurations
ahead, so at most 4 compile at once); the summary reports compile and
measure time apart. Where no configuration could be measured (the device can
run none of them, say: no failure), the summary says so, and why, counted;
where this search measured none but an earlier one in the tuning log has a
winner, it names that winner and says why this one measured none.

Every evaluated configuration (its parameters, statistics or failure) is
recorded in the tuning log of the tune cache as it completes. A search that
was interrupted, or is run again with a larger budget, answers from the log
what it has and measures the rest, whatever --precision or --budget the
record was measured with; a configuration whose kernel changed is measured
again. A machine whose log has nothing of the key takes the answer stored
for it instead of searching: its file's, else the --store's (searched on
another machine, verified here first), and says which. --force measures
everything again, after any other machine searching the key with the
--store has published. vkbench cache export-log
writes a log as JSON lines, and vkbench replay runs strategies against such a
file instead of the GPU.

`

func (s *searchFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&s.strategy, "strategy", "", "search the operations' parameter spaces with this strategy: exhaustive, random, anneal, bayes or auto")
	fs.IntVar(&s.maxEvals, "max-evals", 0, "most configurations a search evaluates (default: all for exhaustive, a quarter of the space for the others)")
	fs.DurationVar(&s.timeLimit, "time-limit", 0, "most time a search takes (default: none)")
	fs.IntVar(&s.compileThreads, "compile-threads", autotune.DefaultCompileThreads, "pipelines a search compiles at once while the GPU measures; 0 compiles each just before measuring it")
	cmd.Long = strings.Replace(cmd.Long, "Exit status:", searchHelp+"Exit status:", 1)
	// tune's measuring flags are registered before.
	fs.Lookup("seed").Usage += "; and of a search's strategy"
	fs.Lookup("budget").Usage += " (in a search, one configuration)"
}

// on reports whether tune searches.
func (s *searchFlags) on() bool { return s.strategy != "" || s.maxEvals != 0 || s.timeLimit != 0 }

// check refuses bad search flags before any work.
func (s *searchFlags) check(cmd *cobra.Command) error {
	if s.maxEvals < 0 || s.timeLimit < 0 || s.compileThreads < 0 {
		return usageError{fmt.Errorf("--max-evals, --time-limit and --compile-threads must not be negative")}
	}
	if f := cmd.Flags(); f.Changed("max-evals") && s.maxEvals == 0 || f.Changed("time-limit") && s.timeLimit == 0 {
		return usageError{fmt.Errorf("--max-evals and --time-limit take a bound above 0; leave one out for its default (the strategy's budget; no time limit)")}
	}
	if strings.Contains(s.strategy, ",") {
		return usageError{fmt.Errorf("--strategy takes one strategy (vkbench replay compares several)")}
	}
	if err := checkStrategies([]string{cmp.Or(s.strategy, search.Auto)}); err != nil {
		return err
	}
	for _, f := range []string{"all-devices", "compile-only"} {
		if on, _ := cmd.Flags().GetBool(f); on && s.on() {
			return usageError{fmt.Errorf("--%s does not search; leave out --strategy, --max-evals and --time-limit", f)}
		}
	}
	return nil
}

// checkStrategies refuses a strategy that search does not know.
func checkStrategies(names []string) error {
	for _, name := range names {
		if !slices.Contains(search.Strategies, name) {
			return usageError{fmt.Errorf("unknown --strategy %q (want %s)", name, strings.Join(search.Strategies, ", "))}
		}
	}
	return nil
}

// tune searches op's space at size and returns the operation of its
// points and the entry to show (the evaluated configurations only).
func (s *searchFlags) tune(cmd *cobra.Command, f *benchFlags, tuner *autotune.Tuner, op kernels.Operation, size kernels.Size, force bool) (kernels.Operation, *autotune.Entry, error) {
	// --compile-threads 0 compiles each configuration just before it is
	// measured, which SearchOptions says with -1 (its 0 is the default).
	sopts := autotune.SearchOptions{Options: search.Options{Strategy: s.strategy, MaxEvals: s.maxEvals, TimeLimit: s.timeLimit, Seed: f.seed},
		CompileThreads: cmp.Or(s.compileThreads, -1), Force: force}
	if verbose(cmd) {
		sopts.Progress = func(p autotune.SearchProgress) { fmt.Fprintln(cmd.ErrOrStderr(), progressLine(p)) }
	}
	res, err := tuner.Search(cmd.Context(), op, size, sopts)
	if res == nil {
		return op, nil, err
	}
	if err != nil && deviceLost(tuner, err) { // no answer: what was evaluated, and what was not run
		return res.Op, evaluatedOnly(res.Entry, nil), err
	}
	if res.Entry.From != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s; --force searches again\n", res.Entry.Key, answeredFrom(tuner, res.Entry))
		return res.Op, evaluatedOnly(res.Entry, nil), err
	}
	r := res.Search
	if len(r.Order) == 0 { // only a time limit stops a search before its first point
		return res.Op, nil, usageError{fmt.Errorf("%s: --time-limit %s ran out before the search evaluated a configuration; nothing was stored (give it longer)", res.Entry.Key, s.timeLimit)}
	}
	how := fmt.Sprintf("%d threads while measuring", sopts.CompileThreads)
	if sopts.CompileThreads < 0 {
		how = "before each measurement"
	}
	why := nothingMeasured(res.Op, res.Entry, r.Order)
	counts, said := fmt.Sprintf("%d measured, %d from the tuning log", r.Measured, len(r.Order)-r.Measured),
		winnerSaid(pickedBy(f.objective, res.Entry), res.Entry.FastestName, r.Best, r.Order, why)
	if r.Best == "" { // none of this search's configurations has a time
		counts = fmt.Sprintf("%d from the tuning log", len(r.Order)-r.Measured)
	}
	if res.Entry.Fastest < 0 { // no configuration, of this search or the log's, has a time
		said = "nothing could be measured: " + why
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: searched %s's space with %s (seed %d): %d of %d configurations evaluated, %s; compile %.1fs (%s), measure %.1fs, wall %.1fs; %s\n",
		res.Entry.Key, op.Name(), r.Strategy, r.Seed, len(r.Order), len(res.Points.Configs), counts,
		r.CompileSeconds, how, r.MeasureSeconds, r.WallSeconds, said)
	return res.Op, evaluatedOnly(res.Entry, r.Order), err
}

// nothingMeasured says why the configurations of order, those of op that
// a search evaluated (e its entry), were not measured: their outcomes
// and reasons, counted, as run's table counts them; "" where all were.
func nothingMeasured(op kernels.Operation, e *autotune.Entry, order []string) string {
	var bs []*results.Benchmark
	for _, b := range benchmarksOf(op, e, nil) {
		if slices.Contains(order, b.Candidate) {
			bs = append(bs, &b)
		}
	}
	return report.CountReasons(bs)
}

// pickedBy is how a search's summary names its winner: fastest, or the
// winner by the objective (flag), unless the entry says the pick fell
// back to time.
func pickedBy(flag string, e *autotune.Entry) string {
	o, _ := autotune.ParseObjective(flag) // checked before the search
	if o == autotune.ObjectiveTime || e.ObjectiveNote != "" {
		return "fastest"
	}
	return "winner by " + string(o)
}

// winnerSaid is what a search's summary says of its answer: by (as
// pickedBy says), committed, the winner, and where that is of an earlier
// search in the tuning log (not one of order, the configurations this
// search evaluated), this search's own winner (best), or, where it has
// none (best is ""), why (nothingMeasured): wrong, unsupported, failed,
// counted. By energy the log's points can change which are tied and so
// crown another of order than best.
func winnerSaid(by, committed, best string, order []string, why string) string {
	said := by + " " + committed
	switch {
	case slices.Contains(order, committed):
		return said
	case best == "":
		return said + ", of an earlier search in the tuning log (nothing this one evaluated could be measured: " + why + ")"
	}
	return said + ", of an earlier search in the tuning log (this one's " + by + ": " + best + ")"
}

// progressLine is tune -v's line of a search's evaluation p: the
// configuration, its time and, by energy or edp, its figure by that, and
// the best so far alike, or that none so far computed correctly.
func progressLine(p autotune.SearchProgress) string {
	said := func(sec, v float64) string {
		switch {
		case sec <= 0 || p.Objective == "" || p.Objective == autotune.ObjectiveTime:
			return seconds(sec)
		case v <= 0:
			return seconds(sec) + ", no energy"
		}
		return seconds(sec) + ", " + figure(string(p.Objective), v)
	}
	from := ""
	if p.FromLog {
		from = " (from the tuning log)"
	}
	best := "none correct yet"
	if p.Best != "" {
		best = "best " + p.Best + " " + said(p.BestSeconds, p.BestValue)
	}
	return fmt.Sprintf("search: %d/%d %s: %s%s; %s", p.Eval, p.Budget, p.Name, said(p.Seconds, p.Value), from, best)
}

// evaluatedOnly returns e with only the configurations evaluated, by the
// search that evaluated those of order (where not nil) and its winner,
// which the tuning log may have of an earlier search.
func evaluatedOnly(e *autotune.Entry, order []string) *autotune.Entry {
	c := *e
	c.Results = slices.DeleteFunc(slices.Clone(e.Results), func(r results.Result) bool {
		return r.Outcome == results.Unevaluated || order != nil && r.Index != e.Fastest && !slices.Contains(order, r.Name)
	})
	return &c
}

// seconds is a search's time as the run table writes times, or "failed"
// for an evaluation that measured nothing.
func seconds(s float64) string {
	if s <= 0 {
		return "failed"
	}
	return report.Seconds(s)
}
