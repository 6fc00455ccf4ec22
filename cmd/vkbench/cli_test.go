package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/store"
)

// runArgs measure the copy kernels on a tiny problem with a short budget:
// enough to exercise every path, quick under the race detector.
var runArgs = []string{"copy", "--size", "4096", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet"}

func args(cmd string, extra ...string) []string {
	return append(append([]string{cmd}, runArgs...), extra...)
}

// resultsMasker masks a results table: the numbers, and what depends on
// timing (which candidate won, which were dropped early or tied, which
// intervals settled, why sampling stopped). The legend under the tables
// says what the marks mean only where they appear, so it goes.
func resultsMasker(t testing.TB, dirs ...string) *masker {
	m := deviceMasker(t, dirs...)
	m.regexp(`(?m)^  \*  `, "     ").
		regexp(`(?m)^  \+ \d+ dropped early.*\n`, "").
		regexp(`\bdropped \(slower\)`, "").
		regexp(`\bunsettled\b`, "±<p>%").
		regexp(`,?\b(`+strings.Join(timingFlags, "|")+`)\b`, "").
		regexp(`(?m)^(     .*?) +tie$`, "$1").
		regexp(`(?m)^(  \S+( [a-z]\d+)?  +\d\S*  +)[a-z]\S*`, "$1<winner>").
		regexp(`(?m)  tie$`, "  <p>%").
		regexp(`(?s)\n\* the fastest.*`, "\n").
		regexp(`\[,`, "[").
		regexp(` ?\[\]`, "").
		regexp(`\b[MGT](B/s|FLOP/s|OP/s)\b`, "<p>$1") // the prefix follows the rate
	return tableMasker(m)
}

// withoutRows is a table without its candidates' rows, their heads kept.
func withoutRows(table string) string {
	return candidateRow.ReplaceAllStringFunc(table, func(row string) string {
		if strings.HasPrefix(row, "     candidate  ") {
			return row
		}
		return ""
	})
}

var candidateRow = regexp.MustCompile(`(?m)^  [ *]  \S.*\n`)

// timingFlags are the flags that depend on timing: why sampling stopped
// short of the target, a drift caught (or not) and measured again.
var timingFlags = []string{autotune.FlagBudgetSpent, autotune.FlagMaxSamples, autotune.FlagRemeasured, autotune.FlagDrift}

// checkWinners checks that every operation in f has exactly one winner and
// that it was measured.
func checkWinners(t testing.TB, f *results.File) {
	t.Helper()
	winners := map[string][]string{}
	for _, b := range f.Benchmarks {
		key := b.Op + "/" + b.DType + "/" + b.Shape
		if _, ok := winners[key]; !ok {
			winners[key] = nil
		}
		if b.Tie != "" && !b.Winner {
			t.Errorf("%s is not the winner but says it ties: %q", b.Name, b.Tie)
		}
		if b.Winner {
			winners[key] = append(winners[key], b.Candidate)
			if b.Outcome != results.Measured {
				t.Errorf("winner %s has outcome %s, want measured", b.Name, b.Outcome)
			}
		}
	}
	for key, w := range winners {
		if len(w) != 1 {
			t.Errorf("%s has winners %v, want exactly one", key, w)
		}
	}
}

func TestDevices(t *testing.T) {
	info := needDevice(t)
	t.Run("table", func(t *testing.T) {
		r := mustRun(t, 0, "devices")
		for _, l := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(l); n > columns {
				t.Errorf("a line of %d columns, over %d: %q", n, columns, l)
			}
		}
		// Only the default device's block: other machines have other devices.
		var block []string
		in := false
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, "device ") {
				in = strings.Contains(l, "(default)")
			}
			if in {
				block = append(block, l)
			}
		}
		got := deviceMasker(t).mask(strings.Join(block, "\n"))
		if !strings.Contains(got, "(default)  <device>") {
			t.Errorf("the default device's line does not name it:\n%s", got)
		}
		// The values are the device's; the keys are the structure. A
		// line without a key is a value's: folded, or one more of a list.
		got = regexp.MustCompile(`(?m)^(  \S(?:\S| \S)*) {2,}.*$`).ReplaceAllString(got, "$1  <value>")
		got = regexp.MustCompile(`(?m)^ {4,}\S.*\n`).ReplaceAllString(got, "")
		golden(t, "devices", got+"\n")
	})
	t.Run("json", func(t *testing.T) {
		r := mustRun(t, 0, "devices", "--format", "json")
		// The document follows its schema, whose names are snake_case and
		// whose UUIDs are hex, as the results files' are.
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(r.stdout))
		if err != nil {
			t.Fatalf("devices --format json is not JSON: %v", err)
		}
		if err := loadSchema(t, filepath.Join("..", "..", "results", "schema", "devices-v1.json")).Validate(inst); err != nil {
			t.Errorf("devices --format json does not follow its schema: %v\n%s", err, r.stdout)
		}
		var doc struct {
			Schema  string           `json:"schema"`
			Devices []map[string]any `json:"devices"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("devices --format json: %v", err)
		}
		if doc.Schema != results.DevicesSchema {
			t.Errorf("schema %q, want %q", doc.Schema, results.DevicesSchema)
		}
		var def map[string]any
		for _, d := range doc.Devices {
			if d["default"] == true {
				if def != nil {
					t.Fatalf("two devices are the default")
				}
				def = d
			}
		}
		if def == nil {
			t.Fatal("no device is the default")
		}
		want := map[string]any{"hardware": info.Hardware(), "name": info.Name, "device_uuid": fmt.Sprintf("%x", info.DeviceUUID)}
		got := map[string]any{"hardware": def["hardware"], "name": def["name"], "device_uuid": def["device_uuid"]}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("the default device (-want +got):\n%s", d)
		}
		golden(t, "devices-json", shapeOfJSON(def, "")+"\n")
	})
	t.Run("bad format", func(t *testing.T) {
		r := vkbench(t, "devices", "--format", "xml")
		if r.code != exitUsage {
			t.Errorf("devices --format xml: exit status %d, want %d", r.code, exitUsage)
		}
		checkOneLine(t, r, regexp.MustCompile(`unknown --format "xml" \(want table or json\)`))
	})
}

// shapeOfJSON prints the keys and value types of a decoded JSON value, one
// path a line: the structure, without the values that differ per device.
func shapeOfJSON(v any, path string) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var b strings.Builder
		for _, k := range keys {
			b.WriteString(shapeOfJSON(v[k], path+"."+k))
		}
		return b.String()
	case []any:
		if len(v) == 0 {
			return path + ": []\n"
		}
		return shapeOfJSON(v[0], path+"[]")
	case string:
		return path + ": string\n"
	case float64:
		return path + ": number\n"
	case bool:
		return path + ": bool\n"
	case nil:
		return path + ": null\n"
	}
	return fmt.Sprintf("%s: %T\n", path, v)
}

// TestRunCandidates measures a subset of candidates, chosen by a regular
// expression: only those are in the results, an operation with none is
// skipped with a note on stderr.
func TestRunCandidates(t *testing.T) {
	needDevice(t)
	r := mustRun(t, 0, "run", "copy", "triad", "--size", "4096", "--candidates", "^vec4-wg(128|512)$|^scalar-wg64$",
		"--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", "off", "--format", "json")
	f, err := results.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatalf("results.Parse: %v", err)
	}
	var got []string
	for _, b := range f.Benchmarks {
		got = append(got, b.Op+"/"+b.Candidate)
	}
	want := []string{"copy/scalar-wg64", "copy/vec4-wg128", "copy/vec4-wg512", "triad/vec4-wg128", "triad/vec4-wg512"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("benchmarks (-want +got):\n%s", d)
	}
	checkWinners(t, f)
	if r.stderr != "" {
		t.Errorf("stderr: %q, want nothing", r.stderr)
	}
	r = mustRun(t, 0, "run", "copy", "gemm", "--size", "copy=4096", "--size", "gemm=32x32x32", "--candidates", "^tiled-16$",
		"--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", "off")
	if r.stderr != `--candidates "^tiled-16$" matches no candidate of copy: skipped`+"\n" {
		t.Errorf("stderr: %q, want the skipped operation named", r.stderr)
	}
	if !strings.Contains(r.stdout, "gemm f32") || strings.Contains(r.stdout, "copy u32") || strings.Count(r.stdout, "  *  tiled-16  ") != 1 {
		t.Errorf("stdout is not the one gemm candidate:\n%s", r.stdout)
	}
}

func TestRun(t *testing.T) {
	needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	t.Run("table", func(t *testing.T) {
		r := mustRun(t, 0, args("run", "--cache", cache)...)
		if n := strings.Count(r.stdout, "\n  *  "); n != 1 {
			t.Errorf("%d winners marked, want 1:\n%s", n, r.stdout)
		}
		if r.stderr != "" {
			t.Errorf("stderr: %q, want nothing", r.stderr)
		}
		// Which candidates are dropped early depends on timing: the
		// default table's rows are left out, -v's are compared.
		golden(t, "run-table", resultsMasker(t).mask(withoutRows(r.stdout)))
	})
	t.Run("table-verbose", func(t *testing.T) {
		r := mustRun(t, 0, args("run", "--cache", cache, "-v")...)
		golden(t, "run-table-verbose", resultsMasker(t).mask(r.stdout))
	})
	t.Run("json", func(t *testing.T) {
		r := mustRun(t, 0, args("run", "--cache", cache, "--format", "json")...)
		validateResults(t, []byte(r.stdout))
		f, err := results.Parse([]byte(r.stdout))
		if err != nil {
			t.Fatalf("results.Parse: %v", err)
		}
		checkWinners(t, f)
		if f.Schema != results.Schema || f.Seed != 1 || f.Mode != "hot" {
			t.Errorf("file says schema %q, seed %d, mode %q; want %q, 1, hot", f.Schema, f.Seed, f.Mode, results.Schema)
		}
		for _, b := range f.Benchmarks {
			if b.Stats == nil {
				continue
			}
			// One round: its samples are the round's; the pooled
			// statistics keep none of their own.
			if len(b.Rounds) != 1 || b.Stats.Samples != nil {
				t.Errorf("%s: %d rounds, %d pooled samples kept; want 1 round, none kept", b.Name, len(b.Rounds), len(b.Stats.Samples))
				continue
			}
			// --min-samples 6 --max-samples 6: six samples, enough for a
			// 95% interval, and every one kept.
			if s := b.Rounds[0]; s.N != 6 || len(s.Samples) != s.N || s.N != b.Stats.N || !b.Stats.HasInterval() {
				t.Errorf("%s: %d samples (%d kept), interval [%g, %g]; want 6, all kept, and an interval", b.Name, s.N, len(s.Samples), b.Stats.Lo, b.Stats.Hi)
			}
			// At --max-samples, a result short of --precision (1%) says
			// so; one within it says nothing.
			if b.Outcome == results.Measured {
				short := b.Stats.HalfWidth() > autotune.DefaultOptions.TargetHalfWidth
				if got := slices.Contains(b.Flags, autotune.FlagMaxSamples); got != short {
					t.Errorf("%s: ±%.2f%% against a target of ±1%%, flags %v", b.Name, b.Stats.HalfWidth()*100, b.Flags)
				}
			}
		}
		golden(t, "run-json", canonicalResults(t, []byte(r.stdout)))
	})
	t.Run("csv", func(t *testing.T) {
		r := mustRun(t, 0, args("run", "--cache", cache, "--format", "csv")...)
		golden(t, "run-csv", canonicalCSV(t, r.stdout))
	})
	t.Run("gobench", func(t *testing.T) {
		r := mustRun(t, 0, args("run", "--cache", cache, "--format", "gobench")...)
		f, err := results.Parse([]byte(r.stdout))
		if err != nil {
			t.Fatalf("the Go benchmark output does not parse: %v\n%s", err, r.stdout)
		}
		for _, b := range f.Benchmarks {
			// One line a round, as benchstat reads go test -count.
			if n := len(b.Rounds); n != 1 {
				t.Errorf("%s: %d lines, want 1 (one round)", b.Name, n)
			}
		}
		golden(t, "run-gobench", canonicalGoBench(t, r.stdout))
	})
	t.Run("output-file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "run.json")
		r := mustRun(t, 0, args("run", "--cache", cache, "--format", "json", "--output", out)...)
		if r.stdout != "" {
			t.Errorf("stdout %q with --output, want nothing", r.stdout)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		validateResults(t, data)
	})
}

// canonicalResults masks a results file: values that vary become
// placeholders, what is structure stays. Keys are sorted.
func canonicalResults(t testing.TB, data []byte) string {
	t.Helper()
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("results JSON: %v", err)
	}
	f["time"] = "<time>"
	dev := f["device"].(map[string]any)
	for _, k := range []string{"name", "hardware", "uuid", "driver"} {
		dev[k] = "<" + k + ">"
	}
	for _, v := range f["benchmarks"].([]any) {
		b := v.(map[string]any)
		// Which candidate wins, whether it ties, and which are dropped
		// early depend on timing.
		delete(b, "winner")
		delete(b, "tie")
		if b["outcome"] == string(results.Dropped) {
			b["outcome"] = string(results.Measured)
			delete(b, "error")
			delete(b, "drop")
		}
		for k, x := range b {
			switch k {
			case "bytes_per_run", "flops_per_run", "gb_per_s", "gflop_per_s", "percent_of_peak":
				b[k] = "<number>"
			case "flags":
				var keep []any
				for _, fl := range x.([]any) {
					if name, _ := fl.(string); !slices.Contains(timingFlags, name) {
						keep = append(keep, fl)
					}
				}
				if keep == nil {
					delete(b, k)
				} else {
					b[k] = keep
				}
			case "stats":
				s := x.(map[string]any)
				for sk := range s {
					s[sk] = "<number>"
				}
			case "rounds":
				for _, r := range x.([]any) {
					s := r.(map[string]any)
					for sk := range s {
						s[sk] = "<number>"
					}
					s["samples_s"] = "<numbers>"
				}
			}
		}
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out) + "\n"
}

func canonicalCSV(t testing.TB, text string) string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("CSV output does not parse: %v", err)
	}
	if len(rows) < 2 {
		t.Fatalf("CSV output has %d rows, want a header and data", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	winners := 0
	for _, row := range rows[1:] {
		if row[col["winner"]] == "true" {
			winners++
		}
		row[col["winner"]] = "<bool>"
		if row[col["outcome"]] == string(results.Dropped) {
			row[col["outcome"]], row[col["error"]] = string(results.Measured), ""
		}
		var flags []string
		for _, fl := range strings.Split(row[col["flags"]], ";") {
			if fl != "" && !slices.Contains(timingFlags, fl) {
				flags = append(flags, fl)
			}
		}
		row[col["flags"]] = strings.Join(flags, ";")
		for _, h := range []string{"median_s", "ci_lo_s", "ci_hi_s", "min_s", "max_s", "samples", "batch", "gb_per_s", "gflop_per_s", "percent_of_peak"} {
			if row[col[h]] != "" && row[col[h]] != "0" {
				row[col[h]] = "<n>"
			}
		}
	}
	if winners != 1 {
		t.Errorf("CSV has %d winners, want 1", winners)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// canonicalGoBench keeps one line per benchmark (the number of sample
// lines varies) with its numbers masked.
func canonicalGoBench(t testing.TB, text string) string {
	t.Helper()
	m := deviceMasker(t).regexp(`\d+(\.\d+)? (ns/op|MB/s)`, "<n> $2").regexp(`\t\d+\t`, "\t<runs>\t")
	var out []string
	last := ""
	for _, l := range strings.Split(strings.TrimRight(m.mask(text), "\n"), "\n") {
		if l == last {
			continue
		}
		last = l
		out = append(out, l)
	}
	return strings.Join(out, "\n") + "\n"
}

func TestTune(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.db")
	first := mustRun(t, 0, args("tune", "--cache", cache, "--format", "json")...)
	validateResults(t, []byte(first.stdout))
	if strings.Contains(first.stderr, "answered from") {
		t.Errorf("the first tune says it answered from the cache: %s", first.stderr)
	}
	second := mustRun(t, 0, args("tune", "--cache", cache, "--format", "json")...)
	// It says which tier answered: the local file, by its path.
	if want := "copy/u32/4096: answered from the local tune cache " + cache + " (tuned "; !strings.Contains(second.stderr, want) {
		t.Errorf("the second tune does not say %q; stderr: %q", want, second.stderr)
	}
	// Answered from the cache, the second tune repeats the first's numbers.
	a, err := results.Parse([]byte(first.stdout))
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.Parse([]byte(second.stdout))
	if err != nil {
		t.Fatal(err)
	}
	b.Time = a.Time
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("the second tune measured again (-first +second):\n%s", diff)
	}
	third := mustRun(t, 0, args("tune", "--cache", cache)...)
	golden(t, "tune-cached-table", resultsMasker(t).mask(withoutRows(third.stdout)))
	golden(t, "tune-cached-stderr", tableMasker(deviceMasker(t, dir)).mask(third.stderr))

	forced := mustRun(t, 0, args("tune", "--cache", cache, "--force", "--format", "json")...)
	if strings.Contains(forced.stderr, "answered from") {
		t.Errorf("tune --force answered from the cache: %s", forced.stderr)
	}
}

func TestTuneCompileOnly(t *testing.T) {
	needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	r := mustRun(t, 0, "tune", "--compile-only", "--cache", cache, "copy", "gemm")
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
	golden(t, "tune-compile-only", r.stderr)
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("the pipeline cache was not kept: %v", err)
	}
	// Nothing was tuned.
	ls := mustRun(t, 0, "cache", "ls", "--cache", cache)
	if strings.TrimSpace(ls.stdout) != "the cache is empty" {
		t.Errorf("cache ls after a compile-only tune:\n%s", ls.stdout)
	}
}

// peakArgs measure the device's peak on tiny problems (a matrix unit's
// size among them: peak once refused it).
var peakArgs = []string{"--size", "copy=4096", "--size", "peak-fma-f32=1024x64", "--size", "peak-fma-f16=1024x64",
	"--size", "peak-mad-i32=1024x64", "--size", "peak-coopmat-f16=1024x64", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet"}

// TestPeak measures the peak twice: within a --precision it cannot miss
// (the table's golden file), then with one it cannot meet, which must say
// the peak is too noisy and store it only where the stored one is
// noisier, as it says; without a cache, it says nothing of storing.
// (Mutation: leaving the warning out fails it; the rule itself is
// autotune's TestPeakRecordStored's.)
func TestPeak(t *testing.T) {
	needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	r := mustRun(t, 0, append([]string{"peak", "--cache", cache, "--precision", "1000"}, peakArgs...)...)
	m := tableMasker(deviceMasker(t).regexp(`(?m)^(  (?:peak-\S+|copy) +)\S+`, "$1<candidate>"))
	golden(t, "peak-table", m.mask(r.stdout))

	r = mustRun(t, 0, append([]string{"peak", "--cache", cache, "--format", "json", "--precision", "0.001"}, peakArgs...)...)
	var rec autotune.PeakRecord
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		t.Fatalf("peak --format json: %v\n%s", err, r.stdout)
	}
	if rec.GFLOPs <= 0 || rec.BandwidthGBps <= 0 || rec.Low == nil || !(rec.Low.GFLOPs <= rec.GFLOPs && rec.GFLOPs <= rec.High.GFLOPs) {
		t.Errorf("peak measured %+v, want positive GFLOP/s and GB/s within their intervals", rec)
	}
	stored := storedPeak(t, cache)
	switch {
	case !strings.Contains(r.stderr, "vkbench: warning: too noisy to trust: "):
		t.Errorf("a peak wider than --precision 0.001 does not say it is too noisy:\n%s", r.stderr)
	// Every rate is wider than 0.001%: a stored rate that is tighter stays,
	// the others are stored, and the peak is written with the new time
	// where any is. (Which happens is the noise's: both are checked.)
	case !stored.Time.Equal(rec.Time) && (!strings.Contains(r.stderr, "Not stored for ") || peakStoredSaid.MatchString(r.stderr)):
		t.Errorf("nothing was stored (the stored peak is of %v, the new one of %v), yet peak said %q; want the rates kept named, and no rest stored", stored.Time, rec.Time, r.stderr)
	case stored.Time.Equal(rec.Time) && !peakStoredSaid.MatchString(r.stderr):
		t.Errorf("the peak was stored, yet peak said %q; want it to say which rates were stored", r.stderr)
	}
	// Without a cache nothing is stored, and it says no such thing.
	r = mustRun(t, 0, append([]string{"peak", "--cache", "off", "--format", "json", "--precision", "0.001"}, peakArgs...)...)
	if !strings.Contains(r.stderr, "too noisy to trust") || strings.Contains(r.stderr, "tored") {
		t.Errorf("peak --cache off, too noisy, says:\n%s", r.stderr)
	}
	// run shows the percent of the stored peak.
	run := mustRun(t, 0, args("run", "--cache", cache, "--format", "json")...)
	f, err := results.Parse([]byte(run.stdout))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range f.Benchmarks {
		if b.Stats != nil && b.PercentPeak <= 0 {
			t.Errorf("%s: no percent of peak though a peak is stored", b.Name)
		}
	}
}

// TestPeakKeepsFaster stores a peak far faster than this device, then
// measures its peak: the fp32 and copy rates, measured below the stored
// ones beyond both intervals, stay as stored, and the table says so and
// how to replace them; rates the stored peak lacks are the new ones'.
// --replace then stores the new peak as measured. (Mutation: keeping no
// slower rate, or dropping the message, fails it.)
func TestPeakKeepsFaster(t *testing.T) {
	info := needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	when := time.Date(2026, 12, 5, 10, 14, 3, 0, time.UTC)
	fast := autotune.PeakRecord{Peak: autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 1e6, GFLOPs: 1e7},
		Low:  &autotune.Rates{BandwidthGBps: 0.995e6, GFLOPs: 0.99e7},
		High: &autotune.Rates{BandwidthGBps: 1.005e6, GFLOPs: 1.01e7}}, Device: info.Name, Version: "test", Time: when}
	c, err := store.Open(store.Options{Path: cache})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := autotune.SavePeak(t.Context(), c, info.Hardware(), fast, 0.01, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, 0, append([]string{"peak", "--cache", cache, "--precision", "1000"}, peakArgs...)...)
	t.Logf("peak over a faster stored one:\n%s", r.stdout)
	said := strings.Join(strings.Fields(r.stdout), " ")
	for _, re := range []string{
		`peak-fma-f32: [0-9.]+ GFLOP/s measured, below the stored 10000000.0 GFLOP/s \(±1.0%\); `,
		`copy: [0-9.]+ GB/s measured, below the stored 1000000.0 GB/s \(±0.5%\) beyond both intervals: ` +
			`the stored rates stay \(a busy or throttled device measures low\); ` +
			"`vkbench peak --replace` stores these. The stored peak was last written 2026-12-05 10:14:03; a rate kept then may be older.",
	} {
		if !regexp.MustCompile(re).MatchString(said) {
			t.Errorf("peak over a faster stored peak does not say %q:\n%s", re, r.stdout)
		}
	}
	got := storedPeak(t, cache)
	if got.GFLOPs != fast.GFLOPs || got.BandwidthGBps != fast.BandwidthGBps || *got.Low != (autotune.Rates{BandwidthGBps: 0.995e6, GFLOPs: 0.99e7, FP16GFLOPs: got.Low.FP16GFLOPs, Int32GOPs: got.Low.Int32GOPs}) ||
		!(got.Int32GOPs > 0 && got.Int32GOPs < 1e6) || got.Time.Equal(when) {
		t.Errorf("stored after a slower peak: %+v (low %+v), want the faster fp32 and copy rates and intervals, the new int32 rate and time", got, *got.Low)
	}
	r = mustRun(t, 0, append([]string{"peak", "--cache", cache, "--precision", "1000", "--replace", "--format", "json"}, peakArgs...)...)
	var rec autotune.PeakRecord
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
		t.Fatalf("peak --format json: %v\n%s", err, r.stdout)
	}
	if diff := cmp.Diff(rec, *storedPeak(t, cache)); diff != "" || strings.Contains(r.stderr, "--replace") {
		t.Errorf("peak --replace stored (-measured +stored):\n%s\nand said:\n%s", diff, r.stderr)
	}
}

// checkFormatFlag checks that the command args take --format table or
// json alone: yaml is bad usage, and so is the --json that --format json
// replaced.
func checkFormatFlag(t *testing.T, args ...string) {
	t.Helper()
	wantUsage(t, `unknown --format "yaml" \(want table or json\)`, append(args, "--format", "yaml")...)
	wantUsage(t, `unknown flag: --json`, append(args, "--json")...)
}

// storedPeak is the peak stored in the cache file path.
func storedPeak(t testing.TB, path string) *autotune.PeakRecord {
	t.Helper()
	c, err := store.Open(store.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	p, err := autotune.LoadPeak(t.Context(), c, needDevice(t).Hardware())
	if err != nil || p == nil {
		t.Fatalf("stored peak: %v, %v", p, err)
	}
	return p
}

func TestCache(t *testing.T) {
	info := needDevice(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.db")
	tuned := mustRun(t, 0, args("tune", "--cache", cache, "--format", "json")...)
	f, err := results.Parse([]byte(tuned.stdout))
	if err != nil {
		t.Fatal(err)
	}
	var winner string
	for _, b := range f.Benchmarks {
		if b.Winner {
			winner = b.Candidate
		}
	}
	m := func() *masker {
		m := deviceMasker(t, dir).regexp(`(?m)^(  copy/u32/4096 +)`+regexp.QuoteMeta(winner)+` `, "$1<winner> ").
			regexp(`winner: \S+ \(candidate \d+\)`, "winner: <winner> (candidate <n>)").
			regexp(` \(tie\)`, "").regexp(`, a tie broken by: .*`, "").
			regexp(`(?m)^(\s+\*?\s*\S+\s+)dropped\s`, "${1}measured ").
			regexp(`dropped after .*`, "").
			regexp(`(?m)^  \*  `, "     ").
			regexp(`vkbench [0-9][^, ]*`, "vkbench <version>").
			regexp(`seed \d+`, "seed <n>").
			regexp(`\d+-\d+ samples`, "<n>-<n> samples").
			regexp(`(`+strings.ReplaceAll(report.FlagText(timingFlags...), "; ", "|")+`)(; )?`, "")
		return tableMasker(m)
	}

	t.Run("path", func(t *testing.T) {
		r := mustRun(t, 0, "cache", "path", "--cache", cache)
		if strings.TrimSpace(r.stdout) != cache {
			t.Errorf("cache path says %q, want %q", r.stdout, cache)
		}
		r = mustRun(t, 0, "cache", "path", "--cache", "off")
		if r.stdout != "off\n" {
			t.Errorf("cache path --cache off says %q, want off", r.stdout)
		}
		t.Setenv(store.EnvCache, filepath.Join(dir, "env.db"))
		r = mustRun(t, 0, "cache", "path")
		if strings.TrimSpace(r.stdout) != filepath.Join(dir, "env.db") {
			t.Errorf("cache path with $%s says %q", store.EnvCache, r.stdout)
		}
	})
	t.Run("ls", func(t *testing.T) {
		r := mustRun(t, 0, "cache", "ls", "--cache", cache)
		golden(t, "cache-ls", m().mask(r.stdout))
		r = mustRun(t, 0, "cache", "ls", "--cache", cache, "--format", "json")
		var tables []struct {
			Table   store.Table       `json:"table"`
			Entries []*autotune.Entry `json:"entries"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &tables); err != nil {
			t.Fatalf("cache ls --format json: %v", err)
		}
		if len(tables) != 1 || tables[0].Table.Hardware != info.Hardware() || len(tables[0].Entries) != 1 || tables[0].Entries[0].FastestName != winner {
			t.Errorf("cache ls --format json = %s, want one table of %s with one entry won by %s", r.stdout, info.Hardware(), winner)
		}
		checkFormatFlag(t, "cache", "ls", "--cache", cache)
	})
	t.Run("show", func(t *testing.T) {
		r := mustRun(t, 0, "cache", "show", "copy/u32/4096", "--cache", cache)
		golden(t, "cache-show", m().mask(r.stdout))
		r = mustRun(t, 0, "cache", "show", "copy/u32/4096", "--cache", cache, "-f", "json", "--hardware", info.Hardware(), "--tuner", "builtin")
		e, err := autotune.DecodeEntry([]byte(r.stdout))
		if err != nil {
			t.Fatalf("cache show -f json: %v", err)
		}
		if e.FastestName != winner || e.Key != "copy/u32/4096" {
			t.Errorf("cache show -f json: key %s won by %s, want copy/u32/4096 won by %s", e.Key, e.FastestName, winner)
		}
		checkFormatFlag(t, "cache", "show", "copy/u32/4096", "--cache", cache, "--hardware", info.Hardware(), "--tuner", "builtin")
		r = mustRun(t, exitUsage, "cache", "show", "copy/u32/8192", "--cache", cache)
		if !strings.HasPrefix(r.stderr, "vkbench: ") || !strings.Contains(r.stderr, "no entry copy/u32/8192") {
			t.Errorf("show of a missing key: stderr %q", r.stderr)
		}
	})
	t.Run("export-import-clear", func(t *testing.T) {
		exported := filepath.Join(dir, "table.json")
		r := mustRun(t, 0, "cache", "export", exported, "--cache", cache)
		golden(t, "cache-export", m().mask(r.stderr))
		var doc map[string]any
		data, err := os.ReadFile(exported)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("the exported table is not JSON: %v", err)
		}

		other := filepath.Join(dir, "other.db")
		r = mustRun(t, 0, "cache", "import", exported, "--cache", other, "--hardware", info.Hardware())
		golden(t, "cache-import", m().mask(r.stderr))
		r = mustRun(t, exitUsage, "cache", "import", exported, "--cache", other, "--hardware", "another_gpu")
		if !strings.HasPrefix(r.stderr, "vkbench: ") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("import from other hardware: stderr %q, want one vkbench: line", r.stderr)
		}
		mustRun(t, 0, "cache", "import", exported, "--cache", other, "--hardware", "another_gpu", "--force")

		// The imported answer serves a tune without measuring.
		r = mustRun(t, 0, args("tune", "--cache", other)...)
		if !strings.Contains(r.stderr, "answered from the local tune cache") {
			t.Errorf("a tune after import measured again; stderr %q", r.stderr)
		}

		mustRun(t, 0, "cache", "clear", "--cache", other)
		r = mustRun(t, 0, "cache", "ls", "--cache", other)
		if strings.TrimSpace(r.stdout) != "the cache is empty" {
			t.Errorf("cache ls after clear:\n%s", r.stdout)
		}
		mustRun(t, 0, "cache", "clear", "--cache", cache, "--hardware", info.Hardware(), "--tuner", "builtin")
		r = mustRun(t, 0, "cache", "ls", "--cache", cache)
		if strings.TrimSpace(r.stdout) != "the cache is empty" {
			t.Errorf("cache ls after clearing the one table:\n%s", r.stdout)
		}
	})
}

// TestValidation runs a benchmark under the Khronos validation layer: the
// layer's messages come out as "vkbench: warning:" lines, and there must be
// none.
func TestValidation(t *testing.T) {
	needDevice(t)
	r := vkbench(t, args("run", "--cache", "off", "--validation")...)
	if r.code != exitOK {
		if strings.Contains(r.stderr, "validation was asked for") {
			testenv.Unavailable(t, "no validation layer: %s", r.stderr)
		}
		t.Fatalf("run --validation: exit status %d\n%s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("the validation layer complained:\n%s", r.stderr)
	}
}

func TestTuneAllDevices(t *testing.T) {
	needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	r := mustRun(t, 0, args("tune", "--all-devices", "--cache", cache, "--format", "json")...)
	var out struct {
		TookS float64 `json:"took_s"`
		Jobs  []struct {
			Op     string          `json:"op"`
			Size   string          `json:"size"`
			Device int             `json:"device"`
			Error  string          `json:"error"`
			Entry  *autotune.Entry `json:"entry"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--all-devices JSON: %v\n%s", err, r.stdout)
	}
	if len(out.Jobs) == 0 {
		t.Fatal("no jobs reported")
	}
	for _, j := range out.Jobs {
		if j.Op != "copy" || j.Size != "4096" || j.Error != "" || j.Entry == nil || j.Device < 0 {
			t.Errorf("job %+v: want copy at 4096 answered by a device", j)
		}
	}
	// The answers are committed: a plain tune reads them.
	again := mustRun(t, 0, args("tune", "--cache", cache)...)
	if !strings.Contains(again.stderr, "answered from the local tune cache") {
		t.Errorf("tune after --all-devices measured again; stderr: %q", again.stderr)
	}
	// --device narrows --all-devices to a list; a device named twice
	// counts once, and a device that is not there is bad usage.
	some := mustRun(t, 0, args("tune", "--all-devices", "--device", "0,0", "--cache", cache, "--format", "json")...)
	if err := json.Unmarshal([]byte(some.stdout), &out); err != nil || len(out.Jobs) != 1 {
		t.Errorf("--all-devices --device 0,0: %d jobs (%v), want 1", len(out.Jobs), err)
	}
	bad := vkbench(t, args("tune", "--all-devices", "--device", "0,99")...)
	if bad.code != exitUsage {
		t.Errorf("--all-devices --device 0,99: exit %d, want %d", bad.code, exitUsage)
	}
}

// TestRunManifestOperations: with --manifest and no operation named, run
// measures the manifest's operations only; they can be named too.
func TestRunManifestOperations(t *testing.T) {
	needDevice(t)
	manifest := filepath.Join("..", "..", "testdata", "manifests", "kernels.json")
	quick := []string{"--cache", "off", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "-q", "--format", "json"}
	// The manifest has a deliberately wrong saxpy candidate: exit 1.
	r := vkbench(t, append([]string{"run", "saxpy", "--manifest", manifest}, quick...)...)
	if r.code != exitRegression {
		t.Fatalf("run saxpy --manifest: exit %d, want %d (its wrong candidate)\n%s", r.code, exitRegression, r.stderr)
	}
	f, err := results.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range f.Benchmarks {
		if b.Op != "saxpy" {
			t.Errorf("run saxpy measured %s", b.Name)
		}
	}
	bad := vkbench(t, append([]string{"run", "nosuch", "--manifest", manifest}, quick...)...)
	if bad.code != exitUsage || !strings.Contains(bad.stderr, "nor in the manifest (saxpy") {
		t.Errorf("unknown operation with a manifest: exit %d, stderr %q", bad.code, bad.stderr)
	}
}

// TestRunImageManifest: run measures a manifest's image kernels, each
// candidate verified against the reference, the size given by name.
func TestRunImageManifest(t *testing.T) {
	needDevice(t)
	manifest := filepath.Join("..", "..", "testdata", "manifests", "images.json")
	r := mustRun(t, 0, "run", "downscale", "--manifest", manifest, "--size", "W=256,H=130", "--cache", "off",
		"--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "-q", "--format", "json")
	f, err := results.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	// A candidate clearly slower than the leader may be dropped after its
	// first samples; it was verified all the same, and that is what this
	// test asks of each.
	type bench struct {
		Op, Shape, Candidate string
		Verified             bool
	}
	var got []bench
	for _, b := range f.Benchmarks {
		verified := b.Outcome == results.Measured || b.Outcome == results.Dropped
		got = append(got, bench{b.Op, b.Shape, b.Candidate, verified})
		if !verified {
			t.Errorf("%s: outcome %s: %s", b.Name, b.Outcome, b.Error)
		}
	}
	want := []bench{
		{"downscale", "256x130", "fetch", true},
		{"downscale", "256x130", "bilinear", true},
		{"downscale", "256x130", "storage", true},
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b bench) bool { return a.Candidate < b.Candidate })); diff != "" {
		t.Errorf("benchmarks (-want +got):\n%s", diff)
	}
}

// TestCompilerStatsShown lists the compiler statistics of the candidates
// that have them, sorted by name, under cache show's table.
func TestCompilerStatsShown(t *testing.T) {
	var b strings.Builder
	err := writeCompilerStats(&b, []results.Result{
		{Name: "fast", Measurement: results.Measurement{Compiler: map[string]float64{"Register Count": 127, "Local Memory Size": 0}}},
		{Name: "unreported"},
		{Name: "spills", Measurement: results.Measurement{Compiler: map[string]float64{"Register Count": 255, "Local Memory Size": 32}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "  compiler statistics, as the driver reports them:\n" +
		"    fast: Local Memory Size 0, Register Count 127\n" +
		"    spills: Local Memory Size 32, Register Count 255\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := writeCompilerStats(&b, []results.Result{{Name: "none"}}); err != nil || b.Len() != 0 {
		t.Errorf("without statistics: %q, %v; want nothing", b.String(), err)
	}
}
