package autotune_test

import (
	"bytes"
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
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

var testTable = store.Table{Hardware: "mesa-0000_llvmpipe_llvmpipe_22.3.6", Tuner: "builtin"}

func newCache(tb testing.TB, path string) *store.Store {
	tb.Helper()
	c, err := store.Open(store.Options{Path: path, LockTimeout: 10 * time.Second})
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
	e, err := autotune.ReadEntry(s, t, k, sum)
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
	got, err := autotune.Commit(c, testTable, k, "sum1", want)
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
	e, err := autotune.ReadEntry(c2, testTable, k, "sum1")
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
	got, err = autotune.Commit(c2, testTable, k, "sum1", entry(0, "naive", "tiled"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Fastest != 1 {
		t.Errorf("second commit stored fastest %d, want the first commit's 1", got.Fastest)
	}
	// Committing under a new checksum replaces the stale entry.
	if _, err := autotune.Commit(c2, testTable, k, "sum2", entry(0, "naive", "tiled")); err != nil {
		t.Fatal(err)
	}
	entries, err := autotune.Entries(c2, testTable)
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
	if _, err := autotune.Commit(c, testTable, k, "s", entry(0, "a")); err != nil {
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
	if _, err := autotune.Commit(c2, testTable, k, "s", entry(0, "a")); err != nil {
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
		if _, err := autotune.Commit(src, testTable, key(t, s), "c", entry(i%2, "x", "y")); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := autotune.Export(&buf, src, testTable); err != nil {
		t.Fatal(err)
	}
	dst := newCache(t, filepath.Join(dir, "b.db"))
	if _, _, err := autotune.Import(dst, bytes.NewReader(buf.Bytes()), "nvidia-other", false); err == nil {
		t.Error("import onto other hardware without force succeeded")
	}
	tbl, n, err := autotune.Import(dst, bytes.NewReader(buf.Bytes()), testTable.Hardware, false)
	if err != nil || n != 3 || tbl != testTable {
		t.Fatalf("Import = %v, %d, %v; want %v, 3, nil", tbl, n, err, testTable)
	}
	if i, ok := lookup(dst, testTable, key(t, "copy/u32/2048"), "c"); !ok || i != 1 {
		t.Errorf("imported lookup = %d, %v", i, ok)
	}
	tables, err := dst.Tables()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Table{testTable}, tables); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	if err := dst.Clear(&testTable); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(dst, testTable, key(t, "copy/u32/2048"), "c"); ok {
		t.Error("lookup hit after clear")
	}
	if err := dst.Clear(&testTable); err == nil {
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
	if _, err := autotune.Commit(withOther, other, key(t, "copy/u32/1024"), "c", entry(0, "x")); err != nil {
		t.Fatal(err)
	}
	empty := newCache(t, filepath.Join(dir, "empty.db"))
	if _, err := empty.Tables(); err != nil {
		t.Fatal(err)
	}
	memory, err := store.Open(store.Options{Path: filepath.Join(dir, "memory.db"), Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*store.Store{
		"no file":        newCache(t, filepath.Join(dir, "none.db")),
		"no tables":      empty,
		"another table":  withOther,
		"without a file": memory,
	} {
		if err := c.Clear(&testTable); status.CodeOf(err) != status.NotFound || !strings.Contains(fmt.Sprint(err), testTable.String()) {
			t.Errorf("%s: Clear(missing table) = %v, want NOT_FOUND naming it", name, err)
		}
		if err := c.Clear(nil); err != nil {
			t.Errorf("%s: Clear(nil) = %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); !os.IsNotExist(err) {
		t.Errorf("clearing a cache without a file made one: %v", err)
	}
	// The other table survived the failed clear, not the Clear(nil).
	again := newCache(t, filepath.Join(dir, "other2.db"))
	if _, err := autotune.Commit(again, other, key(t, "copy/u32/1024"), "c", entry(0, "x")); err != nil {
		t.Fatal(err)
	}
	if err := again.Clear(&testTable); status.CodeOf(err) != status.NotFound {
		t.Fatalf("Clear(missing table) = %v", err)
	}
	if tables, err := again.Tables(); err != nil || !cmp.Equal(tables, []store.Table{other}) {
		t.Errorf("after clearing a missing table: Tables = %v, %v; want [%v]", tables, err, other)
	}
}

func TestCacheDisabled(t *testing.T) {
	c, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "x.db"), Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	k := key(t, "copy/u32/8")
	if _, err := autotune.Commit(c, testTable, k, "c", entry(0, "a")); err != nil {
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
	if _, err := autotune.Commit(c, testTable, k, "sum", entry(1, "a", "b")); err != nil {
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
