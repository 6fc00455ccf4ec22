package autotune_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// The file-level reliability tests (damaged files, locks, crashes) are
// the store's; what is autotune's is what an entry that does not decode
// does. Its sample, testdata/cache/bad-values.db, is written by
// badValueFile; -update-cache-samples rewrites it.
var updateSamples = flag.Bool("update-cache-samples", false, "rewrite testdata/cache/bad-values.db from badValueFile")

const samplesDir = "../testdata/cache"

// keyInFile is the key the file holds a good answer for; keyNew the one
// with bad values.
var (
	keyInFile = autotune.Key{Op: "copy", DType: "u32", Size: kernels.SizeOf(1 << 20)}
	keyNew    = autotune.Key{Op: "gemm", DType: "f32", Size: kernels.SizeOf(256, 256, 256)}
)

// TestCacheBadValues gives the tuner's table values that do not decode:
// each is a miss with a warning naming the file and the entry, Entries
// skips them, a commit replaces them, and the file is not moved aside.
func TestCacheBadValues(t *testing.T) {
	for _, src := range []string{"generated", "testdata"} {
		t.Run(src, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cache.db")
			if src == "generated" {
				badValueFile(t, path)
				if *updateSamples {
					copyFile(t, path, filepath.Join(samplesDir, "bad-values.db"))
				}
			} else {
				copyFile(t, filepath.Join(samplesDir, "bad-values.db"), path)
			}
			checkBadValues(t, path)
		})
	}
}

// badValueFile has, in this version's table, the good keyInFile entry and
// three that do not decode.
func badValueFile(tb testing.TB, path string) {
	tb.Helper()
	s := newCache(tb, path)
	if _, err := autotune.Commit(context.Background(), s, testTable, keyInFile, "c", entry(1, "a", "b")); err != nil {
		tb.Fatal(err)
	}
	future := entry(0, "a")
	future.Schema, future.Key, future.Checksum = 2, keyNew.String(), "old"
	writeRaw(tb, s, testTable, map[string][]byte{
		keyNew.String() + "@c":        []byte(`{"schema":1,"fastest":`),
		keyNew.String() + "@old":      mustJSON(tb, future),
		"copy/u32/8@c":                []byte(`{"schema":1,"key":"copy/u32/8","fastest":3,"results":[]}`),
		"not a key@c":                 []byte("\x00\xff binary"),
		keyInFile.String() + "@empty": {},
	})
}

func checkBadValues(t *testing.T, path string) {
	c := newCache(t, path)
	if i, ok := lookup(c, testTable, keyInFile, "c"); !ok || i != 1 {
		t.Errorf("Lookup of the good entry = %d, %v; want 1, true", i, ok)
	}
	for _, sum := range []string{"c", "old"} {
		if _, ok := lookup(c, testTable, keyNew, sum); ok {
			t.Errorf("Lookup of the bad entry under %s hit", sum)
		}
		if _, err := autotune.ReadEntry(context.Background(), c, testTable, keyNew, sum); status.CodeOf(err) != status.DataLoss {
			t.Errorf("ReadEntry of the bad entry under %s = %v, want code DataLoss", sum, err)
		}
	}
	wantWarning(t, c, path, keyNew.String()+"@c", "unreadable")
	entries, err := autotune.Entries(t.Context(), c, testTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Key != keyInFile.String() {
		t.Errorf("Entries = %v, want only %s", entries, keyInFile)
	}
	wantWarning(t, c, path, "skipping unreadable entry", "copy/u32/8@c")
	if _, err := autotune.Commit(context.Background(), c, testTable, keyNew, "c", entry(0, "a", "b")); err != nil {
		t.Fatal(err)
	}
	wantWarning(t, c, path, "replacing unreadable entry")
	if i, ok := lookup(newCache(t, path), testTable, keyNew, "c"); !ok || i != 0 {
		t.Errorf("Lookup of the replaced entry = %d, %v; want 0, true", i, ok)
	}
	if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) > 0 {
		t.Errorf("a file with bad values was moved aside: %v", aside)
	}
	checkBolt(t, path)
}

// writeRaw writes values into table t of s as they are: the test's way
// of writing what Commit would not.
func writeRaw(tb testing.TB, s *store.Store, t store.Table, values map[string][]byte) {
	tb.Helper()
	err := s.Update(context.Background(), t, func(rows store.Rows) error {
		for k, v := range values {
			if err := rows.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// wantWarning fails unless one warning contains every one of parts.
func wantWarning(t *testing.T, s *store.Store, parts ...string) {
	t.Helper()
	for _, w := range s.Warnings() {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return
		}
	}
	t.Errorf("no warning contains %q: %q", parts, s.Warnings())
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func mustJSON(tb testing.TB, e *autotune.Entry) []byte {
	tb.Helper()
	data, err := json.Marshal(e)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
