package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/store"
)

// scaleTables is how many hardware tables the large cache spreads its
// entries over.
const scaleTables = 50

func scaleTable(i int) store.Table {
	return store.Table{Hardware: fmt.Sprintf("nvidia-%04x_gpu-%02d_575.57.08", 0x2300+i, i), Tuner: "builtin"}
}

func scaleKey(i int) string {
	ops := [...]string{"copy", "triad", "reduce", "transpose", "gemm"}
	op := ops[i%len(ops)]
	if op == "gemm" || op == "transpose" {
		return fmt.Sprintf("%s/f32/%dx4096x128", op, 64+i)
	}
	return fmt.Sprintf("%s/f32/%d", op, 1024+i)
}

// scaleValue is a value of the size and shape of the answer a real tune
// stores (autotune's Entry): four candidates, ten samples each.
func scaleValue(k, hw string, i int) []byte {
	var results []map[string]any
	for c := 0; c < 4; c++ {
		samples := make([]float64, 10)
		for s := range samples {
			samples[s] = 1e-4 * (1 + float64(c) + float64(s)/97)
		}
		results = append(results, map[string]any{"index": c, "name": fmt.Sprintf("cand-%d-wg%d", c, 64<<c), "outcome": "measured",
			"stats": map[string]any{"n": 10, "batch": 8, "median": samples[5], "lo": samples[2], "hi": samples[8], "min": samples[0],
				"max": samples[9], "mean": samples[5], "spread": 0.031, "samples": samples}, "gb_per_s": 3100.5 + float64(c)})
	}
	data, err := json.Marshal(map[string]any{
		"schema": store.SchemaVersion, "key": k, "checksum": "3f2a9c41d07b5e66", "fastest": i % 4,
		"fastest_name": results[i%4]["name"], "results": results, "shape": k[strings.LastIndex(k, "/")+1:], "level": "balanced", "mode": "hot",
		"limits":   map[string]any{"target_half_width": 0.01, "budget_ns": 2e9, "min_samples": 10, "max_samples": 200, "min_sample_time_ns": 1e6},
		"hardware": hw, "device": "0:NVIDIA H200:9b1c2d3e4f5a60718293a4b5c6d7e8f9", "vkbench_version": "v0.3.0", "time": "2025-10-09T08:53:20Z",
	})
	if err != nil {
		panic(err)
	}
	return data
}

// buildScaleCache writes n entries spread over scaleTables tables straight
// into a bbolt file at path, in the cache's layout, as Commit would have
// stored them, but in one transaction per table so that it is quick.
func buildScaleCache(tb testing.TB, path string, n int) {
	tb.Helper()
	db, err := bolt.Open(path, 0o644, &bolt.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer closeOK(tb, db)
	per := (n + scaleTables - 1) / scaleTables
	for t := 0; t < scaleTables && t*per < n; t++ {
		tbl := scaleTable(t)
		err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("autotune"))
			for _, name := range []string{"v1", "layout-v1", tbl.Hardware, tbl.Tuner} {
				if err != nil {
					return err
				}
				b, err = b.CreateBucketIfNotExists([]byte(name))
			}
			if err != nil {
				return err
			}
			for i := t * per; i < min(n, (t+1)*per); i++ {
				k := scaleKey(i)
				if err := b.Put([]byte(k+"@3f2a9c41d07b5e66"), scaleValue(k, tbl.Hardware, i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.Sync(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkCacheLookupScale is a lookup from the file (a miss in memory)
// in caches of 100 and 100,000 entries. "reopen" touches the file before
// each lookup, as a commit by another process would, so that each lookup
// opens and maps the file again.
func BenchmarkCacheLookupScale(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		f := newScaleFile(b, n)
		for _, reopen := range []bool{false, true} {
			b.Run(fmt.Sprintf("entries=%d/reopen=%v", n, reopen), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				mtime := time.Now()
				b.ReportAllocs()
				for b.Loop() {
					if reopen {
						mtime = mtime.Add(time.Second)
						if err := os.Chtimes(f.path, mtime, mtime); err != nil {
							b.Fatal(err)
						}
					}
					f.lookup(b, r.IntN(n))
				}
				b.ReportMetric(float64(f.size)/float64(n), "file-B/entry")
			})
		}
	}
}

// scaleFile is a cache file with n entries over scaleTables tables, and
// what it costs to look them up.
type scaleFile struct {
	n     int
	path  string
	cache *store.Store
	size  int64
}

func newScaleFile(tb testing.TB, n int) *scaleFile {
	tb.Helper()
	f := &scaleFile{n: n, path: filepath.Join(tb.TempDir(), "cache.db")}
	buildScaleCache(tb, f.path, n)
	fi, err := os.Stat(f.path)
	if err != nil {
		tb.Fatal(err)
	}
	f.size = fi.Size()
	f.cache = newCache(tb, f.path)
	return f
}

// lookup looks entry i up in the file.
func (f *scaleFile) lookup(tb testing.TB, i int) {
	per := (f.n + scaleTables - 1) / scaleTables
	tbl, k := scaleTable(i/per), scaleKey(i)
	if v, _ := f.cache.Get(context.Background(), tbl, []byte(k+"@3f2a9c41d07b5e66")); v == nil {
		tb.Fatalf("%d entries: miss of %s in %s (warnings %q)", f.n, k, tbl, f.cache.Warnings())
	}
}

// timeLookups returns the mean time of m lookups of entries spread over
// the whole file.
func (f *scaleFile) timeLookups(tb testing.TB, m int, r *rand.Rand) time.Duration {
	idx := make([]int, m)
	for j := range idx {
		idx[j] = r.IntN(f.n)
	}
	start := time.Now()
	for _, i := range idx {
		f.lookup(tb, i)
	}
	return time.Since(start) / time.Duration(m)
}

// TestCacheLookupScale compares, side by side, a lookup from the file
// (a miss in memory) in a cache of 100,000 entries over 50 hardware tables
// with one in a cache of 100: the large one may cost at most 2.5 times as
// much, the ratio of the trees' depths. Rounds alternate the two, and the
// fastest round of each is compared, so that load from other processes
// does not decide it.
func TestCacheLookupScale(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: writing a cache of 100,000 entries (415 MB) takes seconds")
	}
	small, large := newScaleFile(t, 100), newScaleFile(t, 100_000)
	// Many short rounds rather than a few long ones: the fastest round of
	// each is one that no burst of the other processes' work fell in, and
	// more rounds give each side more chances of one (with 9 rounds of
	// 400, a loaded 2-core machine's fastest rounds came to a ratio of
	// 1.69, against 1.24 to 1.35 in other runs).
	const rounds, per = 25, 150
	r := rand.New(rand.NewPCG(1, 2))
	// Warm up: the first lookup opens the file.
	small.lookup(t, 0)
	large.lookup(t, 0)
	var ts, tl []time.Duration
	for round := 0; round < rounds; round++ {
		var s, l time.Duration
		if round%2 == 0 {
			s, l = small.timeLookups(t, per, r), large.timeLookups(t, per, r)
		} else {
			l, s = large.timeLookups(t, per, r), small.timeLookups(t, per, r)
		}
		ts, tl = append(ts, s), append(tl, l)
	}
	slices.Sort(ts)
	slices.Sort(tl)
	// The fastest round of each: what the lookups cost when nothing else
	// on the machine (builds, other tests) took the CPU or the page cache
	// from them; a median ratio failed at 2.21 on a loaded 2-core machine.
	// The bound is the B+tree's: a lookup reads one page per level, and
	// log(100,000) / log(100) = 2.5 levels as many (the fastest rounds
	// here: 1.87).
	ratio := float64(tl[0]) / float64(ts[0])
	t.Logf("lookup from the file: %v with %d entries, %v with %d (fastest of %d rounds of %d, ratio %.2f; medians %v and %v)",
		ts[0], small.n, tl[0], large.n, rounds, per, ratio, ts[rounds/2], tl[rounds/2])
	t.Logf("file: %d bytes for %d entries, %.0f bytes an entry (an entry's JSON is %d bytes)",
		large.size, large.n, float64(large.size)/float64(large.n), len(scaleValue(scaleKey(1), scaleTable(0).Hardware, 1)))
	if ratio > 2.5 {
		t.Errorf("a lookup costs %.2f times as much with %d entries as with %d; want at most 2.5 (the depth of the tree)", ratio, large.n, small.n)
	}
}
