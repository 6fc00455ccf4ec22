package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// The manifests of testdata/manifests/ab are one operation, chain, whose
// kernel runs a number of fused multiply-adds that leave the input as it
// is: old.json 200, same.json 200 again, slower10.json 220, slower40.json
// 280, slower100.json 400, and wrong.json 200 that add 2^-20 each (a
// different result).

func abManifest(name string) string {
	return filepath.Join("..", "..", "testdata", "manifests", "ab", name)
}

// abQuick makes ab quick enough for the race detector: a small size, the
// fewest rounds that can decide, short, and no more (--max-time 0).
var abQuick = []string{"--size", "2048", "--count", "7", "--max-time", "0", "--budget", "200ms", "--min-samples", "10", "--max-samples", "60", "--quiet", "--cache", "off"}

func abArgs(old, cur string, extra ...string) []string {
	return append(append([]string{"ab", abManifest(old), abManifest(cur)}, abQuick...), extra...)
}

// abJSON runs ab with --format json, checks the report against its
// schema (results/schema/ab-v2.json) and decodes it.
func abJSON(t *testing.T, code int, args ...string) results.ABReport {
	t.Helper()
	r := mustRun(t, code, append(args, "--format", "json")...)
	validateAB(t, []byte(r.stdout))
	if _, err := results.ParseAB([]byte(r.stdout)); err != nil {
		t.Errorf("results.ParseAB: %v", err)
	}
	var rep results.ABReport
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("ab --format json: %v\n%s", err, r.stdout)
	}
	if rep.Schema != results.ABSchema || rep.Rounds < rep.MinRounds || (rep.MaxTime == 0 && rep.Rounds != rep.MinRounds) || rep.OnUnclear == "" {
		t.Errorf("report says schema %q, %d rounds of at least %d (max time %g s), on unclear %q; want %q, at least --count rounds (exactly, with --max-time 0), and what unclear does", rep.Schema, rep.Rounds, rep.MinRounds, rep.MaxTime, rep.OnUnclear, results.ABSchema)
	}
	return rep
}

func verdicts(rep results.ABReport) map[string]results.Verdict {
	m := map[string]results.Verdict{}
	for _, r := range rep.Rows {
		m[r.Candidate] = r.Verdict
	}
	return m
}

// TestABSame compares a manifest with a copy of itself: nothing is slower
// (exit status 0), every pair is verified, and each ratio is near 1.
func TestABSame(t *testing.T) {
	needDevice(t)
	rep := abJSON(t, exitOK, abArgs("old.json", "same.json")...)
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows, want 2 (wg64, wg256)", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		// Not a bound on the ratio itself: on a busy runner two identical
		// kernels measured 0.735 [0.504, 1.073], rightly unclear. What must
		// hold at any load is that the gate cries no wolf.
		if r.Verdict.Fails() || r.Verdict == results.Faster || !r.Verified || len(r.Rounds) != 7 || r.Lo > r.Ratio || r.Hi < r.Ratio {
			t.Errorf("%s: %s, verified %v, %d rounds, ratio %.3f [%.3f, %.3f]; want same (or not slower, or unclear), verified, 7 rounds, the ratio inside its bounds", r.Name, r.Verdict, r.Verified, len(r.Rounds), r.Ratio, r.Lo, r.Hi)
		}
	}
	r := mustRun(t, exitOK, abArgs("old.json", "same.json")...)
	if d := cmp.Diff([]string{"chain/f32/2048/wg64", "chain/f32/2048/wg256"}, tableNames(r.stdout)); d != "" {
		t.Errorf("the table's pairs (-want +got):\n%s\n%s", d, r.stdout)
	}
	for _, want := range []string{"new/old", "95% bounds", "none slower (the 95% bounds above +5.0%)", "new/old: the median of the rounds' ratios"} {
		if !strings.Contains(unwrapped(r.stdout), want) {
			t.Errorf("the table has no %q:\n%s", want, r.stdout)
		}
	}
}

// TestABSlower compares with a kernel doing twice the work: both pairs are
// slower, exit status 1, in one line on stderr; the JUnit and JSON files
// say so too.
func TestABSlower(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "ab.json")
	// Twice the work, from eight rounds on, adding rounds until both pairs
	// are decided: on a loaded machine eight rounds exactly left one
	// pair's bound at 0.967 (a round the load threw far out), and the gate
	// rightly said unclear. A busy runner takes longer instead. This test
	// is of the gate's logic on a regression past doubt; how small a
	// slowdown it tells from noise, bench/gate.sh measures.
	r := mustRun(t, exitRegression, abArgs("old.json", "slower100.json", "--count", "8", "--max-time", "3m", "--format", "json", "-o", out)...)
	if r.stdout != "" || r.stderr != "vkbench: ab: NEW: 2 slower than OLD by more than 5.0%\n" {
		t.Errorf("stdout %q, stderr %q; want only the line that says so", r.stdout, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	validateAB(t, data)
	var rep results.ABReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]results.Verdict{"wg64": results.Slower, "wg256": results.Slower}, verdicts(rep)); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	for _, row := range rep.Rows {
		// Twice the work, some of the time fixed: the interval must admit
		// a ratio of 2.4 or less; the median ratio need not be one.
		// lavapipe runs the kernels on CPU threads, which a busy machine
		// preempts more often in the longer kernel: at a load of 20 on two
		// cores, with GOMAXPROCS=1, a pair read 3.667 [1.885, 4.117], and
		// 6 of 18 more pairs 2.5 to 4.6, while the interval's lower end,
		// held down by the rounds the load spared, stayed at 1.07 to 1.86.
		if row.Lo <= 1.05 || row.Lo > 2.4 || row.Ratio < row.Lo || row.Ratio > row.Hi {
			t.Errorf("%s: ratio %.3f [%.3f, %.3f], want the interval above 1.05 and its lower end at most 2.4 (twice the work, some of the time fixed), the ratio inside it", row.Name, row.Ratio, row.Lo, row.Hi)
		}
		// The ratio is in the scale of the times it came from: within a
		// factor of 1.5 of the median of the rounds' NEW median over OLD
		// median (each round's two medians measured side by side), where
		// a squared ratio of twice the work is about 2 off. The two were
		// seen 1.28 apart at a load of 20, the ratio of a pair's passes
		// taking less of the load than its medians. The interval's bounds
		// above, wide on a busy machine, let a squared ratio through
		// there; NEW's median over OLD's across rounds, which the load
		// can take from different rounds, read 1.273 beside a ratio of
		// 1.729.
		var logs []float64
		for _, r := range row.Rounds {
			logs = append(logs, math.Log(r.New/r.Old))
		}
		medians := math.Exp(stats.Summarize(logs, 1).Median)
		if off := math.Exp(math.Abs(math.Log(row.Ratio / medians))); !(off <= 1.5) {
			t.Errorf("%s: ratio %.3f against the rounds' medians' %.3f: a factor of %.2f apart, want at most 1.5", row.Name, row.Ratio, medians, off)
		}
		t.Logf("%s: ratio %.3f [%.3f, %.3f] after %d rounds; the rounds' medians' %.3f", row.Name, row.Ratio, row.Lo, row.Hi, len(row.Rounds), medians)
	}
	// The same report as --format junit writes it.
	var buf bytes.Buffer
	if err := writeAB(&buf, "junit", &rep, 0); err != nil {
		t.Fatal(err)
	}
	data = buf.Bytes()
	var suite junitReport
	if err := xml.Unmarshal(data, &suite); err != nil {
		t.Fatalf("the JUnit file does not parse: %v\n%s", err, data)
	}
	if suite.Tests != 2 || suite.Failures != 2 {
		t.Errorf("JUnit: %d tests, %d failures; want 2, 2", suite.Tests, suite.Failures)
	}
	// A threshold above the slowdown forgives it.
	mustRun(t, exitOK, abArgs("old.json", "slower40.json", "--threshold", "80")...)
}

// TestABWrong: NEW computes something else than OLD on the same inputs,
// though it agrees with its own manifest's reference. ab's verification
// against OLD catches it: exit status 1, and where it differs.
func TestABWrong(t *testing.T) {
	needDevice(t)
	rep := abJSON(t, exitRegression, abArgs("old.json", "wrong.json")...)
	for _, row := range rep.Rows {
		if row.Verdict != results.Miscomputed || row.Verified || !strings.Contains(row.Note, "against old:"+row.Candidate) || !strings.Contains(row.Note, "y[") {
			t.Errorf("%s: %s (%s), verified %v; want wrong, against old's, naming the element", row.Name, row.Verdict, row.Note, row.Verified)
		}
	}
	r := vkbench(t, abArgs("old.json", "wrong.json")...)
	if r.stderr != "vkbench: ab: NEW: 2 computed a wrong result\n" {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestABUnpaired: candidates in one manifest only are listed, not
// measured, and fail nothing.
func TestABUnpaired(t *testing.T) {
	needDevice(t)
	data, err := os.ReadFile(abManifest("same.json"))
	if err != nil {
		t.Fatal(err)
	}
	spv, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests", "fma_iters.spv"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), `"../fma_iters.spv"`, `"`+spv+`"`)
	text = strings.Replace(text, `"name": "wg256"`, `"name": "wg128"`, 1)
	text = strings.Replace(text, `"workgroup": [
       256`, `"workgroup": [
       128`, 1)
	cur := filepath.Join(t.TempDir(), "renamed.json")
	if err := os.WriteFile(cur, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := abJSON(t, exitOK, append([]string{"ab", abManifest("old.json"), cur}, abQuick...)...)
	got := verdicts(rep)
	if got["wg256"] != results.OnlyOld || got["wg128"] != results.OnlyInNew || (got["wg64"].Fails() || got["wg64"] == results.Faster || got["wg64"] == results.OnlyOld || got["wg64"] == results.OnlyInNew) || rep.Unpaired != 2 {
		t.Errorf("verdicts %v, %d unpaired; want wg256 only in old, wg128 only in new, wg64 compared, 2 unpaired", got, rep.Unpaired)
	}
}

func TestABBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ab", abManifest("old.json")}, `ab takes two manifests, OLD and NEW`},
		{[]string{"ab", abManifest("old.json"), filepath.Join(dir, "none.json")}, `none.json`},
		{[]string{"ab", abManifest("old.json"), filepath.Join("..", "..", "testdata", "manifests", "kernels.json")}, `have no operation of the same name`},
		{[]string{"ab", abManifest("old.json"), abManifest("same.json"), "saxpy"}, `no operation "saxpy" in both manifests \(in both: chain\)`},
		{[]string{"ab", abManifest("old.json"), abManifest("same.json"), "--count", "0"}, `--count 0 is outside \[1, `},
		{[]string{"ab", abManifest("old.json"), abManifest("same.json"), "--max-time", "-1s"}, `--max-time -1s: want 0 or more`},
		{[]string{"ab", abManifest("old.json"), abManifest("same.json"), "--on-unclear", "ignore"}, `--on-unclear "ignore": want pass, warn or fail`},
		{[]string{"ab", abManifest("old.json"), abManifest("same.json"), "--threshold", "100"}, `--threshold 100 is outside \[0, 100\)`},
		// The flag as given, as compare says it, not after a round trip
		// through a fraction (-7.000000000000001).
		{[]string{"ab", abManifest("old.json"), abManifest("same.json"), "--threshold", "-7"}, `--threshold -7 is outside \[0, 100\)`},
		{[]string{"ab", abManifest("old.json"), abManifest("same.json"), "--format", "csv"}, `unknown --format "csv" \(want table, json or junit\)`},
		{[]string{"ab", abManifest("old.json"), abManifest("same.json"), "--size", "K=3"}, `"K" is neither an operation measured here \(chain\) nor a dimension of one \(N\)`},
	} {
		wantUsage(t, tc.want, tc.args...)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.json")); err == nil {
		t.Error("ab created a file")
	}
}

// abSchema is the JSON Schema of ab's report.
var abSchema = filepath.Join("..", "..", "results", "schema", "ab-v2.json")

// validateAB checks an ab report against its schema.
func validateAB(t *testing.T, data []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("ab's report is not JSON: %v\n%s", err, data)
	}
	if err := loadSchema(t, abSchema).Validate(inst); err != nil {
		t.Errorf("ab's report does not follow its schema: %v\n%s", err, data)
	}
}

// TestABSchemaIsStrict: the schema refuses a report with a field it does
// not know, a verdict it does not know, and one without its pairs.
func TestABSchemaIsStrict(t *testing.T) {
	s := loadSchema(t, abSchema)
	good := `{"schema": "vkbench.ab/v2", "vkbench_version": "x", "time": "2026-01-02T03:04:05Z", "old": "a.json", "new": "b.json",
		"device": {"index": 0, "name": "GPU", "hardware": "hw"}, "mode": "hot", "seed": 1, "rounds": 9, "min_rounds": 7, "max_time_s": 60, "on_unclear": "warn", "seconds": 8.5, "threshold": 0.05, "confidence": 0.95,
		"pairs": [{"name": "op/f32/1/c", "op": "op", "candidate": "c", "verdict": "same", "verified": true, "ratio": 1.01, "ratio_lo": 0.99, "ratio_hi": 1.03}],
		"slower": 0, "wrong": 0, "failed": 0, "unclear": 0, "unpaired": 0}`
	for name, doc := range map[string]string{
		"good":            good,
		"unknown field":   strings.Replace(good, `"seed": 1,`, `"seed": 1, "extra": true,`, 1),
		"unknown verdict": strings.Replace(good, `"verdict": "same"`, `"verdict": "fine"`, 1),
		"no pairs":        strings.Replace(good, `"pairs": [`, `"pears": [`, 1),
		"unknown choice":  strings.Replace(good, `"on_unclear": "warn"`, `"on_unclear": "ignore"`, 1),
		"v1":              strings.Replace(good, `"vkbench.ab/v2"`, `"vkbench.ab/v1"`, 1),
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Validate(inst); (err == nil) != (name == "good") {
			t.Errorf("%s: Validate = %v", name, err)
		}
	}
}

// TestABImages gates a manifest whose kernels read and write images:
// images.json against itself is no slowdown, every pair verified against
// OLD's output image; a NEW whose sampler filters nearest where OLD's
// filters linearly (self-consistent: its reference is the bilinear
// candidate itself) computes another image, and ab says so, naming dst.
func TestABImages(t *testing.T) {
	needDevice(t)
	src := filepath.Join("..", "..", "testdata", "manifests")
	dir := t.TempDir()
	for _, name := range []string{"downscale_fetch.spv", "downscale_sampled.spv", "downscale_storage.spv"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := filepath.Join(src, "images.json")
	nearest := filepath.Join(dir, "nearest.json")
	if err := os.WriteFile(nearest, []byte(`{"schema": "vkbench.manifest/v1", "operations": [{
  "name": "downscale", "dtype": "f32", "dims": {"W": 1920, "H": 1080},
  "buffers": [
    {"name": "src", "image": {"format": "rgba8", "width": "W", "height": "H"}, "binding": 0, "sampler": {"filter": "nearest", "address": "clamp"}},
    {"name": "dst", "image": {"format": "rgba8", "width": "W / 2", "height": "H / 2"}, "binding": 1, "role": "output"}],
  "verify": {"reference": "bilinear"},
  "candidates": [{"name": "bilinear", "spirv": "downscale_sampled.spv", "groups": ["div_up(W / 2, 16)", "div_up(H / 2, 16)"]}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	quick := []string{"--size", "W=128,H=64", "--count", "7", "--max-time", "0", "--budget", "200ms", "--min-samples", "10", "--max-samples", "40", "--quiet", "--cache", "off"}
	rep := abJSON(t, exitOK, append([]string{"ab", old, old}, quick...)...)
	if len(rep.Rows) != 3 {
		t.Fatalf("%d rows, want 3 (fetch, bilinear, storage)", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		if r.Verdict == results.Slower || r.Verdict == results.Miscomputed || !r.Verified {
			t.Errorf("%s: %s, verified %v; want not slower, verified against OLD's image", r.Name, r.Verdict, r.Verified)
		}
	}
	rep = abJSON(t, exitRegression, append([]string{"ab", old, nearest}, quick...)...)
	got := verdicts(rep)
	if got["bilinear"] != results.Miscomputed {
		t.Errorf("verdicts %v; want bilinear wrong (a nearest sampler where OLD's is linear)", got)
	}
	for _, r := range rep.Rows {
		if r.Candidate == "bilinear" && !strings.Contains(r.Note, "dst") {
			t.Errorf("bilinear's note %q does not name the image dst", r.Note)
		}
	}
}

// TestABSequential: without --max-time 0, rounds are added until every
// pair is decided, and no more: twice the work is slower from the seventh
// round, where a 95% bound can first decide, and the round before the
// last left a pair undecided, its bounds across the threshold. How many
// rounds that takes is the machine's: a quiet one decides at the seventh
// or soon after, and a busy one later (46 rounds, at a load of 20 on two
// cores with GOMAXPROCS=1, where a cap of 30 failed the test).
func TestABSequential(t *testing.T) {
	needDevice(t)
	rep := abJSON(t, exitRegression, abArgs("old.json", "slower100.json", "--count", "1", "--max-time", "10m")...)
	if rep.MinRounds != 1 || rep.Rounds < results.MinSequentialRounds {
		t.Errorf("%d rounds of at least %d; want %d or more, where a 95%% bound can first decide", rep.Rounds, rep.MinRounds, results.MinSequentialRounds)
	}
	undecided := false
	for _, row := range rep.Rows {
		if row.Verdict != results.Slower || len(row.Rounds) > rep.Rounds || row.Seconds <= 0 || row.Seconds > rep.Seconds {
			t.Errorf("%s: %s after %d rounds in %.1f s (of %.1f s); want slower, its time within the run's", row.Name, row.Verdict, len(row.Rounds), row.Seconds, rep.Seconds)
		}
		var logs []float64
		for _, r := range row.Rounds[:max(len(row.Rounds)-1, 0)] {
			logs = append(logs, math.Log(r.Ratio))
		}
		lo, hi := results.MedianBounds(logs, stats.Confidence)
		undecided = undecided || math.Exp(lo) <= 1+rep.Threshold && math.Exp(hi) > 1+rep.Threshold
		t.Logf("%s: ratio %.3f [%.3f, %.3f] after %d rounds; [%.3f, %.3f] a round before", row.Name, row.Ratio, row.Lo, row.Hi, len(row.Rounds), math.Exp(lo), math.Exp(hi))
	}
	if !undecided {
		t.Errorf("every pair was decided a round before the last of %d: ab measured a round more than it needed", rep.Rounds)
	}
}

// TestABUnclear: a pair that could not be decided (two rounds, where a
// 95% bound needs seven) is never silent. With --on-unclear warn (the
// default) it exits 0 with a warning on stderr; under GitHub Actions an
// annotation goes to standard output, where the report (in -o) is not;
// JUnit marks the pair skipped, saying why. With fail it exits 1, the
// annotation an error and the JUnit case a failure; with pass, nothing on
// stderr, but the report still says it.
func TestABUnclear(t *testing.T) {
	needDevice(t)
	t.Setenv("GITHUB_ACTIONS", "true")
	dir := t.TempDir()
	for _, c := range []struct {
		choice     string
		code       int
		annotation string // "" for none
		stderr     string
	}{
		{"warn", exitOK, "::warning title=vkbench ab::" + actionsEscape(unclearSaid("chain/f32/2048/wg64", "chain/f32/2048/wg256"), false) + "\n", "vkbench: warning: ab: " + unclearSaid("chain/f32/2048/wg64", "chain/f32/2048/wg256")},
		{"fail", exitRegression, "::error title=vkbench ab%3A chain/f32/2048/wg64::unclear (too few rounds for a 95%25 bound (7 or more))\n", "vkbench: ab: unclear: chain/f32/2048/wg256: too few rounds for a 95% bound (7 or more) after 2 rounds"},
		{"pass", exitOK, "", ""},
	} {
		t.Run(c.choice, func(t *testing.T) {
			out := filepath.Join(dir, c.choice+".xml")
			r := mustRun(t, c.code, abArgs("old.json", "same.json", "--count", "2", "--budget", "100ms", "--on-unclear", c.choice, "--format", "junit", "-o", out)...)
			if !strings.Contains(r.stdout, c.annotation) || (c.annotation == "") != (r.stdout == "") {
				t.Errorf("stdout %q; want the annotation %q", r.stdout, c.annotation)
			}
			if !strings.Contains(strings.Join(strings.Fields(r.stderr), " "), c.stderr) || (c.stderr == "") != (r.stderr == "") {
				t.Errorf("stderr %q; want %q", r.stderr, c.stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var suite junitReport
			if err := xml.Unmarshal(data, &suite); err != nil {
				t.Fatalf("the JUnit file does not parse: %v\n%s", err, data)
			}
			failures, skipped := 0, 2
			if c.choice == "fail" {
				failures, skipped = 2, 0
			}
			if suite.Tests != 2 || suite.Failures != failures || suite.Skipped != skipped || !strings.Contains(string(data), `message="unclear (too few rounds for a 95% bound`) {
				t.Errorf("JUnit: %d tests, %d failures, %d skipped; want 2, %d, %d, each saying why\n%s", suite.Tests, suite.Failures, suite.Skipped, failures, skipped, data)
			}
			for _, tc := range suite.Cases {
				if tc.Time == "" {
					t.Errorf("JUnit case %s has no time", tc.Name)
				}
			}
		})
	}
	// Without -o the report is on standard output: the annotations go to
	// stderr, which Actions reads too, and the JSON stays JSON.
	r := mustRun(t, exitOK, abArgs("old.json", "same.json", "--count", "2", "--budget", "100ms", "--format", "json")...)
	validateAB(t, []byte(r.stdout))
	if !strings.Contains(r.stderr, "::warning title=vkbench ab::2 benchmarks unclear") {
		t.Errorf("stderr %q; want the annotations", r.stderr)
	}
}

// TestActionsEscape: an annotation's message and title are escaped as
// GitHub Actions unescapes them.
func TestActionsEscape(t *testing.T) {
	if got := actionsEscape("95% of a\nb", false); got != "95%25 of a%0Ab" {
		t.Errorf("message: %q", got)
	}
	if got := actionsEscape("ab: x, y", true); got != "ab%3A x%2C y" {
		t.Errorf("property: %q", got)
	}
}

// TestABTable: ab's table, of a real run's report, its pairs renamed as a
// long operation's, keeps to a terminal's columns: the header in short
// lines, each pair a line, its name whole under a heading of its
// operation, type and size, its verdict short with the note under the
// table, and the legend wrapped as prose (its lines were 125 and 293
// columns). A candidate's name too long for the columns widens the table,
// whole, rather than be cut. Its JUnit cases are of class vkbench.ab,
// each saying its row's figures (a pair without a ratio said "new/old
// 0.000").
func TestABTable(t *testing.T) {
	data, err := os.ReadFile(cliData("ab-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := results.ParseAB(data)
	if err != nil {
		t.Fatal(err)
	}
	long := "fused-multiply-add-chain-of-a-long-name/f32/1048576x4096/"
	for _, cand := range []string{"tiled-32x32-unroll4-", strings.Repeat("x", 90)} {
		var want []string
		for i, row := range rep.Rows {
			rep.Rows[i].Name = long + cand + row.Candidate
			want = append(want, rep.Rows[i].Name)
		}
		var b bytes.Buffer
		if err := writeAB(&b, "table", rep, 0); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if d := cmp.Diff(want, tableNames(out)); d != "" {
			t.Errorf("the table's pairs (-want +got):\n%s\n%s", d, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > columns && len(cand) < 40 {
				t.Errorf("a line of %d columns, over %d: %q", n, columns, line)
			}
		}
		for i, row := range rep.Rows {
			if mark := fmt.Sprintf("[%d]", i+1); !strings.Contains(out, fmt.Sprintf("  %s %s\n", row.Verdict, mark)) || !strings.Contains(out, "\n"+mark+" "+row.Note+"\n") {
				t.Errorf("%s: no verdict %s marked %s, its note under the table:\n%s", row.Name, row.Verdict, mark, out)
			}
		}
	}
	// --max-time 0 measures exactly --count rounds: no time limit to name.
	for maxTime, want := range map[float64]string{60: "none started after 1m0s)", 0: "no more: --max-time 0)"} {
		rep.MaxTime = maxTime
		var b bytes.Buffer
		if err := writeAB(&b, "table", rep, 0); err != nil || !strings.Contains(b.String(), want) {
			t.Errorf("with a max time of %g s, the header does not say %q (%v):\n%s", maxTime, want, err, b.String())
		}
	}
	// A case says its row's figures; a pair without them, dashes.
	rep.AddUnpaired(long+"wg128", "chain", "wg128", results.OnlyOld)
	var b bytes.Buffer
	if err := writeAB(&b, "junit", rep, 0); err != nil {
		t.Fatal(err)
	}
	var suite junitReport
	if err := xml.Unmarshal(b.Bytes(), &suite); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range suite.Cases {
		got = append(got, c.Out)
		if c.Class != "vkbench.ab" {
			t.Errorf("%s: class %q, want vkbench.ab", c.Name, c.Class)
		}
	}
	want := []string{
		"old 412.26µs, new 443.67µs, new/old 1.084, 95% bounds [0.714, 1.107], rounds 7: unclear (" + rep.Rows[0].Note + ")",
		"old 383.17µs, new 443.06µs, new/old 1.101, 95% bounds [1.080, 2.788], rounds 7: slower (" + rep.Rows[1].Note + ")",
		"old -, new -, new/old -, 95% bounds -, rounds -: only in old",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the cases' output (-want +got):\n%s", d)
	}
	if suite.Name != "vkbench ab" || len(suite.Cases) != 3 || suite.Failures != 1 || suite.Skipped != 2 {
		t.Errorf("suite %q of %d cases, %d failures, %d skipped; want vkbench ab, 3, 1 (slower), 2 (unclear, only in old)", suite.Name, len(suite.Cases), suite.Failures, suite.Skipped)
	}
}

// TestABTableBounds: ab's table shows a pair's bounds where the report's
// page does (results.ABRow.HasBounds): not for a file that gives only the
// upper one, where it printed "[0.000, 1.100]".
func TestABTableBounds(t *testing.T) {
	tab := abTable(&results.ABReport{Rows: []results.ABRow{{Name: "a", Ratio: 1, Lo: 0.9, Hi: 1.1}, {Name: "b", Ratio: 1, Hi: 1.1}}})
	if got := [2]string{tab.rows[0].cells[3], tab.rows[1].cells[3]}; got != [2]string{"[0.900, 1.100]", "-"} {
		t.Errorf("bounds %q; want [0.900, 1.100] and -", got)
	}
}

// unclearSaid is what --on-unclear warn says of the benchmarks names,
// on stderr and in its one annotation.
func unclearSaid(names ...string) string {
	return plural(len(names), "benchmark", "benchmarks") + " unclear (the report says why of each): " + strings.Join(names, ", ")
}

// TestUnclearSaidOnce: with --on-unclear warn, a gate says once what it
// could not decide, on stderr wrapped to the columns and, under GitHub
// Actions, in one ::warning annotation of one line, naming them all (a
// busy runner left dozens, each of 2-3 lines and an annotation, and
// Actions shows about ten a step); a row that fails the gate keeps an
// ::error of its own. With fail each undecided row is said, and is an
// ::error, as a failure of the job deserves.
func TestUnclearSaidOnce(t *testing.T) {
	note := "a slowdown of up to 12.3% could not be ruled out (threshold 5.0%); new measured while the GPU throttled, its clocks moved"
	r := &results.ABReport{Rows: []results.ABRow{{Name: "copy/u32/4096/vec4", Verdict: results.Slower, Note: "slower by 9%"}}}
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("transpose-shared/f32/4096x4096/tile32-padded-wg%d", 32*(i+1)))
		r.Rows = append(r.Rows, results.ABRow{Name: names[i], Verdict: results.Unclear, Note: note, Rounds: make([]results.ABRound, 9), Seconds: 41})
	}
	for _, actions := range []string{"", "true"} {
		t.Setenv("GITHUB_ACTIONS", actions)
		for _, onUnclear := range []string{results.UnclearWarns, results.UnclearFails} {
			r.OnUnclear = onUnclear
			cmd := &cobra.Command{}
			var stderr bytes.Buffer
			cmd.SetErr(&stderr)
			warnUnclear(cmd, "ab", r.OnUnclear, abTable(r)) // no -o: the annotations go to stderr too
			var said, annotations []string
			for _, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
				if strings.HasPrefix(line, "::") {
					annotations = append(annotations, line)
					continue
				}
				if n := utf8.RuneCountInString(line); n > columns {
					t.Errorf("%s: a line of %d columns: %q", onUnclear, n, line)
				}
				said = append(said, line)
			}
			got := strings.Join(strings.Fields(strings.Join(said, " ")), " ")
			var want, wantAnnotations []string
			if actions != "" {
				wantAnnotations = []string{"::error title=vkbench ab%3A copy/u32/4096/vec4::slower (slower by 9%25)"}
			}
			if onUnclear == results.UnclearWarns {
				want = []string{"vkbench: warning: ab: " + unclearSaid(names...)}
				if actions != "" {
					wantAnnotations = append(wantAnnotations, "::warning title=vkbench ab::"+actionsEscape(unclearSaid(names...), false))
				}
			} else {
				for i, name := range names {
					want = append(want, "vkbench: ab: unclear: "+name+": "+r.Rows[i+1].Undecided())
					if actions != "" {
						wantAnnotations = append(wantAnnotations, "::error title="+actionsEscape("vkbench ab: "+name, true)+"::unclear ("+actionsEscape(note, false)+")")
					}
				}
			}
			if got != strings.Join(want, " ") || len(said) < 2 {
				t.Errorf("GITHUB_ACTIONS=%q, %s: stderr in %d lines reads %q; want %q wrapped", actions, onUnclear, len(said), got, want)
			}
			if d := cmp.Diff(wantAnnotations, annotations); d != "" {
				t.Errorf("GITHUB_ACTIONS=%q, %s: annotations (-want +got):\n%s", actions, onUnclear, d)
			}
		}
	}
}

// TestABHeaderWrapped: ab's lines above its table are wrapped at the
// table's width, as its notes are: on a terminal of 50 columns the
// device's line was cut, its driver lost to an ellipsis, and the rounds'
// line ran past the edge.
func TestABHeaderWrapped(t *testing.T) {
	data, err := os.ReadFile(cliData("ab-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := results.ParseAB(data)
	if err != nil {
		t.Fatal(err)
	}
	rep.Device.Name, rep.Device.Driver = "NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA 580.65.06"
	device := "device 0: NVIDIA GeForce RTX 4090 Laptop GPU (NVIDIA 580.65.06), hot mode"
	for _, width := range []tableWidth{0, 50} {
		var b bytes.Buffer
		if err := writeAB(&b, "table", rep, width); err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(b.String(), "\n\n")
		if !strings.Contains(unwrapped(head), "\n"+device+"\n") {
			t.Errorf("width %d: the device's line is not there whole:\n%s", width, head)
		}
		for _, line := range strings.Split(head, "\n") {
			if n := utf8.RuneCountInString(line); n > width.lineWidth() {
				t.Errorf("width %d: a line of %d columns: %q", width, n, line)
			}
		}
	}
}

// TestABSummary: the line under ab's table counts the pairs slower, or
// says none, and of the others only the counts that are not 0, as a
// sentence: it read "2 slower (...), 0 wrong, 0 failed, 0 unclear, 0 not
// paired".
func TestABSummary(t *testing.T) {
	for _, c := range []struct {
		rep  results.ABReport
		want string
	}{
		{results.ABReport{Threshold: 0.05}, "\nnone slower (the 95% bounds above +5.0%)\n"},
		{results.ABReport{Threshold: 0.05, Slower: 2}, "\n2 slower (the 95% bounds above +5.0%)\n"},
		{results.ABReport{Threshold: 0.05, Unclear: 1}, "\nnone slower (the 95% bounds above +5.0%) and 1 unclear\n"},
		{results.ABReport{Threshold: 0.1, Slower: 1, Wrong: 2, Failed: 1, Unpaired: 3}, "\n1 slower (the 95% bounds above +10.0%), 2 wrong, 1 failed and 3 not paired\n"},
		{results.ABReport{Threshold: 0.05, Unmeasured: 1, Unpaired: 2}, "\nnone slower (the 95% bounds above +5.0%), 1 not measured and 2 not paired\n"},
	} {
		var b bytes.Buffer
		if err := writeAB(&b, "table", &c.rep, 0); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(unwrapped(b.String()), c.want) {
			t.Errorf("%+v: the summary is not %q:\n%s", c.rep, strings.TrimSpace(c.want), b.String())
		}
	}
}

// TestABOperationTooLarge: an operation whose buffers exceed what the
// device can bind at its size (OUT_OF_RANGE) is reported not measured,
// saying why once, of the operation, the other operation is measured and
// reported, -o's file is written, and the status is 1, as run's is; the
// table's closing line and the JSON's counts say "not measured". ab
// exited 2 with no report; then counted the pair "not paired", and said
// "failed in old and new: ...: preparing old: ..." (stderr "preparing
// old" too), the one error of whichever version was prepared first.
func TestABOperationTooLarge(t *testing.T) {
	needDevice(t)
	huge := strings.Replace(saxpyOp("huge", "scalar", scalarCand), `"N": 4096`, `"N": 1000000000`, 1)
	m := writeManifest(t, "ab.json", "", saxpyOp("small", "scalar", scalarCand), huge)
	out := filepath.Join(t.TempDir(), "ab.json")
	r := mustRun(t, exitRegression, "ab", m, m, "--count", "1", "--max-time", "0", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6",
		"--quiet", "--cache", "off", "--format", "json", "-o", out)
	if !strings.Contains(r.stderr, "could not measure huge at 1000000000: manifest: buffer x needs 4000000000 bytes, past the device's maxStorageBufferRange") {
		t.Errorf("stderr does not say which operation could not be measured, and why:\n%s", r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("-o's file: %v", err)
	}
	rep, err := results.ParseAB(data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]results.Verdict{}
	const why = "the operation could not run: OUT_OF_RANGE: manifest: buffer x needs 4000000000 bytes, past the device's maxStorageBufferRange of "
	for _, row := range rep.Rows {
		got[row.Op] = row.Verdict
		if row.Op == "huge" && !strings.HasPrefix(row.Note, why) {
			t.Errorf("huge's note does not say why once, of the operation: %q", row.Note)
		}
	}
	if len(rep.Rows) != 2 || got["huge"] != results.NotMeasured || got["small"] == results.NotMeasured || got["small"] == "" {
		t.Errorf("the report's pairs: %v; want small measured, huge not measured", got)
	}
	if rep.Unmeasured != 1 || rep.Unpaired != 0 {
		t.Errorf("the report counts %d not measured, %d unpaired; want 1, 0", rep.Unmeasured, rep.Unpaired)
	}
	r = mustRun(t, exitRegression, "ab", m, m, "--count", "1", "--max-time", "0", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6",
		"--quiet", "--cache", "off")
	if s := unwrapped(r.stdout); !regexp.MustCompile(`\(the 95% bounds above \+5\.0%\)(, 1 unclear)? and 1 not measured\n`).MatchString(s) ||
		!strings.Contains(s, "] the operation could not run: manifest: buffer x needs 4000000000 bytes, past ") || strings.Contains(s, "preparing old") || strings.Contains(s, "in old and new") {
		t.Errorf("the table does not say once why huge was not measured, and count it so:\n%s", r.stdout)
	}
}
