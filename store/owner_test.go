package store_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// TestForeignBboltFile: a bbolt file of another program (its own tables,
// no vkbench mark) is refused by every read and write, naming the file
// and its tables, and left as it is: not written, not moved aside.
// Before, the first write added vkbench's tables to it.
func TestForeignBboltFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	writeRaw(t, path, []string{"users"}, map[string][]byte{"alice": []byte("1")})
	writeRaw(t, path, []string{"sessions"}, map[string][]byte{"s1": []byte("alice")})
	before := snapshot(t, path, "")
	const says = " is a bbolt file of another program (buckets: sessions, users), not a vkbench tune cache; it is left as it is"
	c := checkNotWritten(t, path, status.FailedPrecondition, path+says)
	for name, err := range map[string]error{"CheckRead": c.CheckRead(t.Context()), "CheckWrite": c.CheckWrite(t.Context()), "Clear": c.Clear(t.Context(), nil)} {
		if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(fmtErr(err), path+says) {
			t.Errorf("%s = %v; want FAILED_PRECONDITION saying %q", name, err, path+says)
		}
	}
	if _, err := c.Tables(t.Context()); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("Tables = %v; want FAILED_PRECONDITION", err)
	}
	if diff := cmp.Diff(before, snapshot(t, path, "")); diff != "" {
		t.Errorf("the file changed (-before +after):\n%s", diff)
	}
}

// fmtErr is err's text, "" for nil.
func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestForeignBboltFileManyTables: the error names the first tables of a
// file with many, and how many more.
func TestForeignBboltFileManyTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	for _, name := range strings.Fields("a b c d e f g h i j") {
		writeRaw(t, path, []string{name}, map[string][]byte{"k": []byte("v")})
	}
	writeRaw(t, path, []string{"with space"}, map[string][]byte{"k": []byte("v")})
	err := fileCache(t, path).CheckRead(t.Context())
	if want := "(buckets: a, b, c, d, e, f, g, h, and 3 more)"; !strings.Contains(fmtErr(err), want) {
		t.Errorf("CheckRead = %v; want it to say %s", err, want)
	}
}

// TestAdoptedFiles: what is a tune cache to adopt: a new path, an empty
// bbolt file, a file of this package's tables written before files were
// marked, and a marked file with a table this version does not know (a
// newer version's). Each is read and written, without a warning, and
// marked by the write.
func TestAdoptedFiles(t *testing.T) {
	for name, prepare := range map[string]func(path string){
		"new-path":    func(string) {},
		"empty-bbolt": func(path string) { emptyBolt(t, path) },
		"unmarked-cache": func(path string) {
			writeRaw(t, path, tablePath("v1", testTable), map[string][]byte{string(keyInFile): value(1)})
			writeRaw(t, path, []string{"pipeline-caches"}, map[string][]byte{"uuid": []byte("data")})
			writeRaw(t, path, []string{"locks"}, nil)
		},
		"marked-with-a-newer-table": func(path string) {
			writeRaw(t, path, []string{"vkbench"}, map[string][]byte{"kind": []byte("vkbench tune cache")})
			writeRaw(t, path, []string{"newer-table"}, map[string][]byte{"k": []byte("v")})
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cache.db")
			prepare(path)
			c := fileCache(t, path)
			if err := c.CheckRead(t.Context()); err != nil {
				t.Errorf("CheckRead = %v", err)
			}
			if err := c.CheckWrite(t.Context()); err != nil {
				t.Errorf("CheckWrite = %v", err)
			}
			if err := put(c, testTable, keyNew, value(0)); err != nil {
				t.Fatal(err)
			}
			if v, err := c.Get(context.Background(), testTable, keyNew); !bytes.Equal(v, value(0)) || err != nil {
				t.Errorf("Get = %q, %v", v, err)
			}
			if tables, err := c.Tables(t.Context()); err != nil || !cmp.Equal(tables, []store.Table{testTable}) {
				t.Errorf("Tables = %v, %v; want %v alone", tables, err, testTable)
			}
			if got := snapshot(t, path, "")["vkbench/kind"]; got != "vkbench tune cache" {
				t.Errorf("the file's mark is %q after a write", got)
			}
			if w := c.Warnings(); len(w) > 0 {
				t.Errorf("warnings: %q", w)
			}
		})
	}
}

// emptyBolt writes a bbolt file with no tables at path.
func emptyBolt(tb testing.TB, path string) {
	tb.Helper()
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	closeOK(tb, db)
}
