package results_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
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
	return &results.File{Schema: results.Schema, Benchmarks: bs}
}

func bench(name string, s []float64) results.Benchmark {
	st := autotune.Summarize(s, 1)
	return results.Benchmark{Name: name, Outcome: autotune.Measured, Stats: &st}
}

func TestCompareVerdicts(t *testing.T) {
	tests := []struct {
		name       string
		base, cur  []float64
		want       results.Verdict
		regression bool
	}{
		{"tight 10% regression", samples(1, 20, 1e-3, 0.005), samples(2, 20, 1.1e-3, 0.005), results.Slower, true},
		{"same medians, wide noise", samples(3, 20, 1e-3, 0.4), samples(4, 20, 1e-3, 0.4), results.Same, false},
		{"noisy 10% shift", samples(5, 6, 1e-3, 0.6), samples(6, 6, 1.1e-3, 0.6), results.Same, false},
		{"improvement", samples(7, 20, 1e-3, 0.005), samples(8, 20, 0.8e-3, 0.005), results.Faster, false},
		{"3% slower is under the threshold", samples(9, 20, 1e-3, 0.002), samples(10, 20, 1.03e-3, 0.002), results.Same, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := results.Compare(file(bench("copy/u32/1024/vec4", tc.base)), file(bench("copy/u32/1024/vec4", tc.cur)), results.DefaultCompareOptions)
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
		})
	}
}

func TestCompareMissing(t *testing.T) {
	s := samples(1, 10, 1e-3, 0.01)
	failed := results.Benchmark{Name: "c", Outcome: autotune.Failed, Error: "wrong result"}
	rep := results.Compare(file(bench("a", s), bench("b", s), bench("c", s)), file(bench("a", s), failed, bench("d", s)), results.DefaultCompareOptions)
	got := map[string]results.Verdict{}
	for _, r := range rep.Rows {
		got[r.Name] = r.Verdict
	}
	want := map[string]results.Verdict{"a": results.Same, "b": results.OnlyBase, "c": results.NotMeasured, "d": results.OnlyNew}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: verdict %q, want %q", k, got[k], v)
		}
	}
	if rep.Missing != 3 {
		t.Errorf("missing = %d, want 3", rep.Missing)
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
	if !ok || b.Stats.N != 2 || math.Abs(b.Stats.Min-1e-6) > 1e-15 {
		t.Errorf("vec4 = %+v, %v", b, ok)
	}
}

func TestParseBad(t *testing.T) {
	for name, in := range map[string]string{
		"empty":          "  \n",
		"not json":       "{nope",
		"wrong schema":   `{"schema":"other/v9","benchmarks":[]}`,
		"duplicate":      `{"schema":"vkbench.results/v1","benchmarks":[{"name":"a"},{"name":"a"}]}`,
		"no name":        `{"schema":"vkbench.results/v1","benchmarks":[{"op":"a"}]}`,
		"negative":       `{"schema":"vkbench.results/v1","benchmarks":[{"name":"a","stats":{"samples_s":[-1]}}]}`,
		"no benchmarks":  "hello world\n",
		"gobench no sec": "BenchmarkX 1 5 B/op\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := results.Parse([]byte(in))
			if status.CodeOf(err) != status.InvalidArgument {
				t.Errorf("Parse = %v, want InvalidArgument", err)
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	f := file(bench("gemm/f32/64x64x64/tiled", samples(1, 5, 1e-3, 0.01)))
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := results.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.EqualFold(g.Benchmarks[0].Name, "gemm/f32/64x64x64/tiled") || g.Benchmarks[0].Stats.N != 5 {
		t.Errorf("round trip = %+v", g.Benchmarks[0])
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"schema":"vkbench.results/v1","benchmarks":[{"name":"a","stats":{"samples_s":[1e-3,2e-3]}}]}`))
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
