package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/store"
)

// replayFlags are vkbench replay's flags.
type replayFlags struct {
	strategy   string
	seed       uint64
	seeds      int
	stopWithin float64
	maxEvals   int
	timeLimit  time.Duration
	format     string
	output     string
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay LOG",
		Short: "Run search strategies against a tuning log instead of the GPU, and compare them",
		Long: `Replay searches against LOG, a tuning log (vkbench cache export-log) instead of
the GPU, over the configurations the log records (the space's others are not
proposed): every configuration a strategy proposes is answered by its record,
on a clock that adds up the recorded compile and measure times. A seeded search proposes here what it proposes on a
device, so strategies are compared, and tested, without a GPU; the log of an
exhaustive search gives every strategy the whole space to find its best in.

--strategy takes a comma-separated list (default: every strategy), --seeds N
replays each with seeds --seed to --seed+N-1 (exhaustive once: it has no use
for a seed), --stop-within PCT ends each search once it has evaluated a
configuration within PCT% of the log's best, --max-evals and --time-limit
bound each search as they bound tune's. The log's best, and each search's
winner, are by the objective of the log's last search (tune --objective):
time, or energy or edp picked as tune picks (by time where a configuration
has no energy). The output is a Markdown table, one row a search, then each
strategy's median over its seeds; or with --format log the searches
themselves, as a tuning log, which vkbench report draws.

Exit status: 0 success, 2 bad usage or a file that is not a tuning log, 4 the
output could not be written.`,
		Args: argsWhere(func(n int) bool { return n == 1 }, "replay takes one tuning log (see vkbench replay --help)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return replay(cmd, &f, args[0])
		},
	}
	fs := cmd.Flags()
	// Every strategy but auto, which picks one of the others.
	fs.StringVar(&f.strategy, "strategy", strings.Join([]string{search.Exhaustive, search.Random, search.Anneal, search.Bayes}, ","), "the strategies to replay, comma-separated: exhaustive, random, anneal, bayes or auto")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the first replay of each strategy")
	fs.IntVar(&f.seeds, "seeds", 1, "replay each strategy with this many seeds, from --seed on")
	fs.Float64Var(&f.stopWithin, "stop-within", 0, "end a search once it has found a configuration within this percent of the log's best (default: never)")
	fs.IntVar(&f.maxEvals, "max-evals", 0, "most configurations a search evaluates (default: all for exhaustive, a quarter of the space for the others)")
	fs.DurationVar(&f.timeLimit, "time-limit", 0, "most simulated time a search takes (default: none)")
	fs.StringVarP(&f.format, "format", "f", "table", "output: table (Markdown) or log (the searches, as a tuning log)")
	fs.StringVarP(&f.output, "output", "o", "", "write the output to this file instead of standard output")
	return cmd
}

// replay replays strategies against a tuning log file and prints a table,
// or the searches as a log.
func replay(cmd *cobra.Command, f *replayFlags, path string) error {
	if f.maxEvals < 0 || f.timeLimit < 0 || f.seeds < 1 || f.stopWithin < 0 || math.IsNaN(f.stopWithin) {
		return usageError{fmt.Errorf("--max-evals, --time-limit and --stop-within must not be negative, --seeds at least 1")}
	}
	names := strings.Split(f.strategy, ",")
	if err := checkStrategies(names); err != nil {
		return err
	}
	if f.format != "table" && f.format != "log" {
		return usageError{fmt.Errorf("replay writes --format table or log, not %q", f.format)}
	}
	l, err := readTuneLogFile(path)
	if err != nil {
		return err
	}
	// The output is opened before the work, and written once it is done.
	return writeOutput(cmd, f.output, func(out io.Writer) error {
		trace := &search.TuneLog{Header: l.Header}
		seen := map[string]bool{}
		var rows []*search.ReplayResult
		for _, name := range names {
			seeds := f.seeds
			if name == search.Exhaustive {
				seeds = 1 // it has no use for one
			}
			for k := range seeds {
				r, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: name, Seed: f.seed + uint64(k), MaxEvals: f.maxEvals, TimeLimit: f.timeLimit},
					StopWithin: f.stopWithin / 100, Pick: autotune.BestOf})
				if err != nil {
					return usageError{err}
				}
				rows = append(rows, r)
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
			return search.WriteTuneLog(out, trace)
		}
		return writeReplayTable(out, l, rows)
	}, input{path, "the tuning log replayed"})
}

// readTuneLogFile reads a tuning log; a file that is not one is bad input.
func readTuneLogFile(path string) (*search.TuneLog, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer func() { _ = fh.Close() }() // read only
	l, err := search.ReadTuneLog(fh)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", path, err)}
	}
	return l, nil
}

// within is the distance to the log's best that the table counts
// evaluations to: 3%, as the acceptance of a strategy asks.
const within = 0.03

// writeReplayTable writes the replays as Markdown tables: one row a
// search, then each strategy's median over its seeds.
func writeReplayTable(w io.Writer, l *search.TuneLog, rows []*search.ReplayResult) error {
	if len(rows) == 0 {
		return nil
	}
	points, best, obj := rows[0].Points, rows[0].Best, rows[0].Objective
	bestName, by, column := "", "", "its median"
	if obj != "" {
		by, column = " by "+obj, "its "+strings.Replace(obj, "edp", "energy × time", 1)
	}
	for _, e := range l.Evals {
		if v, ok := rows[0].Value(e); ok && v == best {
			bestName = e.Name
		}
	}
	fmt.Fprintf(w, "replay of %s (%s, %s mode): %d configurations; the log's best%s %s, %s\n\n", l.Header.Key, l.Header.Table.Hardware, l.Header.Mode, points, by, bestName, figure(obj, best))
	fmt.Fprintf(w, "| strategy | seed | evaluations | best found | %s | within %d%% after | simulated time |\n|---|---:|---:|---|---:|---:|---:|\n", column, int(within*100))
	evals := map[string][]int{} // each strategy's evaluations to within, over its seeds
	var order []string
	for _, r := range rows {
		v := 0.0
		for _, e := range r.Evals {
			if e.Name == r.Search.Best {
				v, _ = r.Value(e)
			}
		}
		k := r.EvalsWithin(within)
		after := "never"
		if k > 0 {
			after = fmt.Sprint(k)
		} else {
			k = points + 1 // after the whole space: above any median of reached ones
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %.1f s |\n", r.Search.Strategy, r.Search.Seed, len(r.Evals), r.Search.Best, figure(obj, v), after, r.Search.WallSeconds)
		if _, ok := evals[r.Search.Strategy]; !ok {
			order = append(order, r.Search.Strategy)
		}
		evals[r.Search.Strategy] = append(evals[r.Search.Strategy], k)
	}
	fmt.Fprintf(w, "\n| strategy | seeds | evaluations to within %d%% of the best (median) | of the %d configurations |\n|---|---:|---:|---:|\n", int(within*100), points)
	for _, s := range order {
		e := slices.Sorted(slices.Values(evals[s]))
		m := e[len(e)/2]
		row := fmt.Sprintf("| %s | %d | never | — |\n", s, len(e))
		if m <= points {
			row = fmt.Sprintf("| %s | %d | %d | %.0f%% |\n", s, len(e), m, 100*float64(m)/float64(points))
		}
		if _, err := io.WriteString(w, row); err != nil {
			return err
		}
	}
	return nil
}

// figure writes v, a figure by objective obj: a time ("" or "time"), an
// energy per run, or an energy × time; "failed" where there is none.
func figure(obj string, v float64) string {
	switch {
	case obj == "" || obj == "time":
		return seconds(v)
	case v <= 0:
		return "failed"
	case obj == "edp":
		return joules(v) + "·s"
	}
	return joules(v)
}

func newExportLogCmd(cf *cacheFlags) *cobra.Command {
	var hw, tuner, mode string
	cmd := &cobra.Command{
		Use:   "export-log [KEY FILE]",
		Short: "Write a tuning log (every configuration a search evaluated) as JSON lines",
		Long: `Write the tuning log of KEY (an operation/dtype/shape a search searched, such
as gemm/f32/4096x4096x4096) to FILE as JSON lines: a header (the hardware,
the key, the space's params and restrictions), then one line per evaluated
configuration (its params, statistics or failure, compile and measure time),
then one line per search (strategy, seed, the configurations in the order it
evaluated them). vkbench replay FILE replays strategies against it;
vkbench report FILE -o chart.svg draws its searches' convergence. Without
arguments, lists the tuning logs.`,
		Args: argsWhere(func(n int) bool { return n == 0 || n == 2 }, "export-log takes KEY and FILE, or nothing to list the logs (see vkbench cache export-log --help)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cf.open(cmd, false)
			if err != nil {
				return err
			}
			refs, err := c.TuneLogs(cmd.Context())
			if err != nil {
				return err
			}
			none := fmt.Sprintf("%s has no tuning logs (a tune --strategy search writes one)", cmp.Or(c.Path(), "the cache"))
			var names []string
			for _, r := range refs {
				names = append(names, r.String())
			}
			if len(args) == 0 {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), cmp.Or(strings.Join(names, "\n"), none))
				return err
			}
			// The key as cache ls shows the search's answer (gemm.space/...)
			// names the log too, which is kept under the operation's.
			key, space := args[0], logKey(args[0])
			var match []store.LogRef
			var ofKey []string
			for _, r := range refs {
				if r.Key != key && r.Key != space {
					continue
				}
				ofKey = append(ofKey, r.String())
				if tableChosen(r.Table, hw, tuner) && r.Mode == mode {
					match = append(match, r)
				}
			}
			switch {
			case len(refs) == 0:
				return usageError{errors.New(none)}
			case len(ofKey) == 0:
				return usageError{fmt.Errorf("no tuning log of %s; logs: %s", key, strings.Join(names, ", "))}
			case len(match) == 0:
				return usageError{fmt.Errorf("no tuning log of %s in %s mode%s; logs of it: %s", key, mode, chosenText(hw, tuner), strings.Join(ofKey, ", "))}
			case len(match) > 1:
				return usageError{fmt.Errorf("%d tuning logs match %s in %s mode (narrow with --hardware and --tuner); logs: %s", len(match), key, mode, strings.Join(ofKey, ", "))}
			}
			l, err := search.ReadLog(cmd.Context(), c, match[0])
			if err != nil {
				return err
			}
			if err := writeOutput(cmd, args[1], func(w io.Writer) error { return search.WriteTuneLog(w, l) }, cacheInput(c)); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.ErrOrStderr(), "exported %s (%s, %s) to %s\n", match[0], plural(len(l.Evals), "configuration", "configurations"), plural(len(l.Searches), "search", "searches"), args[1])
			return err
		},
	}
	cmd.Flags().StringVar(&hw, "hardware", "", "the log's hardware (needed when several match)")
	cmd.Flags().StringVar(&tuner, "tuner", "", "the log's tuner (needed when several match)")
	cmd.Flags().StringVar(&mode, "mode", string(autotune.Hot), "the log's mode: hot or cold")
	return cmd
}

// logKey is the key of the tuning log of key, the key of a search's answer
// as cache ls shows it: the log of gemm.space/f32/64x64x64 is kept under
// gemm/f32/64x64x64, the operation's (autotune.SpaceSuffix).
func logKey(key string) string {
	if op, rest, ok := strings.Cut(key, "/"); ok {
		return strings.TrimSuffix(op, autotune.SpaceSuffix) + "/" + rest
	}
	return strings.TrimSuffix(key, autotune.SpaceSuffix)
}

// chosenText says which --hardware and --tuner were asked for, if any.
func chosenText(hw, tuner string) string {
	var b strings.Builder
	if hw != "" {
		fmt.Fprintf(&b, " with --hardware %s", hw)
	}
	if tuner != "" {
		fmt.Fprintf(&b, "%s --tuner %s", map[bool]string{true: " and", false: " with"}[hw != ""], tuner)
	}
	return b.String()
}

// spaceKey is the key under which a search of key's operation's space
// keeps its answer: gemm/f32/64x64x64's is gemm.space/f32/64x64x64; ""
// where key is a search's already.
func spaceKey(key string) string {
	op, rest, _ := strings.Cut(key, "/")
	if strings.HasSuffix(op, autotune.SpaceSuffix) {
		return ""
	}
	return op + autotune.SpaceSuffix + "/" + rest
}

// spaceSearched is what cache show adds where it found no entry of key:
// that a search of the operation's space has one in tables, and how to
// show it; "" where none has.
func spaceSearched(key string, tables []tableEntries) string {
	sk := spaceKey(key)
	for _, t := range tables {
		if sk != "" && slices.ContainsFunc(t.Entries, func(e *autotune.Entry) bool { return e.Key == sk }) {
			return fmt.Sprintf("; a search of its operation's space answered %s (vkbench cache show %s)", sk, sk)
		}
	}
	return ""
}

// searchNote is what cache show says below entry e of table t: for a
// search's answer (OP.space/...), its tuning log in c's file and how to
// write it out; for an operation's answer whose space was searched too,
// the search's key. "" where there is nothing to say.
func searchNote(ctx context.Context, c *store.Store, t tableEntries, e *autotune.Entry) string {
	if sk := spaceKey(e.Key); sk != "" {
		if !slices.ContainsFunc(t.Entries, func(o *autotune.Entry) bool { return o.Key == sk }) {
			return ""
		}
		return fmt.Sprintf("  its operation's space was searched too: vkbench cache show %s\n", sk)
	}
	ref := store.LogRef{Table: t.Table, Key: logKey(e.Key), Mode: e.Mode}
	l, err := search.ReadLog(ctx, c, ref)
	if err != nil {
		return fmt.Sprintf("  tuning log: none in %s (an answer imported, or taken from the shared store, comes without its log)\n", cmp.Or(c.Path(), "the cache"))
	}
	return fmt.Sprintf("  tuning log: %s, %s of %s (vkbench cache export-log %s FILE writes it)\n",
		ref, plural(len(l.Evals), "configuration", "configurations"), plural(len(l.Searches), "search", "searches"), e.Key)
}
