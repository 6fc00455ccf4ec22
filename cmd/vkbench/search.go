package main

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
)

// searchFlags are tune's flags for searching parameter spaces.
type searchFlags struct {
	strategy       string
	maxEvals       int
	timeLimit      time.Duration
	compileThreads int
	simulate       string
	seeds          int
	stopWithin     float64
}

// searchHelp is what tune --help says of searching.
const searchHelp = `Searching. An operation with a parameter space (gemm: the tilings of its
register-blocked kernel, BM, BN, BK, TX, TY and PH, 264 of them on an H200 at
4096³; a manifest's candidate with "space") is searched when --strategy,
--max-evals or --time-limit is given: the strategy proposes configurations,
each is compiled, verified and measured (a wrong one never wins), and the
fastest is committed under the key OPERATION.space/dtype/shape (gemm.space/...),
beside the named candidates' answer, which plain tune and run measure.
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
--time-limit the search's time; --seed seeds the strategy, so that a search
is reproducible. Pipelines compile on --compile-threads CPU threads while the
GPU measures earlier configurations (0: each just before it is measured; a
search proposes 4 configurations ahead, so at most 4 compile at once); the
summary reports compile and measure time apart.

Every evaluated configuration (its parameters, statistics or failure) is
recorded in the tuning log of the tune cache as it completes. A search that
was interrupted, or is run again with a larger budget, answers from the log
what it has and measures the rest, whatever --precision or --budget the
record was measured with; a configuration whose kernel changed is measured
again. --force measures everything again. vkbench cache export-log
writes a log as JSON lines; --simulate LOG replays strategies against such a
file instead of the GPU (--strategy takes a comma-separated list, --seeds N
runs seeds --seed to --seed+N-1, --stop-within PCT ends each search once a
configuration within PCT% of the log's best is found), printing a table, or
with --format log the searches themselves, which vkbench report draws.

`

func (s *searchFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&s.strategy, "strategy", "", "search the operations' parameter spaces with this strategy: exhaustive, random, anneal, bayes or auto")
	fs.IntVar(&s.maxEvals, "max-evals", 0, "most configurations a search evaluates (default: all for exhaustive, a quarter of the space for the others)")
	fs.DurationVar(&s.timeLimit, "time-limit", 0, "most time a search takes (default: none)")
	fs.IntVar(&s.compileThreads, "compile-threads", autotune.DefaultCompileThreads, "pipelines a search compiles at once while the GPU measures; 0 compiles each just before measuring it")
	fs.StringVar(&s.simulate, "simulate", "", "replay the search against this tuning log (vkbench cache export-log) instead of the GPU")
	fs.IntVar(&s.seeds, "seeds", 1, "with --simulate: replay each strategy with this many seeds, from --seed on")
	fs.Float64Var(&s.stopWithin, "stop-within", 0, "with --simulate: end a search once it has found a configuration within this percent of the log's best")
	cmd.Long = strings.Replace(cmd.Long, "Exit status:", searchHelp+"Exit status:", 1)
	for name, more := range map[string]string{
		"seed":   "; and of a search's strategy",
		"format": "; with --simulate, table (Markdown) or log (the searches, as a tuning log)",
		"budget": " (in a search, one configuration)",
	} {
		if f := fs.Lookup(name); f != nil {
			f.Usage += more
		}
	}
}

// on reports whether tune searches.
func (s *searchFlags) on() bool { return s.strategy != "" || s.maxEvals != 0 || s.timeLimit != 0 }

// check refuses bad search flags before any work.
func (s *searchFlags) check(cmd *cobra.Command) error {
	if s.maxEvals < 0 || s.timeLimit < 0 || s.compileThreads < 0 || s.seeds < 1 || s.stopWithin < 0 || math.IsNaN(s.stopWithin) {
		return usageError{fmt.Errorf("--max-evals, --time-limit, --compile-threads and --stop-within must not be negative, --seeds at least 1")}
	}
	for _, name := range s.strategies() {
		if !slices.Contains(autotune.Strategies, name) {
			return usageError{fmt.Errorf("unknown --strategy %q (want %s)", name, strings.Join(autotune.Strategies, ", "))}
		}
	}
	for _, f := range []string{"all-devices", "compile-only"} {
		if on, _ := cmd.Flags().GetBool(f); on && (s.on() || s.simulate != "") {
			return usageError{fmt.Errorf("--%s does not search; leave out --strategy, --max-evals, --time-limit and --simulate", f)}
		}
	}
	if s.simulate == "" {
		if len(s.strategies()) > 1 {
			return usageError{fmt.Errorf("--strategy takes one strategy, except with --simulate")}
		}
		for _, f := range []string{"seeds", "stop-within"} {
			if cmd.Flags().Changed(f) {
				return usageError{fmt.Errorf("--%s is for --simulate", f)}
			}
		}
	}
	return nil
}

func (s *searchFlags) strategies() []string {
	if s.strategy == "" {
		return []string{autotune.Auto}
	}
	return strings.Split(s.strategy, ",")
}

func (s *searchFlags) options(seed uint64, force bool) autotune.SearchOptions {
	// 0 compiles each configuration just before it is measured, which
	// SearchOptions says with -1 (its 0 is the default).
	return autotune.SearchOptions{Strategy: s.strategies()[0], MaxEvals: s.maxEvals, TimeLimit: s.timeLimit, Seed: seed,
		CompileThreads: cmp.Or(s.compileThreads, -1), Force: force}
}

// tune searches op's space at size and returns the operation of its
// points and the entry to show (the evaluated configurations only).
func (s *searchFlags) tune(cmd *cobra.Command, f *benchFlags, tuner *autotune.Tuner, op kernels.Operation, size kernels.Size, force bool) (kernels.Operation, *autotune.Entry, error) {
	sopts := s.options(f.seed, force)
	if verbose(cmd) {
		sopts.Progress = func(p autotune.SearchProgress) {
			from := ""
			if p.FromLog {
				from = " (from the tuning log)"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "search: %d/%d %s: %s%s; best %s %s\n", p.Eval, p.Budget, p.Name, seconds(p.Seconds), from, p.Best, seconds(p.BestSeconds))
		}
	}
	res, err := tuner.Search(cmd.Context(), op, size, sopts)
	if res == nil {
		return op, nil, err
	}
	r := res.Search
	how := fmt.Sprintf("%d threads while measuring", sopts.CompileThreads)
	if sopts.CompileThreads < 0 {
		how = "before each measurement"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: searched %s's space with %s (seed %d): %d of %d configurations evaluated, %d measured, %d from the tuning log; compile %.1fs (%s), measure %.1fs, wall %.1fs; fastest %s\n",
		res.Entry.Key, op.Name(), r.Strategy, r.Seed, len(r.Order), len(res.Points.Configs), r.Measured, len(r.Order)-r.Measured,
		r.CompileSeconds, how, r.MeasureSeconds, r.WallSeconds, r.Best)
	return res.Op, evaluatedOnly(res.Entry), err
}

// evaluatedOnly returns e without the configurations its search did not
// evaluate.
func evaluatedOnly(e *autotune.Entry) *autotune.Entry {
	c := *e
	c.Results = slices.DeleteFunc(slices.Clone(e.Results), func(r autotune.Result) bool { return r.Outcome == autotune.Unevaluated })
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

// simulate replays strategies against a tuning log file and prints a
// table, or the searches as a log.
func simulate(cmd *cobra.Command, f *benchFlags) error {
	s := &f.search
	if f.format != "table" && f.format != "log" {
		return usageError{fmt.Errorf("--simulate writes --format table or log, not %q", f.format)}
	}
	l, err := readTuneLogFile(s.simulate)
	if err != nil {
		return err
	}
	out, err := openOutput(cmd, f.output, "")
	if err != nil {
		return err
	}
	trace := &autotune.TuneLog{Header: l.Header}
	seen := map[string]bool{}
	var rows []simRow
	for _, name := range s.strategies() {
		seeds := s.seeds
		if name == autotune.Exhaustive {
			seeds = 1 // it has no use for one
		}
		for k := range seeds {
			seed := f.seed + uint64(k)
			r, err := autotune.Replay(l, autotune.SearchOptions{Strategy: name, Seed: seed, MaxEvals: s.maxEvals, TimeLimit: s.timeLimit, StopWithin: s.stopWithin / 100})
			if err != nil {
				out.Discard()
				return usageError{err}
			}
			rows = append(rows, simRow{r: r, seed: seed})
			trace.Searches = append(trace.Searches, r.Search)
			for _, e := range r.Evals {
				if !seen[e.Name] {
					seen[e.Name] = true
					trace.Evals = append(trace.Evals, e)
				}
			}
		}
	}
	if f.format == "log" {
		err = autotune.WriteTuneLog(out, trace)
	} else {
		err = writeSimTable(out, l, rows)
	}
	return out.finish(err)
}

type simRow struct {
	r    *autotune.ReplayResult
	seed uint64
}

// readTuneLogFile reads a tuning log; a file that is not one is bad input.
func readTuneLogFile(path string) (*autotune.TuneLog, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer func() { _ = fh.Close() }() // read only
	l, err := autotune.ReadTuneLog(fh)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", path, err)}
	}
	return l, nil
}
