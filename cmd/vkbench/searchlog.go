package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
)

// within is the distance to the log's best that the table counts
// evaluations to: 3%, as the acceptance of a strategy asks.
const within = 0.03

// writeSimTable writes the replays as Markdown tables: one row a search,
// then each strategy's median over its seeds.
func writeSimTable(w io.Writer, l *autotune.TuneLog, rows []simRow) error {
	if len(rows) == 0 {
		return nil
	}
	points, bestSec := rows[0].r.Points, rows[0].r.Best
	bestName := ""
	for _, e := range l.Evals {
		if e.Stats != nil && e.Stats.Median == bestSec {
			bestName = e.Name
		}
	}
	fmt.Fprintf(w, "replay of %s (%s, %s mode): %d configurations; the log's best %s, %s\n\n", l.Header.Key, l.Header.Table.Hardware, l.Header.Mode, points, bestName, seconds(bestSec))
	fmt.Fprintf(w, "| strategy | seed | evaluations | best found | its median | within %d%% after | simulated time |\n|---|---:|---:|---|---:|---:|---:|\n", int(within*100))
	evals := map[string][]int{} // each strategy's evaluations to within, over its seeds
	var order []string
	for _, row := range rows {
		r := row.r
		sec := 0.0
		for _, e := range r.Evals {
			if e.Name == r.Search.Best && e.Stats != nil {
				sec = e.Stats.Median
			}
		}
		k := r.EvalsWithin(within)
		after := "never"
		if k > 0 {
			after = fmt.Sprint(k)
		} else {
			k = points + 1 // after the whole space: above any median of reached ones
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %.1f s |\n", r.Search.Strategy, row.seed, len(r.Evals), r.Search.Best, seconds(sec), after, r.Search.WallSeconds)
		if _, ok := evals[r.Search.Strategy]; !ok {
			order = append(order, r.Search.Strategy)
		}
		evals[r.Search.Strategy] = append(evals[r.Search.Strategy], k)
	}
	fmt.Fprintf(w, "\n| strategy | seeds | evaluations to within %d%% of the best (median) | of the %d configurations |\n|---|---:|---:|---:|\n", int(within*100), points)
	for _, s := range order {
		e := slices.Sorted(slices.Values(evals[s]))
		m := e[len(e)/2]
		if m > points {
			fmt.Fprintf(w, "| %s | %d | never | — |\n", s, len(e))
			continue
		}
		_, err := fmt.Fprintf(w, "| %s | %d | %d | %.0f%% |\n", s, len(e), m, 100*float64(m)/float64(points))
		if err != nil {
			return err
		}
	}
	return nil
}

// newExportLogCmd is vkbench cache export-log.
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
evaluated them). vkbench tune --simulate FILE replays strategies against it;
vkbench report FILE -o chart.svg draws its searches' convergence. Without
arguments, lists the tuning logs.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 && len(args) != 2 {
				return usageError{fmt.Errorf("export-log takes KEY and FILE, or nothing to list the logs")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cf.open(cmd, false)
			if err != nil {
				return err
			}
			refs, err := c.TuneLogs()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				for _, r := range refs {
					fmt.Fprintln(cmd.OutOrStdout(), r)
				}
				return nil
			}
			var match []autotune.LogRef
			var names []string
			for _, r := range refs {
				names = append(names, r.String())
				if r.Key == args[0] && tableChosen(r.Table, hw, tuner) && r.Mode == mode {
					match = append(match, r)
				}
			}
			if len(match) != 1 {
				return usageError{fmt.Errorf("%d tuning logs match %s in %s mode (narrow with --hardware and --tuner); logs: %s", len(match), args[0], mode, strings.Join(names, ", "))}
			}
			l, err := c.ReadLog(match[0])
			if err != nil {
				return err
			}
			if err := writeOutput(cmd, args[1], c.Path(), func(w io.Writer) error { return autotune.WriteTuneLog(w, l) }); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.ErrOrStderr(), "exported %s (%d configurations, %d searches) to %s\n", match[0], len(l.Evals), len(l.Searches), args[1])
			return err
		},
	}
	cmd.Flags().StringVar(&hw, "hardware", "", "the log's hardware (needed when several match)")
	cmd.Flags().StringVar(&tuner, "tuner", "", "the log's tuner (needed when several match)")
	cmd.Flags().StringVar(&mode, "mode", string(autotune.Hot), "the log's mode: hot or cold")
	return cmd
}
