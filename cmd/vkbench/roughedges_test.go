package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/results"
)

// TestRoughEdges holds the message of each rough edge a new user met, as
// the command now says it: one line, the flag at fault named, what it
// wants, and no library's raw words.
func TestRoughEdges(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		// It is a positive integer: too large, and the most is said.
		{[]string{"run", "copy", "--size", "99999999999999999999999"},
			`N: extent "99999999999999999999999" is too large (at most 4294967295)`},
		// strconv's "strconv.ParseUint: parsing "-1": invalid syntax" once.
		{[]string{"run", "copy", "--seed", "-1"},
			`vkbench: invalid argument "-1" for "--seed" flag: want a whole number from 0 to 18446744073709551615`},
		{[]string{"run", "copy", "--seed", "99999999999999999999999"},
			`vkbench: invalid argument "99999999999999999999999" for "--seed" flag: want a whole number from 0 to 18446744073709551615, and this one is out of range`},
		// One line once answered three mistakes.
		{[]string{"run", "copy", "--precision", "0"}, `vkbench: --precision 0: want a positive percentage`},
		{[]string{"run", "copy", "--budget", "-1s"}, `vkbench: --budget -1s: want a positive duration`},
		{[]string{"run", "copy", "--min-samples", "20", "--max-samples", "10"}, `vkbench: --min-samples 20 is more than --max-samples 10`},
		// The 10 is the default, not the user's.
		{[]string{"run", "copy", "--max-samples", "5"}, `vkbench: --min-samples 10 (the default) is more than --max-samples 5`},
		// --compile-only measures nothing, but a bad flag is still refused.
		{[]string{"tune", "copy", "--compile-only", "--precision", "0"}, `vkbench: --precision 0: want a positive percentage`},
		{[]string{"tune", "copy", "--compile-only", "--format", "xml"}, `vkbench: unknown --format "xml" (want table, json, csv or gobench)`},
	} {
		t.Run(strings.Join(tc.args[2:], " "), func(t *testing.T) {
			wantUsage(t, regexp.QuoteMeta(tc.want), append(tc.args, "--cache", "off")...)
		})
	}
}

// TestTooLargeForDevice: a size past the device's largest buffer is one
// line in the table, not one row per candidate repeating it, and it says
// the largest size that fits.
func TestTooLargeForDevice(t *testing.T) {
	needDevice(t)
	r := mustRun(t, exitRegression, "run", "copy", "--size", "100000000", "--cache", "off", "--quiet")
	if n := strings.Count(r.stdout, "maxStorageBufferRange"); n != 1 {
		t.Errorf("the table says the reason %d times, want once:\n%s", n, r.stdout)
	}
	fits := regexp.MustCompile(`buffer src needs 400000000 bytes, past the device's maxStorageBufferRange of (\d+); the largest size that fits is (\d+)`)
	for _, out := range []string{strings.Join(strings.Fields(r.stdout), " "), r.stderr} {
		m := fits.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no largest size that fits in:\n%s", out)
		}
		if limit, largest := atoi(t, m[1]), atoi(t, m[2]); largest*4 > limit || (largest+1)*4 <= limit {
			t.Errorf("the largest size that fits %d u32 in %d bytes is %d", largest, limit, limit/4)
		}
	}
	for i, line := range strings.Split(r.stdout, "\n") {
		if len([]rune(line)) > columns {
			t.Errorf("line %d is %d columns wide: %q", i+1, len([]rune(line)), line)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTuneLockedCache: a tune cache locked by another process (here, this
// test, through bbolt itself) once ended a tune with the advice to fix the
// file; the lock is what to wait for.
func TestTuneLockedCache(t *testing.T) {
	needDevice(t)
	path := filepath.Join(t.TempDir(), "cache.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	r := vkbench(t, "tune", "copy", "--size", "4096", "--budget", "100ms", "--min-samples", "6", "--max-samples", "6", "-v", "--cache", path)
	if r.code != exitUsage {
		t.Fatalf("exit status %d, want %d\n%s", r.code, exitUsage, r.stderr)
	}
	// Said before any measuring, in one line: not after the work, which it
	// could not have kept.
	want := "vkbench: --cache " + path + ": another process holds the tune cache's lock: let it finish, or point --cache at another file\n"
	if r.stderr != want {
		t.Errorf("stderr is\n%s\nwant only\n%s", r.stderr, want)
	}
}

// TestCacheEmpty: every command with --cache refuses an empty one (exit
// 2, saying what it wants), where it meant the default cache: a script
// passing --cache "$CACHE" with CACHE unset wrote the user's own.
func TestCacheEmpty(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Runnable() && (c.Flags().Lookup("cache") != nil || c.InheritedFlags().Lookup("cache") != nil) {
			paths = append(paths, path)
		}
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clip(path), sub.Name()))
		}
	}
	walk(newRoot(), nil)
	if len(paths) < 12 { // run, tune, ab, peak, report and cache's seven, at least
		t.Fatalf("only %d commands with --cache found: %v", len(paths), paths)
	}
	for _, path := range paths {
		for _, flag := range [][]string{{"--cache", ""}, {"--cache="}} {
			wantUsage(t, `^`+regexp.QuoteMeta(`vkbench: invalid argument "" for "--cache" flag: want a file, or "off"`)+`\n$`, append(slices.Clip(path), flag...)...)
		}
	}
}

// TestManifestEmpty: run and tune refuse an empty --manifest (exit 2,
// saying what they want), where they measured the built-in operations
// instead: a script passing --manifest "$M" with M unset benchmarked
// every built-in operation for a minute or more, and exited 0.
func TestManifestEmpty(t *testing.T) {
	for _, cmd := range []string{"run", "tune"} {
		for _, flag := range [][]string{{"--manifest", ""}, {"--manifest="}} {
			wantUsage(t, `^`+regexp.QuoteMeta(`vkbench: invalid argument "" for "--manifest" flag: want the path of a kernel manifest (JSON)`)+`\n$`,
				append([]string{cmd, "copy", "--size", "1024", "--cache", "off", "--budget", "100ms", "-q"}, flag...)...)
		}
	}
}

// TestTooLargeKeepsOutput: an operation that cannot run at its size is a
// result, as a wrong candidate is: the file given with -o is written, with
// the operations that ran and the one that could not, and the status is 1.
func TestTooLargeKeepsOutput(t *testing.T) {
	needDevice(t)
	out := filepath.Join(t.TempDir(), "results.json")
	r := mustRun(t, exitRegression, "run", "copy", "triad", "--size", "copy=100000000", "--size", "triad=1024", "--budget", "100ms",
		"--cache", "off", "--quiet", "--format", "json", "-o", out)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("-o's file after an operation that could not run: %v (stderr %q)", err, r.stderr)
	}
	var file results.File
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var measured, failed int
	for _, b := range file.Benchmarks {
		switch {
		case strings.HasPrefix(b.Name, "triad/") && b.Outcome == results.Measured:
			measured++
		case strings.HasPrefix(b.Name, "copy/") && b.Outcome == results.Failed:
			failed++
		}
	}
	if measured == 0 || failed == 0 {
		t.Errorf("-o's file holds %d measured triad and %d failed copy benchmarks, want some of each:\n%s", measured, failed, data)
	}
}

// TestCacheMessages: cache import of a file that is not an exported
// table names the file and says what is wrong in JSON's words, where it
// said Go's ("cannot unmarshal string into Go struct field
// exportFile.schema of type int") and named no file; cache show of a key
// in a cache file that does not exist, or with the cache off, says so,
// where it said "no entry ... in PATH" (or "in " and nothing).
func TestCacheMessages(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "c.db")
	for _, tc := range []struct{ name, content, want string }{
		{"schema.json", `{"schema": "x"}`, `its "schema" is a JSON string, want a number`},
		{"array.json", `[1]`, `it is a JSON array, want an object`},
		{"text.txt", "hello\n", `not JSON (invalid character 'h' looking for beginning of value, at byte 1)`},
		{"cut.json", `{"schema": 1,`, `its JSON is cut short`},
		{"empty.json", ``, `is empty, not a table written by vkbench cache export`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		wantUsage(t, `^vkbench: `+regexp.QuoteMeta(path)+` (is not a table written by vkbench cache export: )?`+regexp.QuoteMeta(tc.want)+`\n$`, "cache", "import", path, "--cache", cache)
	}
	// A table of no name was "imported 0 entries into autotune/v1/layout-v1//".
	notable := filepath.Join(dir, "notable.json")
	if err := os.WriteFile(notable, []byte(`{"schema": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, regexp.QuoteMeta(notable)+`: autotune: import file names no table`, "cache", "import", notable, "--cache", cache)
	missing := filepath.Join(dir, "missing.db")
	r := vkbench(t, "cache", "show", "copy/u32/4096", "--cache", missing)
	if want := "no entry copy/u32/4096 (the tune cache " + missing + " does not exist)\n"; r.code != exitUsage || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("cache show of a key in a file that does not exist: exit status %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	r = vkbench(t, "cache", "show", "copy/u32/4096", "--cache", "off")
	if want := "no entry copy/u32/4096 (the tune cache is off)\n"; r.code != exitUsage || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("cache show --cache off: exit status %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
}
