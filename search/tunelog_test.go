package search_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// testTable is the table the tests' logs are in.
var testTable = store.Table{Hardware: "mesa-0000_llvmpipe_llvmpipe_22.3.6", Tuner: "builtin"}

func openStore(tb testing.TB, path string) *store.Store {
	tb.Helper()
	s, err := store.Open(store.Options{Path: path, LockTimeout: 10 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func logRecord(name string, ms float64, at int) search.LogRecord {
	return search.LogRecord{ID: "id-" + name, Config: kernels.Config{"A": at},
		Result:         results.Result{Name: name, Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: ms / 1e3, N: 6, Batch: 1}}},
		CompileSeconds: 0.1, MeasureSeconds: 0.2, Time: time.Unix(1760000000+int64(at), 0).UTC()}
}

// TestTuneLogStore writes records and searches to the cache file's tuning
// log and reads them back, lists the logs, exports one as JSON lines that
// read back the same, and clears them with their table.
func TestTuneLogStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	c := openStore(t, path)
	ref := store.LogRef{Table: testTable, Key: "gemm/f32/64x64x64", Mode: "hot"}
	h := search.LogHeader{Table: testTable, Key: ref.Key, Mode: "hot", Points: 2, Time: time.Unix(1760000000, 0).UTC(),
		Space: search.LogSpace{Params: []search.LogParam{{Name: "A", Values: []int{1, 2}}}, Restrictions: []string{"A < 3"}}}
	if err := search.SaveLogHeader(c, ref, h); err != nil {
		t.Fatal(err)
	}
	recs := []search.LogRecord{logRecord("a1", 2, 1), logRecord("a2", 1, 2)}
	for _, r := range recs {
		if err := search.AppendLog(c, ref, r); err != nil {
			t.Fatal(err)
		}
	}
	s := search.LogSearch{Strategy: "random", Seed: 3, Lookahead: 4, Order: []string{"a2", "a1"}, Measured: 2, Best: "a2", Time: h.Time}
	if err := search.AddLogSearch(c, ref, s); err != nil {
		t.Fatal(err)
	}
	// Another process reads it.
	c2 := openStore(t, path)
	refs, err := c2.TuneLogs()
	if err != nil || !cmp.Equal(refs, []store.LogRef{ref}) {
		t.Fatalf("TuneLogs = %v, %v; want [%v]", refs, err, ref)
	}
	l, err := search.ReadLog(c2, ref)
	if err != nil {
		t.Fatal(err)
	}
	h.Format, s.Kind = search.LogFormat, "search"
	for i := range recs {
		recs[i].Kind = "eval"
	}
	want := &search.TuneLog{Header: h, Evals: recs, Searches: []search.LogSearch{s}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("ReadLog (-wrote +read):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := search.WriteTuneLog(&buf, l); err != nil {
		t.Fatal(err)
	}
	back, err := search.ReadTuneLog(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l, back); diff != "" {
		t.Errorf("JSON lines round trip (-written +read):\n%s", diff)
	}
	if err := c2.Clear(&testTable); err != nil {
		t.Fatal(err)
	}
	if _, err := search.ReadLog(c2, ref); status.CodeOf(err) != status.NotFound {
		t.Errorf("after Clear of its table, ReadLog = %v, want NOT_FOUND", err)
	}
}

// TestReadTuneLogErrors: what is not a tuning log is refused, naming the
// line.
func TestReadTuneLogErrors(t *testing.T) {
	header := `{"format":"vkbench.tunelog/v1","key":"k","space":{"params":[{"name":"A","values":[1]}]}}`
	for in, want := range map[string]string{
		"":                                 "empty",
		`{"schema":"vkbench.results/v1"}`:  "line 1: not a tuning log",
		header + "\n{\"kind\":\"eval\"}":   "line 2: an evaluation without a configuration or a name",
		header + "\nnot json":              "line 2:",
		`{"format":"vkbench.tunelog/v1"}`:  "names no params",
		header + "\n{\"kind\":\"future\"}": "",
	} {
		_, err := search.ReadTuneLog(strings.NewReader(in))
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v; a line of an unknown kind is skipped", in, err)
		case want != "" && (status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want INVALID_ARGUMENT saying %q", in, err, want)
		}
	}
}
