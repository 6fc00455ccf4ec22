package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vkbench/vkbench/store"
)

// An owner keeps its rule of what a write keeps inside Update: here the
// first value written for a key wins, in every process sharing the file.
func ExampleStore_Update() {
	dir, err := os.MkdirTemp("", "store")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Println(err)
		}
	}()
	s, err := store.Open(store.Options{Path: filepath.Join(dir, "cache.db")})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := store.Table{Hardware: "nvidia-2330_h200_575.57.08", Tuner: "builtin"}
	key := []byte("gemm/f32/4096x4096x4096@3f2a9c41")
	for _, answer := range []string{`{"fastest":2}`, `{"fastest":0}`} {
		err := s.Update(context.Background(), t, func(rows store.Rows) error {
			if rows.Get(key) != nil {
				return nil // the first answer stays
			}
			return rows.Put(key, []byte(answer))
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	v, _ := s.Get(context.Background(), t, key)
	tables, _ := s.Tables(context.Background())
	fmt.Println(string(v))
	fmt.Println(tables[0])
	// Output:
	// {"fastest":2}
	// autotune/v1/layout-v1/nvidia-2330_h200_575.57.08/builtin
}
