package autotune

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/store"
)

// TestForcedAnswerDropsStale: a forced answer (a re-tune, a search's)
// drops the key's answers for other candidates, as Commit does, instead
// of leaving them in the file for ever.
func TestForcedAnswerDropsStale(t *testing.T) {
	s, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "cache.db"), LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tb := store.Table{Hardware: "hw", Tuner: "builtin"}
	k := Key{Op: "op", DType: "f32", Size: kernels.SizeOf(64)}
	if _, err := Commit(context.Background(), s, tb, k, "old-candidates", &Entry{Fastest: 0, Results: []results.Result{{Name: "a"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := commit(context.Background(), s, tb, k, "new-candidates", &Entry{Fastest: 0, Results: []results.Result{{Name: "a"}}}, true); err != nil {
		t.Fatal(err)
	}
	entries, err := Entries(t.Context(), s, tb)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Checksum != "new-candidates" {
		var sums []string
		for _, e := range entries {
			sums = append(sums, e.Checksum)
		}
		t.Errorf("entries under checksums %v; want only the forced answer's", sums)
	}
}
