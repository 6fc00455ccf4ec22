package autotune_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/autotune"
)

// scaleTables is how many hardware tables the large cache spreads its
// entries over.
const scaleTables = 50

func scaleTable(i int) autotune.Table {
	return autotune.Table{Hardware: fmt.Sprintf("nvidia-%04x_gpu-%02d_575.57.08", 0x2300+i, i), Tuner: "builtin"}
}

func scaleKey(i int) autotune.Key {
	ops := [...]string{"copy", "triad", "reduce", "transpose", "gemm"}
	op := ops[i%len(ops)]
	if op == "gemm" || op == "transpose" {
		return autotune.Key{Op: op, DType: "f32", Shape: autotune.ShapeOf(int64(64+i), 4096, 128)}
	}
	return autotune.Key{Op: op, DType: "f32", Shape: autotune.ShapeOf(int64(1024 + i))}
}

// scaleEntry is an entry of the size a real tune stores: four candidates,
// ten samples each.
func scaleEntry(k autotune.Key, hw string, i int) *autotune.Entry {
	e := &autotune.Entry{
		Schema: autotune.SchemaVersion, Key: k.String(), Checksum: "3f2a9c41d07b5e66",
		Fastest: i % 4, Shape: k.Shape.String(), Level: "balanced", Mode: "hot",
		Limits:   autotune.Limits{TargetHalfWidth: 0.01, Budget: 2 * time.Second, MinSamples: 10, MaxSamples: 200, MinSampleTime: time.Millisecond},
		Hardware: hw, Device: "0:NVIDIA H200:9b1c2d3e4f5a60718293a4b5c6d7e8f9", Version: "v0.3.0", Time: time.Unix(1760000000, 0).UTC(),
	}
	for c := 0; c < 4; c++ {
		samples := make([]float64, 10)
		for s := range samples {
			samples[s] = 1e-4 * (1 + float64(c) + float64(s)/97)
		}
		st := autotune.Summarize(samples, 8)
		e.Results = append(e.Results, autotune.Result{Index: c, Name: fmt.Sprintf("cand-%d-wg%d", c, 64<<c), Outcome: autotune.Measured,
			Stats: &st, GBps: 3100.5 + float64(c)})
	}
	e.FastestName = e.Results[e.Fastest].Name
	return e
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
	defer db.Close()
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
				data, err := json.Marshal(scaleEntry(k, tbl.Hardware, i))
				if err != nil {
					return err
				}
				if err := b.Put([]byte(k.String()+"@3f2a9c41d07b5e66"), data); err != nil {
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

func BenchmarkCacheLookupScale(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "c.db")
			buildScaleCache(b, path, n)
			c := newCache(b, path)
			per := (n + scaleTables - 1) / scaleTables
			i := 0
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				j := (i * 7919) % n
				i++
				tbl, k := scaleTable(j/per), scaleKey(j)
				c.Forget(tbl, k, "3f2a9c41d07b5e66")
				if _, ok := c.Lookup(tbl, k, "3f2a9c41d07b5e66"); !ok {
					b.Fatalf("miss %s %s", tbl, k)
				}
			}
			fi, _ := os.Stat(path)
			b.ReportMetric(float64(fi.Size())/float64(n), "file-B/entry")
		})
	}
}
