package autotune_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/store/storetest"
)

// lockTimeout is newCache's: far beyond what a busy machine adds to a
// context's end.
const lockTimeout = 10 * time.Second

var testTable = store.Table{Hardware: "mesa-0000_llvmpipe_llvmpipe_22.3.6", Tuner: "builtin"}

func newCache(tb testing.TB, path string) *store.Store {
	tb.Helper()
	c, err := store.Open(store.Options{Path: path, LockTimeout: lockTimeout})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func entry(fastest int, names ...string) *autotune.Entry {
	e := &autotune.Entry{Fastest: fastest, FastestName: names[fastest], Mode: "hot", Time: time.Unix(1700000000, 0).UTC()}
	for i, n := range names {
		e.Results = append(e.Results, results.Result{
			Index:       i,
			Name:        n,
			Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: float64(i+1) * 1e-3, N: 10, Batch: 1}},
		})
	}
	return e
}

// lookup reads key's answer from the store, as a tuner's first question
// about it does.
func lookup(s *store.Store, t store.Table, k autotune.Key, sum string) (int, bool) {
	e, err := autotune.ReadEntry(context.Background(), s, t, k, sum)
	if err != nil || e == nil {
		return 0, false
	}
	return e.Fastest, true
}

func key(tb testing.TB, s string) autotune.Key {
	tb.Helper()
	k, err := autotune.ParseKey(s)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func TestCacheCommitLookup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	c := newCache(t, path)
	k := key(t, "gemm/f32/64x64x64")
	if _, ok := lookup(c, testTable, k, "sum1"); ok {
		t.Fatal("lookup in an empty cache hit")
	}
	want := entry(1, "naive", "tiled")
	got, err := autotune.Commit(context.Background(), c, testTable, k, "sum1", want)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("first commit returned another entry")
	}
	// A second store on the same file reads the answer from the file.
	c2 := newCache(t, path)
	if i, ok := lookup(c2, testTable, k, "sum1"); !ok || i != 1 {
		t.Fatalf("Lookup from file = %d, %v; want 1, true", i, ok)
	}
	e, err := autotune.ReadEntry(context.Background(), c2, testTable, k, "sum1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, e, cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("stored entry differs (-committed +read):\n%s", diff)
	}
	// Another checksum is another question: a miss.
	if _, ok := lookup(c2, testTable, k, "sum2"); ok {
		t.Error("lookup under another checksum hit")
	}
	// The first commit wins: a second answer to the same question is
	// replaced by the stored one.
	got, err = autotune.Commit(context.Background(), c2, testTable, k, "sum1", entry(0, "naive", "tiled"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Fastest != 1 {
		t.Errorf("second commit stored fastest %d, want the first commit's 1", got.Fastest)
	}
	// Committing under a new checksum replaces the stale entry.
	if _, err := autotune.Commit(context.Background(), c2, testTable, k, "sum2", entry(0, "naive", "tiled")); err != nil {
		t.Fatal(err)
	}
	entries, err := autotune.Entries(t.Context(), c2, testTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Checksum != "sum2" {
		t.Errorf("after re-tune the table holds %d entries (%v), want only the sum2 one", len(entries), entries)
	}
}

func TestCacheCorruptValueIsMiss(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	c := newCache(t, path)
	k := key(t, "copy/u32/1048576")
	if _, err := autotune.Commit(context.Background(), c, testTable, k, "s", entry(0, "a")); err != nil {
		t.Fatal(err)
	}
	writeRaw(t, c, testTable, map[string][]byte{k.String() + "@s": []byte(`{"schema":1,"fastest":`)})
	c2 := newCache(t, path)
	if _, ok := lookup(c2, testTable, k, "s"); ok {
		t.Fatal("a value that does not decode was a hit")
	}
	if w := c2.Warnings(); len(w) == 0 || !strings.Contains(w[0], "unreadable") {
		t.Errorf("warnings = %q, want one about the unreadable entry", w)
	}
	// Committing again replaces the damaged value.
	if _, err := autotune.Commit(context.Background(), c2, testTable, k, "s", entry(0, "a")); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(newCache(t, path), testTable, k, "s"); !ok {
		t.Error("re-tuned entry not found")
	}
}

func TestCacheExportImportClear(t *testing.T) {
	dir := t.TempDir()
	src := newCache(t, filepath.Join(dir, "a.db"))
	for i, s := range []string{"copy/u32/1024", "copy/u32/2048", "gemm/f32/64x64x64"} {
		if _, err := autotune.Commit(context.Background(), src, testTable, key(t, s), "c", entry(i%2, "x", "y")); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := autotune.Export(t.Context(), &buf, src, testTable); err != nil {
		t.Fatal(err)
	}
	dst := newCache(t, filepath.Join(dir, "b.db"))
	if _, _, err := autotune.Import(context.Background(), dst, bytes.NewReader(buf.Bytes()), "nvidia-other", false); err == nil {
		t.Error("import onto other hardware without force succeeded")
	}
	tbl, n, err := autotune.Import(context.Background(), dst, bytes.NewReader(buf.Bytes()), testTable.Hardware, false)
	if err != nil || n != 3 || tbl != testTable {
		t.Fatalf("Import = %v, %d, %v; want %v, 3, nil", tbl, n, err, testTable)
	}
	if i, ok := lookup(dst, testTable, key(t, "copy/u32/2048"), "c"); !ok || i != 1 {
		t.Errorf("imported lookup = %d, %v", i, ok)
	}
	tables, err := dst.Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Table{testTable}, tables); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	if err := dst.Clear(t.Context(), &testTable); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(dst, testTable, key(t, "copy/u32/2048"), "c"); ok {
		t.Error("lookup hit after clear")
	}
	if err := dst.Clear(t.Context(), &testTable); err == nil {
		t.Error("clearing a missing table succeeded")
	}
}

// TestClearMissingTable: clearing a table that is not there is NOT_FOUND
// however it is missing (no file, a file without tables, a file with
// other tables, a cache without a file), and leaves the other tables;
// clearing everything where there is nothing is no error.
func TestClearMissingTable(t *testing.T) {
	other := store.Table{Hardware: "nvidia-other", Tuner: "builtin"}
	dir := t.TempDir()
	withOther := newCache(t, filepath.Join(dir, "other.db"))
	if _, err := autotune.Commit(context.Background(), withOther, other, key(t, "copy/u32/1024"), "c", entry(0, "x")); err != nil {
		t.Fatal(err)
	}
	empty := newCache(t, filepath.Join(dir, "empty.db"))
	if _, err := empty.Tables(t.Context()); err != nil {
		t.Fatal(err)
	}
	memory, err := store.Open(store.Options{Path: "off"})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*store.Store{
		"no file":        newCache(t, filepath.Join(dir, "none.db")),
		"no tables":      empty,
		"another table":  withOther,
		"without a file": memory,
	} {
		if err := c.Clear(t.Context(), &testTable); status.CodeOf(err) != status.NotFound || !strings.Contains(fmt.Sprint(err), testTable.String()) {
			t.Errorf("%s: Clear(missing table) = %v, want NOT_FOUND naming it", name, err)
		}
		if err := c.Clear(t.Context(), nil); err != nil {
			t.Errorf("%s: Clear(nil) = %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); !os.IsNotExist(err) {
		t.Errorf("clearing a cache without a file made one: %v", err)
	}
	// The other table survived the failed clear, not the Clear(nil).
	again := newCache(t, filepath.Join(dir, "other2.db"))
	if _, err := autotune.Commit(context.Background(), again, other, key(t, "copy/u32/1024"), "c", entry(0, "x")); err != nil {
		t.Fatal(err)
	}
	if err := again.Clear(t.Context(), &testTable); status.CodeOf(err) != status.NotFound {
		t.Fatalf("Clear(missing table) = %v", err)
	}
	if tables, err := again.Tables(t.Context()); err != nil || !cmp.Equal(tables, []store.Table{other}) {
		t.Errorf("after clearing a missing table: Tables = %v, %v; want [%v]", tables, err, other)
	}
}

func TestCacheDisabled(t *testing.T) {
	c, err := store.Open(store.Options{Path: "off"})
	if err != nil {
		t.Fatal(err)
	}
	k := key(t, "copy/u32/8")
	if _, err := autotune.Commit(context.Background(), c, testTable, k, "c", entry(0, "a")); err != nil {
		t.Fatal(err)
	}
	// A store without a file keeps nothing: answers stay with the tuner
	// that found them.
	if i, ok := lookup(c, testTable, k, "c"); ok {
		t.Errorf("a disabled store answered %d", i)
	}
	if c.Path() != "" {
		t.Errorf("disabled cache has path %q", c.Path())
	}
}

func checkBolt(tb testing.TB, path string) {
	tb.Helper()
	db, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	defer func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	}()
	err = db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			tb.Errorf("bbolt check: %v", err)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkCacheFirstLookupFromFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "c.db")
	c := newCache(b, path)
	k := key(b, "gemm/f32/4096x4096x4096")
	if _, err := autotune.Commit(context.Background(), c, testTable, k, "sum", entry(1, "a", "b")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, ok := lookup(c, testTable, k, "sum"); !ok {
			b.Fatal("miss")
		}
	}
}

// timed is a verified result of median m and 95% interval [lo, hi].
func timed(i int, name string, lo, m, hi float64) results.Result {
	return results.Result{Index: i, Name: name, Measurement: results.Measurement{Outcome: results.Measured,
		Stats: &stats.Stats{Median: m, Lo: lo, Hi: hi, Min: lo, Max: hi, N: 20, Batch: 1}}}
}

// unevaluated is a configuration a search did not evaluate.
func unevaluated(i int, name string) results.Result {
	return results.Result{Index: i, Name: name, Measurement: results.Measurement{Outcome: results.Unevaluated}}
}

// TestCommitReplacesOnlyClearlyBetter: a stored answer (a at 1 ms) is
// replaced by a new one (b) only where the new one measured a too and
// found b faster beyond both intervals, b's interval also wholly below
// the stored one of a, and the stored answer did not find b clearly
// slower. Slower (a slower machine's b), tied, not measured beside a,
// and contradicted answers keep a; the clearly faster one replaces it,
// and the old answer committed again does not come back.
func TestCommitReplacesOnlyClearlyBetter(t *testing.T) {
	k := key(t, "gemm.space/f32/64x64x64")
	answer := func(fastest int, a, b results.Result) *autotune.Entry {
		e := &autotune.Entry{Fastest: fastest, Results: []results.Result{a, b}, Mode: "hot", Time: time.Unix(1700000000, 0).UTC()}
		e.FastestName = e.Results[fastest].Name
		return e
	}
	first := answer(0, timed(0, "a", 0.98e-3, 1e-3, 1.02e-3), unevaluated(1, "b"))
	for _, c := range []struct {
		name   string
		stored *autotune.Entry
		b, a   results.Result // the new answer's
		want   string
	}{
		{"slower", first, timed(1, "b", 1.08e-3, 1.10e-3, 1.12e-3), timed(0, "a", 1.18e-3, 1.20e-3, 1.22e-3), "a"},
		{"tied-with-stored", first, timed(1, "b", 0.97e-3, 0.98e-3, 0.99e-3), timed(0, "a", 1.03e-3, 1.05e-3, 1.07e-3), "a"},
		{"tied-side-by-side", first, timed(1, "b", 0.90e-3, 0.92e-3, 0.94e-3), timed(0, "a", 0.93e-3, 0.95e-3, 0.97e-3), "a"},
		{"a-not-measured", first, timed(1, "b", 0.90e-3, 0.91e-3, 0.92e-3), unevaluated(0, "a"), "a"},
		{"contradicted", answer(0, timed(0, "a", 0.98e-3, 1e-3, 1.02e-3), timed(1, "b", 1.10e-3, 1.12e-3, 1.14e-3)),
			timed(1, "b", 0.90e-3, 0.91e-3, 0.92e-3), timed(0, "a", 0.99e-3, 1e-3, 1.01e-3), "a"},
		{"clearly-faster", first, timed(1, "b", 0.90e-3, 0.91e-3, 0.92e-3), timed(0, "a", 0.99e-3, 1e-3, 1.01e-3), "b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newCache(t, filepath.Join(t.TempDir(), "c.db"))
			if _, err := autotune.Commit(context.Background(), s, testTable, k, "sum", c.stored); err != nil {
				t.Fatal(err)
			}
			got, err := autotune.Commit(context.Background(), s, testTable, k, "sum", answer(1, c.a, c.b))
			if err != nil || got.FastestName != c.want {
				t.Fatalf("Commit kept %s (%v); want %s", got.FastestName, err, c.want)
			}
			if e, _ := autotune.ReadEntry(context.Background(), s, testTable, k, "sum"); e == nil || e.FastestName != c.want {
				t.Errorf("the store holds %v; want %s", e, c.want)
			}
			if got, _ := autotune.Commit(context.Background(), s, testTable, k, "sum", first); got.FastestName != c.want {
				t.Errorf("the first answer committed again: %s stored; want %s", got.FastestName, c.want)
			}
		})
	}
}

// joules is r with energy per run j and its 95% interval [lo, hi].
func joules(r results.Result, lo, j, hi float64) results.Result {
	r.EnergyLoJ, r.EnergyJ, r.EnergyHiJ = lo, j, hi
	return r
}

// TestCommitReplacesByEnergy: for answers of the energy objective, the
// rule of TestCommitReplacesOnlyClearlyBetter is judged by energy per run
// and its intervals, not by time: an answer whose winner used clearly
// less energy than the stored winner, side by side and against the
// stored interval, replaces it even though it is slower; one whose
// energy interval overlaps, or which is faster but not more frugal,
// keeps it; and an answer picked by another objective than the stored
// one's never replaces it.
func TestCommitReplacesByEnergy(t *testing.T) {
	k := key(t, "copy/u32/1048576")
	answer := func(o autotune.Objective, fastest int, a, b results.Result) *autotune.Entry {
		e := &autotune.Entry{Fastest: fastest, Results: []results.Result{a, b}, Mode: "hot", Objective: o, Time: time.Unix(1700000000, 0).UTC()}
		e.FastestName = e.Results[fastest].Name
		return e
	}
	// The stored answer: a, 1 ms and 1 J per run.
	a := joules(timed(0, "a", 0.98e-3, 1e-3, 1.02e-3), 0.95, 1, 1.05)
	first := answer(autotune.ObjectiveEnergy, 0, a, unevaluated(1, "b"))
	for _, c := range []struct {
		name   string
		stored *autotune.Entry
		o      autotune.Objective // the new answer's
		b, a   results.Result
		want   string
	}{
		{"clearly-less-energy-though-slower", first, autotune.ObjectiveEnergy,
			joules(timed(1, "b", 1.18e-3, 1.2e-3, 1.22e-3), 0.80, 0.85, 0.90), a, "b"},
		{"energy-overlapping", first, autotune.ObjectiveEnergy,
			joules(timed(1, "b", 0.90e-3, 0.91e-3, 0.92e-3), 0.90, 0.94, 0.98), a, "a"},
		{"faster-not-less-energy", first, autotune.ObjectiveEnergy,
			joules(timed(1, "b", 0.80e-3, 0.81e-3, 0.82e-3), 1.10, 1.15, 1.20), a, "a"},
		{"energy-without-interval", first, autotune.ObjectiveEnergy,
			joules(timed(1, "b", 0.90e-3, 0.91e-3, 0.92e-3), 0, 0.5, 0), a, "a"},
		{"stored-by-time", answer(autotune.ObjectiveTime, 0, a, unevaluated(1, "b")), autotune.ObjectiveEnergy,
			joules(timed(1, "b", 0.90e-3, 0.91e-3, 0.92e-3), 0.80, 0.85, 0.90), a, "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newCache(t, filepath.Join(t.TempDir(), "c.db"))
			if _, err := autotune.Commit(context.Background(), s, testTable, k, "sum", c.stored); err != nil {
				t.Fatal(err)
			}
			got, err := autotune.Commit(context.Background(), s, testTable, k, "sum", answer(c.o, 1, c.a, c.b))
			if err != nil || got.FastestName != c.want {
				t.Fatalf("Commit kept %s (%v); want %s", got.FastestName, err, c.want)
			}
			if e, _ := autotune.ReadEntry(context.Background(), s, testTable, k, "sum"); e == nil || e.FastestName != c.want {
				t.Errorf("the store holds %v; want %s", e, c.want)
			}
		})
	}
}

// TestImportRefusesUnusableEntries: an export whose entry no lookup could
// use (null, its fastest index outside its results, no results, a
// fastest_name that is not its fastest result's) is refused, naming the
// entry, and imports nothing, not even the good entries before it; a
// null entry panicked, the others were "imported" and then skipped by
// every lookup, and a fastest_name of no result was imported and named
// as the answer though nothing of that name ran.
func TestImportRefusesUnusableEntries(t *testing.T) {
	good := entry(1, "x", "y")
	good.Schema, good.Key, good.Checksum = store.SchemaVersion, "copy/u32/1024", "c"
	goodJSON, err := json.Marshal(good)
	if err != nil {
		t.Fatal(err)
	}
	none := *good
	none.Fastest, none.Results = 0, nil
	noneJSON, err := json.Marshal(&none)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, bad, want string }{
		{"null", `null`, `import file's entry 2 is null`},
		{"fastest", strings.Replace(string(goodJSON), `"fastest":1`, `"fastest":999`, 1), `import file's entry 2 (copy/u32/1024)'s fastest index 999 is outside its 2 results`},
		{"no results", string(noneJSON), `fastest index 0 is outside its 0 results`},
		{"fastest_name of none", strings.Replace(string(goodJSON), `"fastest_name":"y"`, `"fastest_name":"bogus"`, 1),
			`import file's entry 2 (copy/u32/1024) names its fastest "bogus", which is none of its 2 results (x, y)`},
		{"fastest_name empty", strings.Replace(string(goodJSON), `"fastest_name":"y"`, `"fastest_name":""`, 1), `names its fastest "", which is none of its 2 results`},
		{"fastest_name of another", strings.Replace(string(goodJSON), `"fastest_name":"y"`, `"fastest_name":"x"`, 1),
			`import file's entry 2 (copy/u32/1024) names its fastest "x", but its fastest index 1 is "y"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := fmt.Sprintf(`{"schema": %d, "table": {"hardware": %q, "tuner": %q}, "entries": [%s, %s]}`,
				store.SchemaVersion, testTable.Hardware, testTable.Tuner, goodJSON, tc.bad)
			dst := newCache(t, filepath.Join(t.TempDir(), "b.db"))
			_, n, err := autotune.Import(context.Background(), dst, strings.NewReader(file), "", false)
			if err == nil || !strings.Contains(err.Error(), tc.want) || status.CodeOf(err) != status.InvalidArgument || n != 0 {
				t.Errorf("Import = %d, %v; want 0 and INVALID_ARGUMENT %q", n, err, tc.want)
			}
			if _, ok := lookup(dst, testTable, key(t, "copy/u32/1024"), "c"); ok {
				t.Error("the good entry before the bad one was imported")
			}
		})
	}
}

// TestCacheContextLocked: ReadEntry and Commit end when their context
// does while another handle holds the file's lock, with the context's
// error, where they waited for the lock timeout (10 s here) before: with
// the file open from an earlier read, or not, and while another read of
// the same store waits for the lock without a deadline. The commit that
// gave up wrote nothing, and one after the lock is let go lands.
func TestCacheContextLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	c := newCache(t, path)
	k := key(t, "gemm/f32/64x64x64")
	// The file, and c's read handle on it.
	if _, err := autotune.Commit(context.Background(), c, testTable, key(t, "copy/u32/1024"), "sum", entry(0, "a")); err != nil {
		t.Fatal(err)
	}
	read := func(ctx context.Context) error { _, err := autotune.ReadEntry(ctx, c, testTable, k, "sum"); return err }
	if err := read(context.Background()); err != nil {
		t.Fatal(err)
	}
	release := storetest.HoldLock(t, path)
	ask := testenv.ContextEnd{Within: lockTimeout / 4}.Check
	ask(t, "ReadEntry, the file open", read)
	ask(t, "Commit", func(ctx context.Context) error {
		_, err := autotune.Commit(ctx, c, testTable, k, "sum", entry(0, "a"))
		return err
	})
	ask(t, "ReadEntry", read)
	waiting := make(chan error, 1)
	go func() { waiting <- read(context.Background()) }()
	time.Sleep(50 * time.Millisecond) // most likely waiting by now; the call below is bounded either way
	ask(t, "ReadEntry beside a read that waits", read)
	release()
	if err := <-waiting; err != nil {
		t.Fatal(err)
	}
	if e, err := autotune.ReadEntry(context.Background(), c, testTable, k, "sum"); e != nil || err != nil {
		t.Errorf("ReadEntry after the commit that gave up: %v, %v; want nothing", e, err)
	}
	if _, err := autotune.Commit(context.Background(), c, testTable, k, "sum", entry(0, "a")); err != nil {
		t.Fatal(err)
	}
	if e, err := autotune.ReadEntry(context.Background(), c, testTable, k, "sum"); e == nil || err != nil {
		t.Errorf("ReadEntry: %v, %v; want the entry committed", e, err)
	}
}
