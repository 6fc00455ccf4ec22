package store_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/store"
)

// crashTables are the tables the crash test's child commits to, so that
// kills also land in the creation of buckets.
var crashTables = []store.Table{
	{Hardware: "crash-hw-a", Tuner: "builtin"},
	{Hardware: "crash-hw-b", Tuner: "builtin"},
	{Hardware: "crash-hw-b", Tuner: "manifest"},
}

// crashCommit is one commit of the crash test's child: value n of table
// n%3, under key copy/u32/<n+1>@sum, as autotune keys its answers. Every
// fifth n is committed twice, first under "old" then under "new", the
// second replacing the first (a delete and a put in one Update), so that
// kills also land in such a commit.
type crashCommit struct {
	n   int
	sum string
}

func (cc crashCommit) table() store.Table { return crashTables[cc.n%len(crashTables)] }
func (cc crashCommit) prefix() string     { return fmt.Sprintf("copy/u32/%d@", cc.n+1) }
func (cc crashCommit) key() []byte        { return []byte(cc.prefix() + cc.sum) }

// want is the value as the file must hold it: every part is derived from
// n and sum, so a torn or mixed-up value shows. It is about the size of an
// answer of three candidates.
func (cc crashCommit) want() []byte {
	return fmt.Appendf(nil, `{"schema":1,"key":"copy/u32/%d","checksum":%q,"fastest":%d,"hardware":%q,"device":"crash-%d","results":%q}`,
		cc.n+1, cc.sum, cc.n%3, cc.table().Hardware, cc.n, strings.Repeat("naive tiled vec4 ", 12))
}

// commit writes cc as autotune commits an answer: in one Update, the
// key's values under other checksums go and cc's is put.
func (cc crashCommit) commit(s *store.Store) error {
	return s.Update(context.Background(), cc.table(), func(rows store.Rows) error {
		var stale [][]byte
		if err := rows.Scan([]byte(cc.prefix()), func(k, _ []byte) error {
			if !bytes.Equal(k, cc.key()) {
				stale = append(stale, bytes.Clone(k))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range stale {
			if err := rows.Delete(k); err != nil {
				return err
			}
		}
		return rows.Put(cc.key(), cc.want())
	})
}

// TestCacheSurvivesSIGKILL kills a process that commits to the cache in a
// loop, at a random moment, 50 times (10 with -short), on one file. After
// each kill the file passes bbolt's consistency check, and holds every
// value the child said it had committed, complete; of the commit in
// flight, all or nothing; nothing was moved aside. VKBENCH_CRASH_SEED
// replays a run.
func TestCacheSurvivesSIGKILL(t *testing.T) {
	if os.Getenv("VKBENCH_CRASH_CHILD") != "" {
		crashChild(t)
		return
	}
	kills := 50
	if testing.Short() {
		kills = 10
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("VKBENCH_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	dir := t.TempDir()
	path := filepath.Join(dir, "crash.db")
	// latest is the last checksum the child reported for each n.
	latest := map[int]string{}
	start := time.Now()
	for round := 0; round < kills; round++ {
		delay := time.Duration(5+rng.IntN(46)) * time.Millisecond
		lines := runAndKill(t, round, path, delay)
		reported := 0
		for _, line := range lines {
			if w, ok := strings.CutPrefix(line, "warning "); ok {
				t.Errorf("round %d: child warned: %s", round, w)
			}
			f := strings.Fields(line)
			if len(f) != 3 || f[0] != "committed" {
				continue
			}
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("round %d: bad line %q", round, line)
			}
			latest[n] = f[2]
			reported++
		}
		unreported := verifyCrashFile(t, path, latest)
		if len(unreported) > 1 {
			t.Errorf("round %d: entries in the file that the child had not reported: %v; at most the one in flight may be\nthe child's output:\n%s", round, unreported, strings.Join(lines, "\n"))
		}
		// The commit in flight made it: from now on it must stay.
		for _, u := range unreported {
			latest[u.n] = u.sum
		}
		if t.Failed() {
			t.Fatalf("round %d (killed %v after the child started committing; seed %d): see above", round, delay, seed)
		}
		t.Logf("round %d: killed after %v, %d commits reported", round, delay, reported)
	}
	if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) > 0 {
		t.Errorf("files moved aside: %v", aside)
	}
	t.Logf("survived %d SIGKILLs in %v (seed %d); %d entries committed and found complete", kills, time.Since(start).Round(time.Millisecond), seed, len(latest))
}

// runAndKill starts the child, kills it delay after it says it is about to
// commit, and returns the lines it printed.
func runAndKill(t *testing.T, round int, path string, delay time.Duration) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCacheSurvivesSIGKILL$")
	cmd.Env = append(os.Environ(), "VKBENCH_CRASH_CHILD=1", "VKBENCH_CRASH_PATH="+path, "VKBENCH_CRASH_ROUND="+strconv.Itoa(round))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	done := make(chan []string)
	go func() {
		var lines []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if sc.Text() == "ready" {
				close(ready)
			}
		}
		done <- lines
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("round %d: child never got ready: %q", round, <-done)
	}
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	lines := <-done
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("round %d: child ended with %v, not by the kill: %q", round, err, lines)
	}
	return lines
}

// verifyCrashFile checks the file after a kill and returns how many
// entries it holds that the child had not reported.
func verifyCrashFile(t *testing.T, path string, latest map[int]string) (unreported []crashCommit) {
	t.Helper()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		if len(latest) > 0 {
			t.Fatalf("file gone or empty (%v) after %d reported commits", err, len(latest))
		}
		return nil
	}
	checkBolt(t, path)
	c := newCache(t, path)
	found := map[int]bool{}
	for ti, tbl := range crashTables {
		var stored []crashCommit
		err := c.Scan(t.Context(), tbl, func(k, v []byte) error {
			var n int
			var sum string
			if _, err := fmt.Sscanf(strings.Replace(string(k), "@", " ", 1), "copy/u32/%d %s", &n, &sum); err != nil {
				t.Errorf("%s: key %q: %v", tbl, k, err)
				return nil
			}
			cc := crashCommit{n: n - 1, sum: sum}
			if !bytes.Equal(v, cc.want()) {
				t.Errorf("%s: value of %s is not what was committed:\n got %s\nwant %s", tbl, k, v, cc.want())
			}
			stored = append(stored, cc)
			return nil
		})
		if err != nil {
			if len(latest) == 0 {
				continue
			}
			// A table with no reported commit yet may not exist.
			missingOK := true
			for n := range latest {
				if n%len(crashTables) == ti {
					missingOK = false
				}
			}
			if !missingOK {
				t.Errorf("%s: %v", tbl, err)
			}
			continue
		}
		for _, cc := range stored {
			n := cc.n
			if found[n] {
				t.Errorf("%s: %d stored under two checksums", tbl, n)
			}
			found[n] = true
			sum, ok := latest[n]
			switch {
			case !ok:
				unreported = append(unreported, cc)
			case sum == cc.sum:
			case sum == "old" && cc.sum == "new":
				unreported = append(unreported, cc) // the replacing commit was in flight
			default:
				t.Errorf("%s: %d has checksum %s, the child last reported %s", tbl, n, cc.sum, sum)
			}
		}
	}
	for n, sum := range latest {
		if !found[n] {
			t.Errorf("entry %d (checksum %s) was reported committed but is not in the file", n, sum)
		}
	}
	if w := c.Warnings(); len(w) > 0 {
		t.Errorf("reading the file after the kill warned: %q", w)
	}
	return unreported
}

// crashChild commits values until it is killed (or 20 s pass), printing
// each after its Update returned.
func crashChild(t *testing.T) {
	round, _ := strconv.Atoi(os.Getenv("VKBENCH_CRASH_ROUND"))
	c := newCache(t, os.Getenv("VKBENCH_CRASH_PATH"))
	fmt.Println("ready")
	deadline := time.Now().Add(20 * time.Second)
	warned := 0
	for i := 0; time.Now().Before(deadline); i++ {
		n := round*100_000 + i
		sums := []string{"c"}
		if n%5 == 0 {
			sums = []string{"old", "new"}
		}
		for _, sum := range sums {
			cc := crashCommit{n: n, sum: sum}
			if err := cc.commit(c); err != nil {
				fmt.Printf("warning commit %d@%s: %v\n", n, sum, err)
				continue
			}
			fmt.Printf("committed %d %s\n", n, sum)
		}
		for _, w := range c.Warnings()[warned:] {
			fmt.Printf("warning %s\n", w)
			warned++
		}
	}
	t.Fatal("not killed within 20 s")
}
