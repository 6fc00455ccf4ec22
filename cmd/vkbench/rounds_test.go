package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/results"
)

// TestRunCount measures in three independent rounds: the results file
// keeps each round of each benchmark, with its samples, and follows the
// schema; the Go benchmark format has a line a round, for benchstat; a
// tune keeps the rounds in the cache.
func TestRunCount(t *testing.T) {
	needDevice(t)
	r := mustRun(t, 0, args("run", "--cache", "off", "--count", "3", "--format", "json")...)
	validateResults(t, []byte(r.stdout))
	f, err := results.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if f.Rounds != 3 {
		t.Errorf("the file says %d rounds, want 3", f.Rounds)
	}
	checkWinners(t, f)
	if p := f.Probe; p == nil || p.Name != "copy/u32/1048576/vec4-wg256" || len(p.RoundMedians) != 3 {
		t.Errorf("the probe: %+v; want copy/u32/1048576/vec4-wg256 with a median for each of 3 rounds", p)
	}
	for _, b := range f.Benchmarks {
		if b.Stats == nil {
			continue
		}
		n := 0
		for _, rd := range b.Rounds {
			if len(rd.Samples) != rd.N || rd.N == 0 {
				t.Errorf("%s: a round of %d samples keeps %d", b.Name, rd.N, len(rd.Samples))
			}
			n += rd.N
		}
		if len(b.Rounds) != 3 || b.Stats.N != n || b.Stats.Samples != nil {
			t.Errorf("%s: %d rounds of %d samples, pooled %d (keeping %d); want 3 rounds, all pooled, none kept twice", b.Name, len(b.Rounds), n, b.Stats.N, len(b.Stats.Samples))
		}
	}
	r = mustRun(t, 0, args("run", "--cache", "off", "--count", "3", "--format", "gobench")...)
	if n := strings.Count(r.stdout, "Benchmarkcopy/u32/4096/vec4-wg128\t"); n != 3 {
		t.Errorf("%d gobench lines of vec4-wg128, want 3 (one a round):\n%s", n, r.stdout)
	}
	cache := filepath.Join(t.TempDir(), "cache.db")
	mustRun(t, 0, args("tune", "--cache", cache, "--count", "2")...)
	r = mustRun(t, 0, "cache", "show", "copy/u32/4096", "--format", "json", "--cache", cache)
	var e autotune.Entry
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatalf("cache show --format json: %v\n%s", err, r.stdout)
	}
	if e.Bounds.Rounds != 2 || len(e.Results[e.Fastest].Rounds) != 2 {
		t.Errorf("the cache's entry: %d rounds, the winner's %d; want 2, 2", e.Bounds.Rounds, len(e.Results[e.Fastest].Rounds))
	}
	wantUsage(t, `--count 0 is outside \[1, 1000\]`, "run", "copy", "--count", "0", "--cache", "off")
}
