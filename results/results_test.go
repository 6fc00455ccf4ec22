package results_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// samples returns n times around median with relative noise noise.
func samples(seed uint64, n int, median, noise float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = median * (1 + noise*(2*r.Float64()-1))
	}
	return out
}

func file(bs ...results.Benchmark) *results.File {
	return &results.File{Schema: results.Schema, Rounds: 1, Benchmarks: bs}
}

// bench is a benchmark measured in one round per slice of samples.
func bench(name string, rounds ...[]float64) results.Benchmark {
	b := results.Benchmark{Name: name, Measurement: results.Measurement{Outcome: results.Measured}}
	var all []float64
	for _, r := range rounds {
		b.Rounds = append(b.Rounds, stats.Summarize(r, 1))
		all = append(all, r...)
	}
	st := stats.Summarize(all, 1)
	st.Samples = nil
	b.Stats = &st
	return b
}

// rounds returns n rounds of 20 samples each, the rounds' medians spread
// by roundNoise around median and the samples of each round by 1%.
func rounds(seed uint64, n int, median, roundNoise float64) [][]float64 {
	med := samples(seed, n, median, roundNoise)
	out := make([][]float64, n)
	for i, m := range med {
		out[i] = samples(seed*1000+uint64(i), 20, m, 0.01)
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	// steady is n rounds of one sample each, all v: a timer too coarse
	// to see any noise.
	steady := func(n int, v float64) [][]float64 {
		out := make([][]float64, n)
		for i := range out {
			out[i] = []float64{v}
		}
		return out
	}
	tests := []struct {
		name       string
		base, cur  [][]float64
		want       results.Verdict
		regression bool
	}{
		{"tight 10% regression", rounds(1, 6, 1e-3, 0.005), rounds(2, 6, 1.1e-3, 0.005), results.Slower, true},
		{"same medians, wide noise", rounds(3, 8, 1e-3, 0.4), rounds(4, 8, 1e-3, 0.4), results.Same, false},
		{"noisy 10% shift", rounds(5, 5, 1e-3, 0.6), rounds(6, 5, 1.1e-3, 0.6), results.Same, false},
		{"improvement", rounds(7, 5, 1e-3, 0.005), rounds(8, 5, 0.8e-3, 0.005), results.Faster, false},
		{"3% slower is under the threshold", rounds(9, 8, 1e-3, 0.002), rounds(10, 8, 1.03e-3, 0.002), results.Same, false},
		{"steady rounds, 20% slower", steady(5, 1e-3), steady(5, 1.2e-3), results.Slower, true},
		{"steady rounds, no change", steady(5, 1e-3), steady(5, 1e-3), results.Same, false},
		// The issue this design answers: two runs of the same kernel
		// whose device ran 20% slower the second time. Each run's samples
		// are tight, so a test over samples calls it significant; one
		// round a side cannot say.
		{"one round each: drift between runs", rounds(11, 1, 1e-3, 0), rounds(12, 1, 1.2e-3, 0), results.Unjudged, false},
		{"three rounds each", rounds(13, 3, 1e-3, 0.001), rounds(14, 3, 1.5e-3, 0.001), results.Unjudged, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := results.Compare(file(bench("copy/u32/1024/vec4", tc.base...)), file(bench("copy/u32/1024/vec4", tc.cur...)), results.DefaultCompareOptions)
			if len(rep.Rows) != 1 {
				t.Fatalf("rows = %v", rep.Rows)
			}
			r := rep.Rows[0]
			if r.Verdict != tc.want {
				t.Errorf("verdict %q (delta %+.3f, p %.3g), want %q", r.Verdict, r.Delta, r.P, tc.want)
			}
			if (rep.Regressions > 0) != tc.regression {
				t.Errorf("regressions = %d, want regression %v", rep.Regressions, tc.regression)
			}
			if r.Verdict == results.Unjudged && !strings.Contains(r.Note, "--count 5") {
				t.Errorf("an unjudged row's note %q does not say what to do", r.Note)
			}
		})
	}
}

// TestCompareOutlierRounds: a round far slower than the rest of its run
// (a neighbour's job on a shared machine) is left out before the test, and
// the row says so: kept, its spread hid a kernel 10% slower. A round far
// faster is kept (only other work slows a round), and a round is judged
// against the rest of its own run, not against runs it is pooled with
// that ran slower as a whole. A row of as many rounds as alpha needs stays
// judged when one is left out.
func TestCompareOutlierRounds(t *testing.T) {
	// hit is rounds with the round at i made factor slower.
	hit := func(rs [][]float64, i int, factor float64) [][]float64 {
		for j := range rs[i] {
			rs[i][j] *= factor
		}
		return rs
	}
	pooled := func(runs ...[][]float64) *results.File {
		var files []*results.File
		for _, r := range runs {
			files = append(files, file(bench("copy/u32/1024/vec4", r...)))
		}
		f, err := results.Merge(files...)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	strict := results.DefaultCompareOptions
	strict.Alpha = 0.01
	for _, c := range []struct {
		name      string
		base, cur *results.File
		opts      results.CompareOptions
		want      results.Verdict
		n1, n2    int
		note      string
	}{
		{"kernel 10% slower, a round of new 80% slower", file(bench("copy/u32/1024/vec4", rounds(1, 5, 1e-3, 0.005)...)), file(bench("copy/u32/1024/vec4", hit(rounds(2, 5, 1.1e-3, 0.005), 2, 1.8)...)),
			results.DefaultCompareOptions, results.Slower, 5, 4, "rounds far slower than the rest of their run left out: 0 in base, 1 in new"},
		{"no change, a round of base 80% slower", file(bench("copy/u32/1024/vec4", hit(rounds(3, 5, 1e-3, 0.005), 0, 1.8)...)), file(bench("copy/u32/1024/vec4", rounds(4, 5, 1e-3, 0.005)...)),
			results.DefaultCompareOptions, results.Same, 4, 5, "1 in base, 0 in new"},
		{"a round twice as fast is kept", file(bench("copy/u32/1024/vec4", rounds(5, 5, 1e-3, 0.005)...)), file(bench("copy/u32/1024/vec4", hit(rounds(6, 5, 1e-3, 0.005), 1, 0.5)...)),
			results.DefaultCompareOptions, results.Same, 5, 5, ""},
		{"three runs a side, two 20% slower as a whole, a round of the other 20% slower", pooled(hit(rounds(7, 5, 1e-3, 0.002), 3, 1.2), rounds(8, 5, 1.2e-3, 0.002), rounds(9, 5, 1.2e-3, 0.002)), pooled(rounds(10, 5, 1e-3, 0.002), rounds(11, 5, 1.2e-3, 0.002), rounds(12, 5, 1.2e-3, 0.002)),
			results.DefaultCompareOptions, results.Same, 14, 15, "1 in base, 0 in new"},
		{"alpha 0.01: kernel 30% slower, a round of new 80% slower", file(bench("copy/u32/1024/vec4", rounds(13, 5, 1e-3, 0.005)...)), file(bench("copy/u32/1024/vec4", hit(rounds(14, 5, 1.3e-3, 0.005), 4, 1.8)...)),
			strict, results.Slower, 5, 4, "0 in base, 1 in new"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := results.Compare(c.base, c.cur, c.opts).Rows[0]
			if r.Verdict != c.want || r.N1 != c.n1 || r.N2 != c.n2 {
				t.Errorf("%q over %d and %d rounds (delta %+.3f, p %.3g, note %q); want %q over %d and %d", r.Verdict, r.N1, r.N2, r.Delta, r.P, r.Note, c.want, c.n1, c.n2)
			}
			if !strings.Contains(r.Note, c.note) || (c.note == "") != (r.Note == "") {
				t.Errorf("note %q, want %q", r.Note, c.note)
			}
		})
	}
}

// TestCompareMovedTogether: when every benchmark moved the same way past
// the threshold, the report says so; one that did not is enough to say
// nothing.
func TestCompareMovedTogether(t *testing.T) {
	base := file(bench("a", rounds(1, 5, 1e-3, 0.001)...), bench("b", rounds(2, 5, 2e-3, 0.001)...))
	slow := file(bench("a", rounds(3, 5, 1.5e-3, 0.001)...), bench("b", rounds(4, 5, 3.4e-3, 0.001)...))
	rep := results.Compare(base, slow, results.DefaultCompareOptions)
	if !rep.Together || math.Abs(rep.Shift-0.7) > 0.01 {
		t.Errorf("together %v, shift %.3f; want true, +0.70 (the median of +50%% and +70%%)", rep.Together, rep.Shift)
	}
	mixed := file(bench("a", rounds(3, 5, 1.5e-3, 0.001)...), bench("b", rounds(4, 5, 2e-3, 0.001)...))
	if rep := results.Compare(base, mixed, results.DefaultCompareOptions); rep.Together {
		t.Errorf("one benchmark moved, the other not: together %v", rep.Together)
	}
}

func TestRoundsNeeded(t *testing.T) {
	if n := results.RoundsNeeded(0.05); n != 5 {
		t.Errorf("RoundsNeeded(0.05) = %d, want 5", n)
	}
	// 2/C(12, 6) = 0.0022 is the first below 0.005.
	if n := results.RoundsNeeded(0.005); n != 6 {
		t.Errorf("RoundsNeeded(0.005) = %d, want 6", n)
	}
}

func TestCompareMissing(t *testing.T) {
	s := rounds(1, 5, 1e-3, 0.01)
	failed := results.Benchmark{Name: "c", Measurement: results.Measurement{Outcome: results.Failed, Error: "wrong result"}}
	notRun := results.Benchmark{Name: "e", Measurement: results.Measurement{Outcome: results.NotRun, Error: "the device was lost before, measuring c"}}
	rep := results.Compare(file(bench("a", s...), bench("b", s...), bench("c", s...), bench("e", s...)), file(bench("a", s...), failed, bench("d", s...), notRun), results.DefaultCompareOptions)
	got := map[string]results.Verdict{}
	for _, r := range rep.Rows {
		got[r.Name] = r.Verdict
	}
	// c ran in base and failed in new: the change broke it, a regression
	// (the rule ab's judge had, now one for both). e, not run in new
	// (the device was lost before, running c), is unclear: not broken,
	// not passed.
	want := map[string]results.Verdict{"a": results.Same, "b": results.OnlyBase, "c": results.Broke, "d": results.OnlyNew, "e": results.Unclear}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: verdict %q, want %q", k, got[k], v)
		}
	}
	if rep.Missing != 2 || rep.Regressions != 1 || rep.Unclear != 1 {
		t.Errorf("missing = %d, regressions = %d, unclear = %d; want 2, 1, 1", rep.Missing, rep.Regressions, rep.Unclear)
	}
}

// TestOutcomesAreTheSchemas: the outcomes a results file records are
// exactly those its schema allows, spelt alike.
func TestOutcomesAreTheSchemas(t *testing.T) {
	for _, version := range []string{results.Schema, results.SchemaV1} {
		data, err := results.SchemaJSON(version)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Defs map[string]struct {
				Properties map[string]struct {
					Enum []results.Outcome `json:"enum"`
				} `json:"properties"`
			} `json:"$defs"`
		}
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatal(err)
		}
		want := []results.Outcome{results.Measured, results.Dropped, results.Wrong, results.Failed, results.Unsupported, results.NotRun, results.Compiled}
		if version == results.SchemaV1 { // written before "not run"
			want = slices.Delete(want, 5, 6)
		}
		if diff := cmp.Diff(want, schema.Defs["benchmark"].Properties["outcome"].Enum); diff != "" {
			t.Errorf("%s: outcomes (-Go +schema):\n%s", version, diff)
		}
	}
}

func TestParseGoBench(t *testing.T) {
	in := `goos: linux
BenchmarkCopy/u32/1024/vec4-2   1   1000 ns/op   4096 B/op
BenchmarkCopy/u32/1024/vec4-2   1   1100 ns/op
BenchmarkCopy/u32/1024/scalar-2 1   2000 ns/op
`
	f, err := results.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Benchmarks) != 2 {
		t.Fatalf("benchmarks = %+v", f.Benchmarks)
	}
	b, ok := f.Lookup("Copy/u32/1024/vec4-2")
	if !ok {
		t.Fatal("no Copy/u32/1024/vec4-2")
	}
	// Each line is a round, as benchstat reads -count runs.
	if d := cmp.Diff([]float64{1e-6, 1.1e-6}, b.RoundMedians(), cmpopts.EquateApprox(0, 1e-15)); d != "" {
		t.Errorf("round medians (-want +got):\n%s", d)
	}
	if b.Stats.N != 2 || math.Abs(b.Stats.Min-1e-6) > 1e-15 || f.Rounds != 2 {
		t.Errorf("vec4 = %+v, file rounds %d", b.Stats, f.Rounds)
	}
}

// minimal is a valid version 2 file with one benchmark, whose JSON the
// cases of TestParseBad break one way each.
const minimal = `{"schema":"vkbench.results/v2","vkbench_version":"x","time":"2026-01-02T03:04:05Z",
"device":{"index":0,"name":"d","hardware":"h"},"mode":"hot","seed":1,"rounds":1,"benchmarks":[
{"name":"a/u32/4/c","op":"a","dtype":"u32","shape":"4","candidate":"c","outcome":"measured",
"stats":{"median_s":1e-3,"ci_lo_s":1e-3,"ci_hi_s":1e-3,"min_s":1e-3,"max_s":1e-3,"spread":0,"samples":1,"batch":1},
"rounds":[{"median_s":1e-3,"ci_lo_s":1e-3,"ci_hi_s":1e-3,"min_s":1e-3,"max_s":1e-3,"spread":0,"samples":1,"batch":1,"samples_s":[1e-3]}]}]}`

func TestParseMinimal(t *testing.T) {
	f, err := results.Parse([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]float64{1e-3}, f.Benchmarks[0].RoundMedians()); d != "" {
		t.Errorf("round medians (-want +got):\n%s", d)
	}
}

func TestParseBad(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"empty":           {"  \n", "empty"},
		"not json":        {"{nope", "malformed JSON"},
		"null":            {"null", "no benchmarks"},
		"wrong schema":    {`{"schema":"other/v9","benchmarks":[]}`, `schema "other/v9"`},
		"no schema":       {`{"foo":1}`, `not a file of vkbench: it names no "schema" (want "vkbench.results/v2"`},
		"other version":   {`{"schema":"vkbench.results/v9","benchmarks":[]}`, `schema "vkbench.results/v9" is of another version of vkbench; this one reads "vkbench.results/v2"`},
		"no benchmarks":   {strings.Replace(minimal, `"benchmarks":[`, `"benchmark":[`, 1), "benchmark"},
		"benchmarks null": {strings.Replace(minimal[:strings.Index(minimal, `"benchmarks"`)], `"rounds":1,`, `"rounds":1,"benchmarks":null}`, 1), "/benchmarks"},
		"unknown outcome": {strings.Replace(minimal, `"measured"`, `"great"`, 1), "/benchmarks/0/outcome"},
		"no stats":        {strings.Replace(minimal, `"stats":{"median_s":1e-3,"ci_lo_s":1e-3,"ci_hi_s":1e-3,"min_s":1e-3,"max_s":1e-3,"spread":0,"samples":1,"batch":1},`, "", 1), "stats"},
		"zero sample":     {strings.Replace(minimal, `"samples_s":[1e-3]`, `"samples_s":[0]`, 1), "/benchmarks/0/rounds/0/samples_s/0"},
		"negative v1":     {`{"schema":"vkbench.results/v1","vkbench_version":"x","time":"2026-01-02T03:04:05Z","device":{"index":0,"name":"d","hardware":"h"},"mode":"hot","seed":1,"benchmarks":[{"name":"a/u32/4/c","op":"a","dtype":"u32","shape":"4","candidate":"c","outcome":"measured","stats":{"median_s":1e-3,"ci_lo_s":1e-3,"ci_hi_s":1e-3,"min_s":1e-3,"max_s":1e-3,"spread":0,"samples":1,"batch":1,"samples_s":[-1]}}]}`, "/benchmarks/0/stats/samples_s/0"},
		"zero v1":         {`{"schema":"vkbench.results/v1","vkbench_version":"x","time":"2026-01-02T03:04:05Z","device":{"index":0,"name":"d","hardware":"h"},"mode":"hot","seed":1,"benchmarks":[{"name":"a/u32/4/c","op":"a","dtype":"u32","shape":"4","candidate":"c","outcome":"measured","stats":{"median_s":1e-3,"ci_lo_s":1e-3,"ci_hi_s":1e-3,"min_s":1e-3,"max_s":1e-3,"spread":0,"samples":1,"batch":1,"samples_s":[1e-3,0]}}]}`, "sample 0 is not a time"},
		"duplicate":       {strings.Replace(minimal, `}]}]}`, `}]},`+minimal[strings.Index(minimal, `{"name"`):], 1), "a second benchmark"},
		"unknown field":   {strings.Replace(minimal, `"seed":1`, `"seed":1,"sede":2`, 1), "sede"},
		"gobench no sec":  {"BenchmarkX 1 5 B/op\n", "sec/op"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := results.Parse([]byte(tc.in))
			if status.CodeOf(err) != status.InvalidArgument {
				t.Fatalf("Parse = %v, want InvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want it to name %q", err, tc.want)
			}
		})
	}
}

// TestParseV1 reads a version 1 file: its samples become its one round.
func TestParseV1(t *testing.T) {
	in := `{"schema":"vkbench.results/v1","vkbench_version":"x","time":"2026-01-02T03:04:05Z","device":{"index":0,"name":"d","hardware":"h"},"mode":"hot","seed":1,"benchmarks":[{"name":"a/u32/4/c","op":"a","dtype":"u32","shape":"4","candidate":"c","outcome":"measured","stats":{"median_s":2e-3,"ci_lo_s":1e-3,"ci_hi_s":3e-3,"min_s":1e-3,"max_s":3e-3,"spread":1,"samples":3,"batch":1,"samples_s":[1e-3,2e-3,3e-3]}}]}`
	f, err := results.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	b := f.Benchmarks[0]
	if f.Schema != results.Schema || f.Rounds != 1 || len(b.Rounds) != 1 || b.Stats.Samples != nil {
		t.Fatalf("upgraded file: schema %q, rounds %d, benchmark rounds %+v, stats samples %v", f.Schema, f.Rounds, b.Rounds, b.Stats.Samples)
	}
	if d := cmp.Diff([]float64{1e-3, 2e-3, 3e-3}, b.Rounds[0].Samples); d != "" {
		t.Errorf("the round's samples (-want +got):\n%s", d)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	f := file(bench("gemm/f32/64x64x64/tiled", rounds(1, 3, 1e-3, 0.01)...))
	f.Benchmarks[0].Op, f.Benchmarks[0].DType, f.Benchmarks[0].Shape, f.Benchmarks[0].Candidate = "gemm", "f32", "64x64x64", "tiled"
	f.Version, f.Mode, f.Device = "x", "hot", results.Device{Name: "d", Hardware: "h"}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := results.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(f.Benchmarks, g.Benchmarks); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"schema":"vkbench.results/v1","benchmarks":[{"name":"a","stats":{"samples_s":[1e-3,2e-3]}}]}`))
	f.Add([]byte(minimal))
	f.Add([]byte("BenchmarkX-2 1 100 ns/op\nBenchmarkX-2 1 110 ns/op\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := results.Parse(data)
		if err != nil {
			if c := status.CodeOf(err); c != status.InvalidArgument {
				t.Fatalf("Parse error with code %v: %v", c, err)
			}
			return
		}
		results.Compare(fl, fl, results.DefaultCompareOptions)
	})
}

// TestCompareNotesConditions: a verdict on results measured while the GPU
// throttled, or at SM clocks apart, says so beside it; one measured
// alike says nothing.
func TestCompareNotesConditions(t *testing.T) {
	at := func(b results.Benchmark, mhz float64, flags ...string) results.Benchmark {
		b.Conditions = &telemetry.Conditions{Source: "nvml", Samples: 5, SMClockMHz: telemetry.Range{Min: mhz, Max: mhz}}
		b.Flags = flags
		return b
	}
	file := func(b results.Benchmark) *results.File { return &results.File{Benchmarks: []results.Benchmark{b}} }
	base := bench("gemm", rounds(1, 6, 1e-3, 0.005)...)
	slower := bench("gemm", rounds(2, 6, 1.2e-3, 0.005)...)
	for _, c := range []struct {
		name      string
		base, cur results.Benchmark
		want      string
	}{
		{"alike", at(base, 1980), at(slower, 1980), ""},
		{"throttled", at(base, 1980), at(slower, 1980, telemetry.FlagThrottled), "new measured while the GPU throttled"},
		{"clocks apart", at(base, 1980), at(slower, 1410, telemetry.FlagClocksMoved), "new's clocks moved; base ran at SM 1980 MHz, new at 1410 MHz"},
		{"not read", base, slower, ""},
	} {
		rep := results.Compare(file(c.base), file(c.cur), results.DefaultCompareOptions)
		if r := rep.Rows[0]; r.Verdict != results.Slower || r.Note != c.want {
			t.Errorf("%s: %s (%q); want slower (%q)", c.name, r.Verdict, r.Note, c.want)
		}
	}
}
