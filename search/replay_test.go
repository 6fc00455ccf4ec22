package search_test

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/status"
)

var updateSearchExpect = flag.Bool("update-search-expect", false, "pin each strategy's median evaluations on every log of testdata/search in "+searchExpect)

// searchExpect pins, for each log of testdata/search and each strategy,
// the most evaluations (median of the seeds) the strategy may need to come
// within 3% of the log's best: a strategy that needs more has regressed.
// A log without an entry is held to the acceptance bounds alone (the
// model-guided strategy within a quarter of the space, every strategy
// within the space); -update-search-expect pins what the strategies need
// now, plus a fifth.
const searchExpect = "testdata/search/expect.json"

// replaySeeds are the seeds every strategy is replayed with: twenty, so
// that the worst seed says something.
var replaySeeds = func() (s []uint64) {
	for i := range 20 {
		s = append(s, uint64(i+1))
	}
	return s
}()

// TestReplayStrategies replays every strategy with twenty seeds on every
// tuning log in testdata/search (the synthetic model's, and whatever a GPU
// recorded: bench/search.sh writes one; drop it in as
// testdata/search/NAME.jsonl), and counts the evaluations each needs to
// come within 3% of the exhaustive search's best. The model-guided
// strategy, the default above 64 points, must need at most a quarter of
// the space in the median of the seeds, at most 40% in the worst seed,
// and no more than random search in the median; none may need more than
// it needed when searchExpect was pinned.
func TestReplayStrategies(t *testing.T) {
	logs, err := filepath.Glob("testdata/search/*.jsonl")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no tuning logs in testdata/search (%v)", err)
	}
	pinned := map[string]map[string]int{}
	if data, err := os.ReadFile(searchExpect); err == nil {
		if err := json.Unmarshal(data, &pinned); err != nil {
			t.Fatalf("%s: %v", searchExpect, err)
		}
	}
	measured := map[string]map[string]int{}
	for _, path := range logs {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
			l := readLog(t, path)
			medians, worst := replayTable(t, l)
			measured[name] = medians
			n := medians["points"]
			if b := medians[search.Bayes]; 4*b > n {
				t.Errorf("bayes needs %d evaluations (median of %d seeds) to come within 3%% of the best; more than a quarter of the %d points", b, len(replaySeeds), n)
			}
			if w := worst[search.Bayes]; 10*w > 4*n {
				t.Errorf("bayes needs %d evaluations in its worst seed to come within 3%% of the best; more than 40%% of the %d points", w, n)
			}
			if b, r := medians[search.Bayes], medians[search.Random]; b > r {
				t.Errorf("bayes needs %d evaluations (median) to come within 3%% of the best, random search %d: the model does worse than no model", b, r)
			}
			for s, most := range pinned[name] {
				if got, ok := medians[s]; ok && got > most {
					t.Errorf("%s needs %d evaluations (median) to come within 3%%; %s pins at most %d: the strategy regressed", s, got, searchExpect, most)
				}
			}
		})
	}
	if *updateSearchExpect {
		for _, m := range measured {
			for s, v := range m {
				if s != "points" {
					m[s] = v + (v+4)/5
				}
			}
		}
		data, _ := json.MarshalIndent(measured, "", "  ")
		if err := os.WriteFile(searchExpect, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readLog(t testing.TB, path string) *search.TuneLog {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	l, err := search.ReadTuneLog(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return l
}

// replayTable replays every strategy over the seeds and returns the
// median evaluations each needed to come within 3% of the best ("points":
// the space's size) and the most any seed needed, logging the table.
func replayTable(t *testing.T, l *search.TuneLog) (median, worst map[string]int) {
	ex, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: search.Exhaustive}})
	if err != nil {
		t.Fatal(err)
	}
	n := ex.Points
	if len(ex.Evals) != n || ex.Search.Best == "" {
		t.Fatalf("exhaustive replay evaluated %d of %d points, best %q", len(ex.Evals), n, ex.Search.Best)
	}
	out := map[string]int{"points": n, search.Exhaustive: ex.EvalsWithin(0.03)}
	worst = map[string]int{}
	t.Logf("%d points; exhaustive best %s, %.4g s, within 3%% after %d evaluations", n, ex.Search.Best, ex.Best, out[search.Exhaustive])
	for _, s := range []string{search.Random, search.Anneal, search.Bayes} {
		var evals []int
		for _, seed := range replaySeeds {
			r, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: s, Seed: seed, MaxEvals: n}, StopWithin: 0.03})
			if err != nil {
				t.Fatal(err)
			}
			k := r.EvalsWithin(0.03)
			if k == 0 {
				t.Errorf("%s seed %d never came within 3%% of the best in %d evaluations", s, seed, len(r.Evals))
				k = n
			}
			evals = append(evals, k)
		}
		sorted := slices.Sorted(slices.Values(evals))
		out[s] = sorted[len(sorted)/2]
		worst[s] = sorted[len(sorted)-1]
		t.Logf("%-10s evaluations to within 3%%, seeds %v: %v, median %d (%.0f%% of the space), worst %d", s, replaySeeds, evals, out[s], 100*float64(out[s])/float64(n), worst[s])
	}
	return out, worst
}

// TestReplayReproducible checks that a seeded search is a function of its
// seed: the same seed proposes the same points, another seed others.
func TestReplayReproducible(t *testing.T) {
	l := readLog(t, syntheticLog)
	for _, s := range []string{search.Random, search.Anneal, search.Bayes} {
		order := func(seed uint64) []string {
			r, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: s, Seed: seed, MaxEvals: 40}})
			if err != nil {
				t.Fatal(err)
			}
			return r.Search.Order
		}
		a, b, c := order(7), order(7), order(8)
		if diff := gocmp.Diff(a, b); diff != "" {
			t.Errorf("%s, seed 7 twice (-first +second):\n%s", s, diff)
		}
		if gocmp.Equal(a, c) {
			t.Errorf("%s: seeds 7 and 8 propose the same 40 points", s)
		}
		if len(a) != 40 || len(slices.Compact(slices.Sorted(slices.Values(a)))) != 40 {
			t.Errorf("%s: %d evaluations, some repeated: %v", s, len(a), a)
		}
	}
}

// TestReplayWrongNeverWins gives the log's fastest configuration a wrong
// result (its times kept): no strategy may answer with it.
func TestReplayWrongNeverWins(t *testing.T) {
	l := readLog(t, syntheticLog)
	fastest := 0
	for i, r := range l.Evals {
		if r.Stats.Median < l.Evals[fastest].Stats.Median {
			fastest = i
		}
	}
	wrong := l.Evals[fastest].Name
	l.Evals[fastest].Outcome = results.Wrong
	l.Evals[fastest].Error = "kernels: wrong result"
	for _, s := range []string{search.Exhaustive, search.Random, search.Anneal, search.Bayes} {
		budget := len(l.Evals)
		if s == search.Bayes {
			budget = 100 // the model's cost grows as the cube of the results; it finds the region by then
		}
		r, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: s, Seed: 1, MaxEvals: budget}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Search.Best == wrong || r.Search.Best == "" {
			t.Errorf("%s answered %q; the wrong %s must never win", s, r.Search.Best, wrong)
		}
		if !slices.Contains(r.Search.Order, wrong) {
			t.Errorf("%s never evaluated %s in a whole search", s, wrong)
		}
		if b := search.BestSoFar(r.Evals, ""); math.IsInf(b[len(b)-1], 1) {
			t.Errorf("%s: no best at the end", s)
		}
	}
}

// TestReplayBudgets checks that --max-evals and --time-limit bound a
// replay: the time limit on the recorded compile and measure times.
func TestReplayBudgets(t *testing.T) {
	l := readLog(t, syntheticLog)
	r, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: search.Random, Seed: 3, MaxEvals: 17}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Evals) != 17 {
		t.Errorf("MaxEvals 17: %d evaluations", len(r.Evals))
	}
	limit := 5.0
	r, err = search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: search.Random, Seed: 3, TimeLimit: secondsDuration(limit)}})
	if err != nil {
		t.Fatal(err)
	}
	spent := 0.0
	for _, e := range r.Evals[:len(r.Evals)-1] {
		spent += e.CompileSeconds + e.MeasureSeconds
	}
	if spent >= limit || r.Search.WallSeconds < limit && len(r.Evals) < r.Points {
		t.Errorf("TimeLimit %gs: %d evaluations taking %.3gs before the last, %.3gs in all", limit, len(r.Evals), spent, r.Search.WallSeconds)
	}
	if _, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: "genetic"}}); err == nil || !strings.Contains(err.Error(), `unknown strategy "genetic"`) {
		t.Errorf("an unknown strategy: %v", err)
	}
}

func secondsDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// TestReplayByObjective: a replay ranks by the objective of the log's
// last search, time where it names none (logs written before one could)
// or where a verified record has no energy, as a tuner's pick falls back.
// Before, a log searched by energy or edp was replayed by time: its best
// the fastest median, StopWithin reached at the fastest configuration,
// the replay's winner the fastest.
func TestReplayByObjective(t *testing.T) {
	var recs []search.LogRecord
	for i, p := range []struct{ ms, mJ float64 }{{1.5, 5}, {2, 4}, {6, 1}, {3, 1.2}, {5, 1.6}} {
		r := logRecord(fmt.Sprintf("a%d", i), p.ms, i)
		r.EnergyJ = p.mJ / 1e3
		recs = append(recs, r)
	}
	// The least figure wins here; a tuner's pick (autotune.BestOf) adds its ties.
	picked := ""
	pick := func(evals []search.Evaluation, objective string) (search.Evaluation, string) {
		picked = objective
		return slices.MinFunc(evals, func(a, b search.Evaluation) int {
			av, _, _, _ := a.Record.ObjectiveValue(objective)
			bv, _, _, _ := b.Record.ObjectiveValue(objective)
			return cmp.Compare(av, bv)
		}), objective
	}
	for _, c := range []struct {
		objective string
		lacking   bool // a4 has no energy
		best      float64
		want, by  string
		after     int // evaluations to within 3%, in the grid's order
	}{
		{"", false, 1.5e-3, "a0", "", 1},
		{"energy", false, 1e-3, "a2", "energy", 3},
		{"edp", false, 3.6e-6, "a3", "edp", 4},
		{"energy", true, 1.5e-3, "a0", "", 1},
	} {
		l := &search.TuneLog{Header: search.LogHeader{Key: "k", Space: search.LogSpace{Params: []kernels.Param{{Name: "A", Values: []int{0, 1, 2, 3, 4}}}}},
			Evals: slices.Clone(recs), Searches: []search.LogSearch{{Objective: "energy"}, {Objective: c.objective}}}
		if c.lacking {
			l.Evals[4].EnergyJ = 0
		}
		picked = ""
		r, err := search.Replay(l, search.ReplayOptions{Options: search.Options{Strategy: search.Exhaustive}, StopWithin: 0.03, Pick: pick})
		if err != nil {
			t.Fatal(err)
		}
		if r.Objective != c.by || math.Abs(r.Best/c.best-1) > 1e-9 || r.EvalsWithin(0.03) != c.after || len(r.Evals) != c.after || picked != c.by {
			t.Errorf("log by %q (a4 without energy: %v): ranked by %q, best %g, within 3%% after %d, stopped after %d, picked by %q; want by %q, %g, %d, %d, %q",
				c.objective, c.lacking, r.Objective, r.Best, r.EvalsWithin(0.03), len(r.Evals), picked, c.by, c.best, c.after, c.after, c.by)
		}
		if r.Search.Best != c.want || r.Search.Objective != c.by {
			t.Errorf("log by %q (a4 without energy: %v): the replay's winner %s by %q; want %s by %q", c.objective, c.lacking, r.Search.Best, r.Search.Objective, c.want, c.by)
		}
		if _, err := search.Replay(l, search.ReplayOptions{}); c.by != "" && status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("log by %q without a Pick: %v; want InvalidArgument", c.objective, err)
		}
	}
}
