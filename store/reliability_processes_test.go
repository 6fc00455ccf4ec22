package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vkbench/vkbench/store"
)

// TestCacheManyProcesses has 8 processes write overlapping keys to one
// file at once, each keeping the value already there (as autotune's first
// answer wins): every key ends up present once, every process reads back
// the single stored value, and the file passes bbolt's check.
func TestCacheManyProcesses(t *testing.T) {
	if os.Getenv("VKBENCH_CACHE_CHILD") != "" {
		cacheChild(t)
		return
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	const procs, keys = 8, 40
	var wg sync.WaitGroup
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCacheManyProcesses$")
			cmd.Env = append(os.Environ(), "VKBENCH_CACHE_CHILD="+strconv.Itoa(p), "VKBENCH_CACHE_PATH="+path, "VKBENCH_CACHE_KEYS="+strconv.Itoa(keys))
			outs[p], errs[p] = cmd.CombinedOutput()
		}(p)
	}
	wg.Wait()
	answers := map[string]string{}
	for p := 0; p < procs; p++ {
		if errs[p] != nil {
			t.Fatalf("process %d: %v\n%s", p, errs[p], outs[p])
		}
		for _, line := range strings.Split(string(outs[p]), "\n") {
			k, v, ok := strings.Cut(strings.TrimPrefix(line, "answer "), "=")
			if !ok || !strings.HasPrefix(line, "answer ") {
				continue
			}
			if prev, seen := answers[k]; seen && prev != v {
				t.Errorf("process %d saw %s=%s, another saw %s", p, k, v, prev)
			}
			answers[k] = v
		}
	}
	if len(answers) != keys {
		t.Errorf("processes reported %d keys, want %d", len(answers), keys)
	}
	c := newCache(t, path)
	seen := map[string]int{}
	err := c.Scan(t.Context(), testTable, func(k, v []byte) error {
		seen[string(k)]++
		if want := answers[string(k)]; want != string(v) {
			t.Errorf("%s stored %s, processes used %s", k, v, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != keys {
		t.Errorf("file holds %d keys, want %d", len(seen), keys)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s stored %d times", k, n)
		}
	}
	checkBolt(t, path)
}

func cacheChild(t *testing.T) {
	p, _ := strconv.Atoi(os.Getenv("VKBENCH_CACHE_CHILD"))
	keys, _ := strconv.Atoi(os.Getenv("VKBENCH_CACHE_KEYS"))
	c := newCache(t, os.Getenv("VKBENCH_CACHE_PATH"))
	// Each process takes the keys in another order, so they overlap.
	for j := 0; j < keys; j++ {
		i := (j*7 + p*5) % keys
		k := fmt.Appendf(nil, "copy/u32/%d@c", 1024*(i+1))
		if v, _ := c.Get(context.Background(), testTable, k); v != nil {
			fmt.Printf("answer %s=%s\n", k, v)
			continue
		}
		var stored []byte
		err := c.Update(context.Background(), testTable, func(rows store.Rows) error {
			if stored = bytes.Clone(rows.Get(k)); stored != nil {
				return nil
			}
			stored = []byte(strconv.Itoa(p % 3))
			return rows.Put(k, stored)
		})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("answer %s=%s\n", k, stored)
	}
}
