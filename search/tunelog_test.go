package search_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/store/storetest"
)

// testTable is the table the tests' logs are in.
var testTable = store.Table{Hardware: "mesa-0000_llvmpipe_llvmpipe_22.3.6", Tuner: "builtin"}

// lockTimeout is the cache file's lock timeout in openStore's stores.
const lockTimeout = 10 * time.Second

func openStore(tb testing.TB, path string) *store.Store {
	tb.Helper()
	s, err := store.Open(store.Options{Path: path, LockTimeout: lockTimeout})
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
		Space: search.LogSpace{Params: []kernels.Param{{Name: "A", Values: []int{1, 2}}}, Restrictions: []string{"A < 3"}}}
	if err := search.SaveLogHeader(context.Background(), c, ref, h); err != nil {
		t.Fatal(err)
	}
	recs := []search.LogRecord{logRecord("a1", 2, 1), logRecord("a2", 1, 2)}
	for _, r := range recs {
		if err := search.AppendLog(context.Background(), c, ref, r); err != nil {
			t.Fatal(err)
		}
	}
	s := search.LogSearch{Strategy: "random", Seed: 3, Lookahead: 4, Order: []string{"a2", "a1"}, Measured: 2, Best: "a2", Time: h.Time}
	if err := search.AddLogSearch(context.Background(), c, ref, s); err != nil {
		t.Fatal(err)
	}
	// Another process reads it.
	c2 := openStore(t, path)
	refs, err := c2.TuneLogs(t.Context())
	if err != nil || !cmp.Equal(refs, []store.LogRef{ref}) {
		t.Fatalf("TuneLogs = %v, %v; want [%v]", refs, err, ref)
	}
	l, err := search.ReadLog(context.Background(), c2, ref)
	if err != nil {
		t.Fatal(err)
	}
	h.Format, s.Kind = search.LogFormat, "search"
	for i := range recs {
		recs[i].Kind = "eval"
	}
	want := &search.TuneLog{Header: h, Evals: recs, Searches: []search.LogSearch{s}}
	evals, err := search.LogEvals(context.Background(), c2, ref)
	if diff := cmp.Diff(map[string]search.LogRecord{recs[0].ID: recs[0], recs[1].ID: recs[1]}, evals); err != nil || diff != "" {
		t.Errorf("LogEvals: %v (-wrote +read):\n%s", err, diff)
	}
	other := ref
	other.Mode = "cold"
	if evals, err := search.LogEvals(context.Background(), c2, other); len(evals) != 0 || err != nil {
		t.Errorf("LogEvals of a log not there = %v, %v; want none and no error", evals, err)
	}
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
	if err := c2.Clear(t.Context(), &testTable); err != nil {
		t.Fatal(err)
	}
	if _, err := search.ReadLog(context.Background(), c2, ref); status.CodeOf(err) != status.NotFound {
		t.Errorf("after Clear of its table, ReadLog = %v, want NOT_FOUND", err)
	}
}

// TestTuneLogSearchesInOrder: a log's searches come back in the order
// they were added, each kept, each added by a store of its own on the
// file.
func TestTuneLogSearchesInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	ref := store.LogRef{Table: testTable, Key: "gemm/f32/64x64x64", Mode: "hot"}
	var want []uint64
	for seed := range uint64(12) {
		if err := search.AddLogSearch(context.Background(), openStore(t, path), ref, search.LogSearch{Strategy: "random", Seed: 11 - seed}); err != nil {
			t.Fatal(err)
		}
		want = append(want, 11-seed)
	}
	l, err := search.ReadLog(context.Background(), openStore(t, path), ref)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, s := range l.Searches {
		got = append(got, s.Seed)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("searches' seeds (-added +read):\n%s", diff)
	}
}

// TestTuneLogContext: with another process holding the cache file's
// lock, every read and write of a tuning log ends when its context does,
// with the context's error, where each waited for the store's lock
// timeout (10 s here) and then failed as a locked file. Each returns
// within a quarter of the lock timeout of its context's end, as the test
// saw it: a fixed 2 s from the call's start left a busy machine 1.7 s.
func TestTuneLogContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	c := openStore(t, path)
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	ref := store.LogRef{Table: testTable, Key: "gemm/f32/64x64x64", Mode: "hot"}
	storetest.HoldLock(t, path)
	within := testenv.ContextEnd{Within: lockTimeout / 4}
	for name, call := range map[string]func(context.Context) error{
		"LogEvals":  func(ctx context.Context) error { _, err := search.LogEvals(ctx, c, ref); return err },
		"ReadLog":   func(ctx context.Context) error { _, err := search.ReadLog(ctx, c, ref); return err },
		"AppendLog": func(ctx context.Context) error { return search.AppendLog(ctx, c, ref, logRecord("a", 1, 1)) },
		"SaveLogHeader": func(ctx context.Context) error {
			return search.SaveLogHeader(ctx, c, ref, search.LogHeader{Key: ref.Key})
		},
		"AddLogSearch": func(ctx context.Context) error {
			return search.AddLogSearch(ctx, c, ref, search.LogSearch{Strategy: "random"})
		},
	} {
		within.Check(t, name+" with the file locked", call)
	}
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("a context that ended warned: %q", w)
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
		header[:len(header)-20]:            "line 1: a tuning log's header, cut short or damaged: unexpected end of JSON input",
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

// TestRecordedLogHeaders reads every log recorded under testdata/search
// and writes it again: its header (the space's params, restrictions and
// the rest) comes out byte for byte as recorded, so logs written before
// the space's params were kernels.Param still read and export the same.
func TestRecordedLogHeaders(t *testing.T) {
	paths, err := filepath.Glob("testdata/search/*.jsonl")
	if err != nil || len(paths) < 2 {
		t.Fatalf("recorded logs: %v, %v; want at least the H200's and the model's", paths, err)
	}
	for _, path := range paths {
		recorded, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := search.ReadTuneLog(bytes.NewReader(recorded))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(l.Header.Space.Params) == 0 || len(l.Header.Space.Params[0].Values) == 0 {
			t.Errorf("%s: the header's params read as %+v", path, l.Header.Space.Params)
		}
		var buf bytes.Buffer
		if err := search.WriteTuneLog(&buf, l); err != nil {
			t.Fatal(err)
		}
		have, _, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
		want, _, _ := bytes.Cut(recorded, []byte("\n"))
		if diff := cmp.Diff(string(want), string(have)); diff != "" {
			t.Errorf("%s: the header written again differs (-recorded +written):\n%s", path, diff)
		}
	}
}

// TestLogSearchBest: a search's record names the lowest verified median
// it evaluated, the earliest among equals; a faster point that computed
// wrong, or failed, is never its best.
func TestLogSearchBest(t *testing.T) {
	wrong := logRecord("wrong", 0.5, 1)
	wrong.Outcome = results.Wrong
	failed := logRecord("failed", 0.1, 2)
	failed.Outcome, failed.Stats = results.Failed, nil
	var evals []search.Evaluation
	for _, r := range []search.LogRecord{logRecord("slow", 3, 3), wrong, logRecord("first", 1, 4), failed, logRecord("second", 1, 5)} {
		evals = append(evals, search.Evaluation{Record: r, Measured: true})
	}
	s := search.LogSearchOf(search.Options{Strategy: search.Random}, evals)
	if s.Best != "first" || len(s.Order) != 5 || math.Abs(s.MeasureSeconds-1.0) > 1e-9 {
		t.Errorf("LogSearchOf: best %q of %v, measured %gs; want first of 5, 1s", s.Best, s.Order, s.MeasureSeconds)
	}
	if s := search.LogSearchOf(search.Options{}, evals[1:2]); s.Best != "" {
		t.Errorf("LogSearchOf of a wrong point alone: best %q, want none", s.Best)
	}
}
