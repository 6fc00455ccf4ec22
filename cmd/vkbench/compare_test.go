package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/results"
)

// The files in testdata/compare are crafted: five rounds of two samples
// per benchmark, either tight (±0.5% around the median) or noisy (-45% to
// +60%).
//
//	base.json           vec4 100µs and scalar 150µs tight; broken failed;
//	                    gone 200µs
//	slower.json         vec4 110µs tight (a real 10% regression)
//	faster.json         vec4 90µs tight (a 10% improvement)
//	noisy-base.json     vec4 100µs noisy
//	noisy-new.json      vec4 110µs noisy: the same medians as base/slower,
//	                    but no significant change
//	mismatched.json     scalar unsupported, broken now measured, gone
//	                    missing, added new
//	base.txt            base.json's vec4 and scalar in Go benchmark format,
//	                    one line (one round) a sample
//	v1-base.json        base.json and slower.json in the first version of
//	v1-slower.json      the format: one round each
//	malformed.json      cut short
//	wrong-schema.json   schema vkbench.results/v0

func compareJSON(t testing.TB, base, cur string) results.Report {
	t.Helper()
	r := vkbench(t, "compare", "--format", "json", compareData(base), compareData(cur))
	validateAgainst(t, "compare-v1.json", []byte(r.stdout))
	var rep results.Report
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("compare --format json: %v\n%s", err, r.stdout)
	}
	return rep
}

func row(t testing.TB, rep results.Report, name string) results.Row {
	t.Helper()
	for _, r := range rep.Rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no row %s in %+v", name, rep.Rows)
	return results.Row{}
}

func TestCompareRegression(t *testing.T) {
	r := mustRun(t, exitRegression, "compare", compareData("base.json"), compareData("slower.json"))
	golden(t, "compare-slower-table", r.stdout)
	if r.stderr != "vkbench: 1 benchmark regressed\n" {
		t.Errorf("stderr %q, want the one line that says so", r.stderr)
	}
	rep := compareJSON(t, "base.json", "slower.json")
	vec4 := row(t, rep, "copy/u32/4096/vec4")
	if vec4.Verdict != results.Slower || math.Abs(vec4.Delta-0.10) > 0.001 || vec4.P >= 0.05 {
		t.Errorf("vec4: %+v, want slower by 10%% with p < 0.05", vec4)
	}
	if s := row(t, rep, "copy/u32/4096/scalar"); s.Verdict != results.Same {
		t.Errorf("scalar: %+v, want no change", s)
	}
	if rep.Regressions != 1 {
		t.Errorf("%d regressions, want 1", rep.Regressions)
	}
	// A higher threshold forgives 10%.
	mustRun(t, exitOK, "compare", "--threshold", "15", compareData("base.json"), compareData("slower.json"))
}

func TestCompareNoise(t *testing.T) {
	r := mustRun(t, exitOK, "compare", compareData("noisy-base.json"), compareData("noisy-new.json"))
	golden(t, "compare-noisy-table", r.stdout)
	// Undecided, it reads as ab's: unclear, not "~" (no change).
	if !strings.Contains(r.stdout, "  5+5     unclear\n") {
		t.Errorf("the undecided row does not say unclear:\n%s", r.stdout)
	}
	rep := compareJSON(t, "noisy-base.json", "noisy-new.json")
	vec4 := row(t, rep, "copy/u32/4096/vec4")
	if vec4.Verdict != results.Same || vec4.P < 0.05 || math.Abs(vec4.Delta-0.10) > 0.001 {
		t.Errorf("vec4: %+v, want the same 10%% slower median judged no change (p >= 0.05)", vec4)
	}
}

func TestCompareImprovement(t *testing.T) {
	r := mustRun(t, exitOK, "compare", compareData("base.json"), compareData("faster.json"))
	golden(t, "compare-faster-table", r.stdout)
	rep := compareJSON(t, "base.json", "faster.json")
	if vec4 := row(t, rep, "copy/u32/4096/vec4"); vec4.Verdict != results.Faster {
		t.Errorf("vec4: %+v, want faster", vec4)
	}
}

func TestCompareMismatched(t *testing.T) {
	for _, format := range []string{"table", "json", "junit"} {
		t.Run(format, func(t *testing.T) {
			r := mustRun(t, exitOK, "compare", "--format", format, compareData("base.json"), compareData("mismatched.json"))
			golden(t, "compare-mismatched-"+format, r.stdout)
			names := []string{"copy/u32/4096/vec4", "copy/u32/4096/scalar", "copy/u32/4096/broken", "copy/u32/4096/gone", "copy/u32/4096/added"}
			if format == "table" {
				if d := cmp.Diff(names, tableNames(r.stdout)); d != "" {
					t.Errorf("the table's benchmarks (-want +got):\n%s\n%s", d, r.stdout)
				}
				return
			}
			for _, name := range names {
				if !strings.Contains(r.stdout, name) {
					t.Errorf("%s is not reported:\n%s", name, r.stdout)
				}
			}
		})
	}
	rep := compareJSON(t, "base.json", "mismatched.json")
	want := map[string]results.Verdict{
		"copy/u32/4096/vec4":   results.Same,
		"copy/u32/4096/scalar": results.NotMeasured, // unsupported in new
		"copy/u32/4096/broken": results.NotMeasured, // failed in base
		"copy/u32/4096/gone":   results.OnlyBase,
		"copy/u32/4096/added":  results.OnlyNew,
	}
	for name, v := range want {
		if got := row(t, rep, name).Verdict; got != v {
			t.Errorf("%s: verdict %q, want %q", name, got, v)
		}
	}
	if rep.Missing != 4 || len(rep.Rows) != 5 {
		t.Errorf("%d rows, %d missing; want 5 rows, 4 missing", len(rep.Rows), rep.Missing)
	}
	// A CI job that must notice a benchmark gone asks for it.
	r := mustRun(t, exitRegression, "compare", "--fail-on-missing", compareData("base.json"), compareData("mismatched.json"))
	if r.stderr != "vkbench: 4 benchmarks missing or not measured (--fail-on-missing)\n" {
		t.Errorf("stderr %q, want the missing count", r.stderr)
	}
	mustRun(t, exitOK, "compare", "--fail-on-missing", compareData("noisy-base.json"), compareData("noisy-new.json"))
	r = mustRun(t, exitRegression, "compare", "--fail-on-missing", compareData("base.json"), compareData("slower.json"))
	if !strings.Contains(r.stderr, "1 benchmark regressed, 1 missing or not measured") {
		t.Errorf("stderr %q, want the regression and the missing benchmark counted", r.stderr)
	}
}

// junitReport is what CI systems read from JUnit XML.
type junitReport struct {
	XMLName  xml.Name `xml:"testsuite"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Cases    []struct {
		Name    string `xml:"name,attr"`
		Class   string `xml:"classname,attr"`
		Time    string `xml:"time,attr"`
		Failure *struct {
			Message string `xml:"message,attr"`
		} `xml:"failure"`
		Skipped *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		Out string `xml:"system-out"`
	} `xml:"testcase"`
}

func TestCompareJUnit(t *testing.T) {
	for _, tc := range []struct {
		base, cur                string
		code                     int
		tests, failures, skipped int
	}{
		{"base.json", "slower.json", exitRegression, 4, 1, 1}, // broken failed in both
		{"base.json", "faster.json", exitOK, 4, 0, 1},
		{"base.json", "mismatched.json", exitOK, 5, 0, 4},
	} {
		t.Run(tc.cur, func(t *testing.T) {
			r := mustRun(t, tc.code, "compare", "--format", "junit", compareData(tc.base), compareData(tc.cur))
			if !strings.HasPrefix(r.stdout, xml.Header) {
				t.Errorf("no XML declaration:\n%s", r.stdout)
			}
			var rep junitReport
			if err := xml.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("the JUnit XML does not parse: %v\n%s", err, r.stdout)
			}
			failures, skipped := 0, 0
			for _, c := range rep.Cases {
				if c.Failure != nil {
					failures++
				}
				if c.Skipped != nil {
					skipped++
				}
				if c.Name == "" || c.Out == "" || c.Class != "vkbench.compare" {
					t.Errorf("test case without a name or output, or not of class vkbench.compare: %+v", c)
				}
			}
			if rep.Tests != tc.tests || len(rep.Cases) != tc.tests || rep.Failures != tc.failures || failures != tc.failures || rep.Skipped != tc.skipped || skipped != tc.skipped {
				t.Errorf("tests=%d (%d cases) failures=%d (%d) skipped=%d (%d); want %d, %d, %d",
					rep.Tests, len(rep.Cases), rep.Failures, failures, rep.Skipped, skipped, tc.tests, tc.failures, tc.skipped)
			}
		})
	}
	r := mustRun(t, exitRegression, "compare", "--format", "junit", compareData("base.json"), compareData("slower.json"))
	golden(t, "compare-slower-junit", r.stdout)
	r = mustRun(t, exitRegression, "compare", "--format", "json", compareData("base.json"), compareData("slower.json"))
	golden(t, "compare-slower-json", r.stdout)
}

func TestCompareGoBenchFormat(t *testing.T) {
	// base.txt holds base.json's vec4 and scalar, one Go benchmark line a
	// sample: each line a round, as benchstat reads go test -count, so the
	// regression is found the same way.
	r := mustRun(t, exitRegression, "compare", compareData("base.txt"), compareData("slower.json"))
	golden(t, "compare-gobench-table", r.stdout)
	rep := compareJSON(t, "base.txt", "slower.json")
	if v := row(t, rep, "copy/u32/4096/vec4").Verdict; v != results.Slower {
		t.Errorf("vec4 from Go benchmark format: %q, want slower", v)
	}
	if v := row(t, rep, "copy/u32/4096/gone").Verdict; v != results.OnlyNew {
		t.Errorf("gone: %q, want %q", v, results.OnlyNew)
	}
}

// TestCompareRealRun compares a real run of five rounds with itself:
// nothing regresses.
func TestCompareRealRun(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	cache := dir + "/cache.db"
	file := dir + "/run.json"
	mustRun(t, 0, args("run", "--cache", cache, "--format", "json", "--output", file, "--count", "5")...)
	mustRun(t, exitOK, "compare", file, file)
	r := mustRun(t, exitOK, "compare", "--format", "json", file, file)
	validateAgainst(t, "compare-v1.json", []byte(r.stdout))
	var rep results.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, row := range rep.Rows {
		if row.Verdict != results.Same {
			t.Errorf("%s compared with itself: %q", row.Name, row.Verdict)
		}
	}
}

// TestCompareOneRound compares files of one round each, as the first
// version of the format and run without --count give: their samples say
// nothing of how much a run differs from the next, so no verdict is given;
// one line says what to do, and the exit status is 2, not 0 (nothing was
// shown not to regress) and not 1 (nothing was shown to).
func TestCompareOneRound(t *testing.T) {
	for _, files := range [][2]string{{"v1-base.json", "v1-slower.json"}, {"v1-base.json", "v1-base.json"}} {
		r := vkbench(t, "compare", compareData(files[0]), compareData(files[1]))
		if r.code != exitUsage {
			t.Errorf("compare %s %s: exit status %d, want %d\n%s%s", files[0], files[1], r.code, exitUsage, r.stdout, r.stderr)
		}
		checkOneLine(t, r, regexp.MustCompile(`cannot judge significance: 1 round in base, 1 round in new: .* measure both with --count 5 or more, or gate with vkbench ab`))
	}
	// One file of several rounds against one of one: still too few.
	r := vkbench(t, "compare", compareData("base.json"), compareData("v1-slower.json"))
	if r.code != exitUsage {
		t.Errorf("5 rounds against 1: exit status %d, want %d", r.code, exitUsage)
	}
}

// scaledRun writes a copy of the crafted file name whose every round is
// factor times as long: another run of the same kernels, for pooling.
func scaledRun(t *testing.T, name string, factor float64) string {
	return editedRun(t, name, func(b *results.Benchmark) {
		for j := range b.Rounds {
			r := &b.Rounds[j]
			r.Median, r.Lo, r.Hi, r.Min, r.Max = factor*r.Median, factor*r.Lo, factor*r.Hi, factor*r.Min, factor*r.Max
			for k := range r.Samples {
				r.Samples[k] *= factor
			}
		}
	})
}

// editedRun writes a copy of the crafted file name with edit applied to
// every benchmark, and returns its path.
func editedRun(t *testing.T, name string, edit func(*results.Benchmark)) string {
	t.Helper()
	f, err := results.ReadFile(compareData(name))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Benchmarks {
		edit(&f.Benchmarks[i])
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestComparePooled: BASE... -- NEW... pools each side's runs, each run
// one value (the mean of its rounds): two runs of a kernel 10% slower
// against two of the base are one regression over 10+10 rounds; a slower
// and a faster run pooled against the base are not; one run given twice
// is refused.
func TestComparePooled(t *testing.T) {
	base, slower, faster := compareData("base.json"), compareData("slower.json"), compareData("faster.json")
	r := mustRun(t, exitRegression, "compare", base, scaledRun(t, "base.json", 1.01), "--", slower, scaledRun(t, "slower.json", 0.99))
	if !regexp.MustCompile(`  10\+10 +slower\n`).MatchString(r.stdout) {
		t.Errorf("two runs a side: no slower verdict over 10+10 rounds:\n%s", r.stdout)
	}
	r = mustRun(t, exitOK, "compare", base, scaledRun(t, "base.json", 1.01), "--", slower, faster)
	if strings.Contains(r.stdout, " slower") {
		t.Errorf("a slower and a faster run pooled: a slower verdict:\n%s", r.stdout)
	}
	// One run given twice on a side, by its path or a copy's, is not two
	// runs: their means do not differ at all. The noisy files, whose
	// rounds cannot show their 10% (TestCompareNoise), each given twice,
	// were 'slower' at p < 0.001.
	noisy := compareData("noisy-base.json")
	copied := filepath.Join(t.TempDir(), "copy.json")
	data, err := os.ReadFile(noisy)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, side := range [][]string{{noisy, noisy}, {noisy, copied}} {
		wantUsage(t, `^vkbench: (INVALID_ARGUMENT: )?merging .*: results: Merge: files 1 and 2 are one run \(the same results\): the runs pooled must be separate runs`,
			slices.Concat([]string{"compare"}, side, []string{"--", compareData("noisy-new.json"), compareData("noisy-new.json")})...)
	}
}

// TestCompareJUnitSaysWhatCouldNotShow: where the rounds were too
// scattered for a --threshold slowdown to show, the JUnit file says so, as
// the table does: such a benchmark is skipped with how large a change
// could have shown, and the suite carries the notes, so that CI does not
// see a plain pass.
func TestCompareJUnitSaysWhatCouldNotShow(t *testing.T) {
	table := mustRun(t, exitOK, "compare", compareData("noisy-base.json"), compareData("noisy-new.json"))
	if !strings.Contains(table.stdout, "only a change of about") {
		t.Fatalf("the noisy files are quiet enough for a slowdown of the threshold to show:\n%s", table.stdout)
	}
	r := mustRun(t, exitOK, "compare", "--format", "junit", compareData("noisy-base.json"), compareData("noisy-new.json"))
	var suite junitReport
	if err := xml.Unmarshal([]byte(r.stdout), &suite); err != nil {
		t.Fatal(err)
	}
	if suite.Skipped == 0 || !strings.Contains(r.stdout, "only a change of about") || !strings.Contains(r.stdout, "regression may have passed") {
		t.Errorf("the JUnit file does not say what could not show (%d skipped):\n%s", suite.Skipped, r.stdout)
	}
	for _, c := range suite.Cases {
		if c.Skipped != nil && !strings.Contains(c.Skipped.Message, "could show") {
			t.Errorf("%s skipped: %q", c.Name, c.Skipped.Message)
		}
	}
}

// TestCompareOnUnclear: --on-unclear does for compare what it does for
// ab. On the noisy files, whose rounds could not have shown a 5%
// slowdown, warn (the default) exits 0, warning on stderr and, under
// GitHub Actions, with a ::warning annotation; fail exits 1, naming the
// benchmark and what could not be ruled out, the annotation an ::error
// and the JUnit case a failure; pass says nothing on stderr. compare
// exited 0 whatever was asked: a real 10% slowdown passed on a busy
// machine. Files that decide every benchmark pass with fail too.
func TestCompareOnUnclear(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	noisy := []string{compareData("noisy-base.json"), compareData("noisy-new.json")}
	title := "title=vkbench compare%3A copy/u32/4096/vec4::"
	undecided := "compare: unclear: copy/u32/4096/vec4: a slowdown of 5.0% could not be ruled out: with these rounds' spread only a change of about 61.9% or more could show (5+5 rounds)"
	warning := "::warning title=vkbench compare::1 benchmark unclear"
	for _, c := range []struct {
		choice, stderr, annotation string
		code, failures, skipped    int
	}{
		{"warn", "vkbench: warning: compare: " + unclearSaid("copy/u32/4096/vec4"), warning, exitOK, 0, 1},
		{"fail", "vkbench: " + undecided + " vkbench: 1 benchmark unclear (--on-unclear fail)", "::error " + title, exitRegression, 1, 0},
		{"pass", "", "", exitOK, 0, 1},
	} {
		t.Run(c.choice, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "compare.xml")
			r := mustRun(t, c.code, slices.Concat([]string{"compare", "--on-unclear", c.choice, "--format", "junit", "-o", out}, noisy)...)
			if got := strings.Join(strings.Fields(r.stderr), " "); got != c.stderr {
				t.Errorf("stderr %q; want %q", got, c.stderr)
			}
			if !strings.HasPrefix(r.stdout, c.annotation) || (c.annotation == "") != (r.stdout == "") || strings.Count(r.stdout, "\n") > 1 {
				t.Errorf("stdout %q; want the one annotation %q...", r.stdout, c.annotation)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var suite junitReport
			if err := xml.Unmarshal(data, &suite); err != nil {
				t.Fatal(err)
			}
			if suite.Failures != c.failures || suite.Skipped != c.skipped || !strings.Contains(string(data), `message="unclear: with these rounds&#39; spread only a change of about 61.9% or more could show; a 5.0% regression may have passed"`) {
				t.Errorf("JUnit: %d failures, %d skipped; want %d, %d, saying what may have passed\n%s", suite.Failures, suite.Skipped, c.failures, c.skipped, data)
			}
		})
	}
	r := mustRun(t, exitOK, slices.Concat([]string{"compare", "--format", "json"}, noisy)...)
	validateAgainst(t, "compare-v1.json", []byte(r.stdout))
	var rep results.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Unclear != 1 || rep.OnUnclear != results.UnclearWarns {
		t.Errorf("JSON: %d unclear, on_unclear %q (%v); want 1, warn", rep.Unclear, rep.OnUnclear, err)
	}
	if !strings.Contains(r.stderr, warning) {
		t.Errorf("stderr %q: no annotation, where the report took standard output", r.stderr)
	}
	mustRun(t, exitOK, "compare", "--on-unclear", "fail", compareData("base.json"), compareData("faster.json"))
	wantUsage(t, `^vkbench: --on-unclear "ignore": want pass, warn or fail\n$`, slices.Concat([]string{"compare", "--on-unclear", "ignore"}, noisy)...)
}

// TestCompareJUnitUnjudged: a benchmark with too few rounds to judge,
// beside others judged, is a skipped case of the JUnit file, saying why,
// and compare exits 2: it was a case passed, under a job that failed.
func TestCompareJUnitUnjudged(t *testing.T) {
	f, err := results.ReadFile(compareData("base.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Benchmarks {
		if b := &f.Benchmarks[i]; b.Candidate == "scalar" {
			b.Rounds = b.Rounds[:1]
		}
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(t.TempDir(), "short.json")
	if err := os.WriteFile(short, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, exitUsage, "compare", "--format", "junit", compareData("base.json"), short)
	var suite junitReport
	if err := xml.Unmarshal([]byte(r.stdout), &suite); err != nil {
		t.Fatal(err)
	}
	for _, c := range suite.Cases {
		if c.Name == "copy/u32/4096/scalar" && (c.Skipped == nil || !strings.HasPrefix(c.Skipped.Message, "cannot judge (5 rounds in base, 1 round in new")) {
			t.Errorf("scalar, of one round in new: skipped %+v; want skipped, saying why", c.Skipped)
		}
	}
}

// TestCompareProbeShown: where both files have the probe, the table shows
// the benchmarks' own change in the delta column and, in vs probe, the
// change relative to the probe; under it, how much the probe moved, how
// it was used and its effect on the rounds' variance. A probe that wobbles
// on its own is not used alone by default: a kernel is slower where it is
// both by its own times and relative to the probe. Where that probe moved
// by more than the kernel, which of the two moved cannot be told, and
// the table says so instead of failing the gate. Every line fits 100
// columns, the notes wrapped (a note a line wrote up to 240).
func TestCompareProbeShown(t *testing.T) {
	dir := t.TempDir()
	withProbe := func(name string, medians string) string {
		data, err := os.ReadFile(compareData(name))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(data), `"mode": "hot",`, `"mode": "hot", "probe": {"name": "copy/u32/1048576/vec4-wg256", "round_medians_s": [`+medians+`]},`, 1)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := withProbe("base.json", "1e-5, 1.01e-5, 0.99e-5, 1.005e-5, 0.995e-5")
	cur := withProbe("slower.json", "1.02e-5, 1.015e-5, 1.025e-5, 1.01e-5, 1.03e-5")
	r := mustRun(t, exitRegression, "compare", base, cur)
	for _, line := range strings.Split(r.stdout, "\n") {
		if n := utf8.RuneCountInString(line); n > columns {
			t.Errorf("a line of %d columns, over %d: %q", n, columns, line)
		}
	}
	for _, want := range []string{"delta    vs probe  p", "+10.00%  +7.63%", "probe copy/u32/1048576/vec4-wg256: +2.00% in new; it steadied no benchmark's rounds (relative to it their variance would be ×", "judged by its own times, relative to it and net of it"} {
		if !strings.Contains(unwrapped(r.stdout), want) {
			t.Errorf("the table has no %q:\n%s", want, r.stdout)
		}
	}
	if r := vkbench(t, "compare", "--own-times", base, cur); !strings.Contains(unwrapped(r.stdout), "+2.00% in new; each benchmark judged by its own times alone (--own-times)") {
		t.Errorf("--own-times: the table does not say so:\n%s", r.stdout)
	}
	r = vkbench(t, "compare", "--relative", base, cur)
	if !strings.Contains(unwrapped(r.stdout), "each benchmark judged relative to it and net of it, round by round (--relative)") {
		t.Errorf("--relative: the table does not say so:\n%s", r.stdout)
	}
	validateAgainst(t, "compare-v1.json", []byte(mustRun(t, exitRegression, "compare", "--format", "json", base, cur).stdout))

	// The same kernel 10% slower where the probe wobbled by 30% and moved
	// 60%: which of the two moved cannot be told.
	base = withProbe("base.json", "1e-5, 1.3e-5, 0.8e-5, 1.1e-5, 0.9e-5")
	cur = withProbe("slower.json", "1.9e-5, 1.2e-5, 1.6e-5, 1.4e-5, 1.8e-5")
	if r := vkbench(t, "compare", base, cur); r.code != 0 || !strings.Contains(unwrapped(r.stdout), "+60.00% in new") || !strings.Contains(unwrapped(r.stdout), "a 5.0% regression may have passed") {
		t.Errorf("a kernel 10%% slower, the probe 60%% slower: exit %d, want 0 and a note that a regression may have passed:\n%s", r.code, r.stdout)
	}
}

// unwrapped is a table's output with the lines that wrap (wrap) folded
// its notes into joined again, for a test to find a note whole.
func unwrapped(out string) string { return strings.ReplaceAll(out, "\n  ", " ") }

// TestCompareNoBenchmarks: a JSON results file whose list of benchmarks is
// empty is refused (exit 2, naming the file), as a Go benchmark file with
// no benchmark lines is: compared, it passed with every benchmark of the
// other file "missing", and with itself as an empty table.
func TestCompareNoBenchmarks(t *testing.T) {
	data, err := os.ReadFile(compareData("base.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	f["benchmarks"] = []any{}
	empty := filepath.Join(t.TempDir(), "nobench.json")
	if data, err = json.Marshal(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := `^vkbench: (INVALID_ARGUMENT: )?in .*nobench\.json: results: no benchmarks found`
	wantUsage(t, want, "compare", compareData("base.json"), empty)
	wantUsage(t, want, "compare", empty, empty)
	wantUsage(t, want, "compare", compareData("base.json"), "--", empty, compareData("base.json"))
}

// TestCompareNothingInBoth: files that share no measured benchmark (run
// at other sizes, of other operations) are refused, exit 2, in every
// format, --fail-on-missing too, saying what each side holds, and no -o
// file is written: compared, they passed, exit 0, "0 regressions ... of 0
// benchmarks", a CI gate green without a comparison.
func TestCompareNothingInBoth(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(compareData("base.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `"mode": "hot",`, `"mode": "hot", "probe": {"name": "copy/u32/1048576/vec4-wg256", "round_medians_s": [1e-5, 1.01e-5, 0.99e-5, 1.005e-5, 0.995e-5]},`, 1)
	base, other := filepath.Join(dir, "base.json"), filepath.Join(dir, "other.json")
	if err := os.WriteFile(base, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(strings.ReplaceAll(text, `"copy/u32/4096/`, `"copy/u32/8192/`)), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `^vkbench: nothing to compare: no benchmark was measured in both files \(4 in base only, such as copy/u32/4096/vec4; 4 in new only, such as copy/u32/8192/vec4\); compare judges two runs of the same benchmarks \(operation, type, size, candidate\)`
	out := filepath.Join(dir, "out.xml")
	for _, extra := range [][]string{nil, {"--format", "json"}, {"--format", "junit", "-o", out}, {"--fail-on-missing"}} {
		wantUsage(t, want, append([]string{"compare", base, other}, extra...)...)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("compare of nothing in both left -o %s: %v", out, err)
	}
}

// TestCompareOutput: compare -o writes the report to the file, as run,
// ab and the others do, and nothing to standard output: on exit 1 too (a
// regression), in every format; bad input writes no file.
func TestCompareOutput(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"table", "json", "junit"} {
		args := []string{"compare", compareData("base.json"), compareData("slower.json"), "--format", format}
		want := mustRun(t, exitRegression, args...)
		path := filepath.Join(dir, "cmp."+format)
		r := mustRun(t, exitRegression, append(args, "-o", path)...)
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want.stdout || r.stdout != "" {
			t.Errorf("compare --format %s -o %s: the file holds %q (%v), standard output %q; want the report in the file alone, %q", format, path, got, err, r.stdout, want.stdout)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "none.txt")
	mustRun(t, exitUsage, "compare", bad, compareData("base.json"), "-o", path)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("compare of a bad file with -o %s: the file is there (%v), want none", path, err)
	}
	wantUsage(t, `-o .*/no/such/folder/cmp\.txt: no such file or directory`, "compare", compareData("base.json"), compareData("slower.json"), "-o", filepath.Join(dir, "no", "such", "folder", "cmp.txt"))
}

// tableNames reads a gate's table (compare's, ab's) back as a reader
// does: the name of each row, its heading's and its own, one a line, in
// order, from the line of column titles to the first line that is not
// a heading or a row.
func tableNames(out string) []string {
	var names []string
	dir := ""
	_, table, _ := strings.Cut(out, "\nbenchmark ")
	if strings.HasPrefix(out, "benchmark ") {
		table = out
	}
	lines := strings.Split(table, "\n")
	for _, line := range lines[1:] {
		switch {
		case strings.HasPrefix(line, "  "):
			names = append(names, dir+strings.Fields(line)[0])
		case line == "" || strings.HasPrefix(line, "["):
			return names
		default:
			dir = line
		}
	}
	return names
}

// TestCompareLongNames: compare's table is a line a benchmark, its name
// whole: under a heading of the operation, type and size, the rest in
// its row, so that long names keep the table within the columns of a
// terminal; the verdict is short and its note follows the table, marked.
// A name too long for them widens the table, whole, rather than be cut (it
// was cut in its middle, its verdict's note folded over five lines).
func TestCompareLongNames(t *testing.T) {
	dir := t.TempDir()
	long := "fused-multiply-add-chain-of-a-long-name/f32/1048576x4096/"
	rename := func(name, vec4 string) string {
		data, err := os.ReadFile(compareData(name))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), `"copy/u32/4096/vec4"`, `"`+long+vec4+`"`)
		path := filepath.Join(dir, vec4+"-"+name)
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, `"copy/u32/4096/`, `"`+long)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, vec4 := range []string{"regblock-128x128x8-8x8-exact", strings.Repeat("vec4-", 20) + "wg256"} {
		r := mustRun(t, exitRegression, "compare", rename("base.json", vec4), rename("slower.json", vec4))
		want := []string{long + vec4, long + "scalar", long + "broken", long + "gone"}
		if d := cmp.Diff(want, tableNames(r.stdout)); d != "" {
			t.Errorf("the table's benchmarks (-want +got):\n%s\n%s", d, r.stdout)
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(line); n > columns && len(vec4) < 40 {
				t.Errorf("a line of %d columns, over %d: %q", n, columns, line)
			}
		}
		if !strings.Contains(r.stdout, "  not measured [1]\n") || !strings.Contains(r.stdout, "\n[1] failed in base and new: wrong result at element 7: got 0, want 12\n") {
			t.Errorf("the note of a verdict is not under the table, marked:\n%s", r.stdout)
		}
	}
}

// TestCompareOtherDevice: files measured on devices of other names, in
// other modes (hot against cold), for other objectives (time against
// energy, which measures energy beside the samples and drops nothing
// early) or from other seeds (other inputs) are refused, exit 2, naming
// both: compare judged them as one kernel's change, without a word, so
// that another GPU, or another objective or seed, read as a regression
// or a speed-up. The same device under another driver (its hardware key
// differs) is still compared (README's driver upgrade), and so are files
// of another vkbench, other rounds or a file's objective given where
// the other's is left out as time.
func TestCompareOtherDevice(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(compareData("slower.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(text string) string {
		path := filepath.Join(dir, "other.json")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct{ from, to, want string }{
		{`"name": "Crafted GPU"`, `"name": "Other GPU"`, `base ran on Crafted GPU in hot mode, new on Other GPU in hot mode`},
		{`"mode": "hot"`, `"mode": "cold"`, `base ran on Crafted GPU in hot mode, new on Crafted GPU in cold mode`},
		{`"seed": 1,`, `"seed": 1, "objective": "energy",`, `base ran on Crafted GPU in hot mode (objective time), new on Crafted GPU in hot mode (objective energy)`},
		{`"seed": 1,`, `"seed": 7, "objective": "edp",`, `base ran on Crafted GPU in hot mode (objective time, seed 1), new on Crafted GPU in hot mode (objective edp, seed 7)`},
	} {
		other := write(strings.Replace(string(data), c.from, c.to, 1))
		wantUsage(t, "^vkbench: "+regexp.QuoteMeta(c.want)+`: compare judges two runs measured alike \(one kind of device, one mode, objective and seed\)`, "compare", compareData("base.json"), other)
	}
	text := strings.Replace(strings.Replace(string(data), `"crafted_0000_test"`, `"crafted_0000_test-2.0"`, 1), `"crafted 1.0"`, `"crafted 2.0"`, 1)
	text = strings.Replace(text, `"0.1.0-dev"`, `"0.2.0"`, 1)
	text = strings.Replace(text, `"seed": 1,`, `"seed": 1, "objective": "time",`, 1)
	mustRun(t, exitRegression, "compare", compareData("base.json"), write(text))
}

// TestCompareFlagRanges: a --threshold or --alpha out of range is named
// with its value and range, as ab names its --threshold's: compare said
// "--threshold must be >= 0 and --alpha in (0, 1)" for either, and took a
// --threshold of 1e9 (no slowdown could fail).
func TestCompareFlagRanges(t *testing.T) {
	for _, tc := range []struct{ flag, value, want string }{
		{"--threshold", "-5", `--threshold -5 is outside \[0, 100\)`},
		{"--threshold", "100", `--threshold 100 is outside \[0, 100\)`},
		{"--threshold", "1e9", `--threshold 1e\+09 is outside \[0, 100\)`},
		{"--alpha", "0", `--alpha 0 is outside \(0, 1\)`},
		{"--alpha", "2", `--alpha 2 is outside \(0, 1\)`},
	} {
		wantUsage(t, "^vkbench: "+tc.want+"\n$", "compare", tc.flag, tc.value, compareData("base.json"), compareData("slower.json"))
	}
}

// TestCompareSaysWhyNotMeasured: a benchmark not measured in one file or
// both says what became of it there, its outcome and error, once where
// both say the same: compare said "no samples in base" of a kernel that
// neither device could run, as if samples had gone astray.
func TestCompareSaysWhyNotMeasured(t *testing.T) {
	rep := compareJSON(t, "base.json", "mismatched.json")
	for name, want := range map[string]string{
		"copy/u32/4096/scalar": "unsupported in new: UNIMPLEMENTED: kernels: scalar: needs subgroup size 32",
		"copy/u32/4096/broken": "failed in base: wrong result at element 7: got 0, want 12",
	} {
		if r := row(t, rep, name); r.Verdict != results.NotMeasured || r.Note != want {
			t.Errorf("%s: %s (%s), want %s (%s)", name, r.Verdict, r.Note, results.NotMeasured, want)
		}
	}
	if r := row(t, compareJSON(t, "base.json", "slower.json"), "copy/u32/4096/broken"); r.Note != "failed in base and new: wrong result at element 7: got 0, want 12" {
		t.Errorf("broken, failed alike in both: %q", r.Note)
	}
}

// TestCompareNotRun: a candidate not run in NEW (the device was lost
// before, running another) is unclear, neither broken nor passed: a
// warning naming it and why (exit 0), a failure with --on-unclear fail
// (exit 1), a skipped JUnit case; the candidate that lost the device
// stays failed where the base ran, a regression. A file from before
// "not run" (the base) is read as ever; against one where nothing ran,
// there is nothing to compare, and the error says they were not run.
func TestCompareNotRun(t *testing.T) {
	lost := func(loser string) func(*results.Benchmark) {
		return func(b *results.Benchmark) {
			b.Winner = false // none, after a loss
			switch b.Candidate {
			case "scalar":
				b.Stats, b.Rounds, b.Outcome, b.Error = nil, nil, results.NotRun, "the device was lost before, measuring vec4"
			case loser:
				b.Stats, b.Rounds, b.Outcome, b.Error = nil, nil, results.Failed, "running vec4: vk: device lost"
			}
		}
	}
	base, cur := compareData("base.json"), editedRun(t, "base.json", lost(""))
	why := "copy/u32/4096/scalar: not run in new: the device was lost before, measuring vec4"
	r := mustRun(t, exitOK, "compare", base, cur)
	if !strings.Contains(unwrapped(r.stderr), "vkbench: warning: compare: 1 benchmark unclear") || !strings.Contains(r.stderr, "copy/u32/4096/scalar") || !strings.Contains(unwrapped(r.stdout), "not run in new: the device was lost before, measuring vec4") {
		t.Errorf("warn: stdout\n%s\nstderr %q; want scalar unclear, warned of, naming why", r.stdout, r.stderr)
	}
	r = mustRun(t, exitRegression, "compare", "--on-unclear", "fail", base, cur)
	if !strings.Contains(unwrapped(r.stderr), "vkbench: compare: unclear: "+why) || !strings.Contains(r.stderr, "1 benchmark unclear") {
		t.Errorf("--on-unclear fail: stderr %q; want scalar undecided, naming why", r.stderr)
	}
	r = mustRun(t, exitOK, "compare", "--format", "junit", base, cur)
	var suite junitReport
	if err := xml.Unmarshal([]byte(r.stdout), &suite); err != nil || suite.Failures != 0 || suite.Skipped != 2 || !strings.Contains(r.stdout, `<skipped message="unclear (not run in new: `) {
		t.Errorf("JUnit: %d failures, %d skipped (%v); want scalar skipped, saying why, beside broken\n%s", suite.Failures, suite.Skipped, err, r.stdout)
	}
	none := editedRun(t, "base.json", func(b *results.Benchmark) {
		b.Winner, b.Stats, b.Rounds, b.Outcome, b.Error = false, nil, nil, results.NotRun, "the device was lost before"
	})
	wantUsage(t, `nothing to compare: no benchmark was measured in both files \(4 not run in one, such as copy/u32/4096/vec4\)`, "compare", base, none)
	r = mustRun(t, exitRegression, "compare", "--format", "json", base, editedRun(t, "base.json", lost("vec4")))
	validateAgainst(t, "compare-v1.json", []byte(r.stdout))
	var rep results.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if v, n := row(t, rep, "copy/u32/4096/vec4"), row(t, rep, "copy/u32/4096/scalar"); v.Verdict != results.Broke || n.Verdict != results.Unclear || rep.Unclear != 1 || rep.Regressions != 1 {
		t.Errorf("vec4 lost the device: %s, scalar %s (%s), %d unclear, %d regressions; want failed, unclear, 1, 1", v.Verdict, n.Verdict, n.Note, rep.Unclear, rep.Regressions)
	}
	// The summary under the table says the regression is a failure, not a
	// slowdown, and counts the candidate not run; of the counts that can
	// be 0, only those that are not (it said "0 of them wrong").
	r = mustRun(t, exitRegression, "compare", base, editedRun(t, "base.json", lost("vec4")))
	if s := unwrapped(r.stdout); !strings.Contains(s, "Holm's method; 1 of them failed where the base ran), ") || !strings.Contains(s, " and 1 unclear\n") || strings.Contains(s, " 0 ") {
		t.Errorf("the summary does not say what regressed and what is unclear:\n%s", r.stdout)
	}
	// Where the one that failed is all there is to judge, the summary
	// says nothing was measured in both: it said "over the rounds'
	// medians of 0 benchmarks".
	onlyLost := editedRun(t, "base.json", func(b *results.Benchmark) {
		lost("vec4")(b)
		if b.Candidate == "gone" {
			b.Stats, b.Rounds, b.Outcome, b.Error = nil, nil, results.Unsupported, "needs subgroup size 32"
		}
	})
	r = mustRun(t, exitRegression, "compare", base, onlyLost)
	if s := unwrapped(r.stdout); !strings.Contains(s, "\n1 regression (none slower: nothing was measured in both files; 1 of them failed where the base ran), 2 missing or not measured and 1 unclear\n") {
		t.Errorf("the summary of a comparison with nothing measured in both:\n%s", r.stdout)
	}
}

// TestGateReasonsForPeople: what compare and ab say of a failed
// benchmark reads as run's table says it (status.TextForPeople): no
// status codes, a package named once. Their tables, JUnit, stderr and
// annotations said "new failed where the base ran: DATA_LOSS: running
// vec4: vk: device lost: DEADLINE_EXCEEDED: vk: ..."; the JSON keeps the
// error whole.
func TestGateReasonsForPeople(t *testing.T) {
	const (
		lost   = "DATA_LOSS: running vec4: vk: device lost: DEADLINE_EXCEEDED: vk: vkWaitForFences: no signal in 10s"
		said   = "running vec4: vk: device lost: vkWaitForFences: no signal in 10s"
		notRun = "UNAVAILABLE: vk: the device was lost before, measuring vec4"
	)
	cur := editedRun(t, "base.json", func(b *results.Benchmark) {
		switch b.Candidate {
		case "vec4":
			b.Winner, b.Stats, b.Rounds, b.Outcome, b.Error = false, nil, nil, results.Failed, lost
		case "scalar":
			b.Winner, b.Stats, b.Rounds, b.Outcome, b.Error = false, nil, nil, results.NotRun, notRun
		}
	})
	t.Setenv("GITHUB_ACTIONS", "true")
	base := compareData("base.json")
	var out []string
	for _, format := range []string{"table", "junit"} {
		r := mustRun(t, exitRegression, "compare", "--format", format, "--on-unclear", "fail", base, cur)
		out = append(out, unwrapped(r.stdout), unwrapped(r.stderr))
	}
	rep := results.ABReport{Threshold: 0.05, OnUnclear: results.UnclearFails, Rows: []results.ABRow{
		{Name: "chain/f32/2048/wg64", Verdict: results.Broke, Note: "new failed where old ran: " + lost},
		{Name: "chain/f32/2048/wg256", Verdict: results.Unclear, Note: "not run in new: " + notRun},
	}}
	for _, format := range []string{"table", "junit"} {
		var b bytes.Buffer
		if err := writeAB(&b, format, &rep, 0); err != nil {
			t.Fatal(err)
		}
		out = append(out, unwrapped(b.String()))
	}
	cmd := &cobra.Command{}
	var stderr bytes.Buffer
	cmd.SetErr(&stderr)
	warnUnclear(cmd, "ab", rep.OnUnclear, abTable(&rep))
	out = append(out, unwrapped(stderr.String()))
	for i, text := range out {
		if strings.Contains(text, "DATA_LOSS") || strings.Contains(text, "DEADLINE_EXCEEDED") || strings.Contains(text, "UNAVAILABLE") || !strings.Contains(text, "the device was lost before") || !strings.Contains(text, said) {
			t.Errorf("output %d says a status code, or not why:\n%s", i, text)
		}
	}
	r := mustRun(t, exitRegression, "compare", "--format", "json", base, cur)
	if !strings.Contains(r.stdout, `"note": "new failed where base ran: `+lost+`"`) {
		t.Errorf("the JSON does not keep the error whole:\n%s", r.stdout)
	}
}

// TestCompareHeadingCut: on a terminal, a heading of compare's table (the
// operation, type and size its rows share) is cut at its start as the
// names under it are, to the terminal's width: it went whole past the
// edge while the rows under it fitted. In a pipe it is whole.
func TestCompareHeadingCut(t *testing.T) {
	dir := t.TempDir()
	heading := "fused-multiply-add-chain-of-a-long-name-that-goes-on-and-on-and-on-past-the-edge/f32/1048576x4096x4096x4096/"
	var paths []string
	for _, name := range []string{"base.json", "slower.json"} {
		data, err := os.ReadFile(compareData(name))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), `"copy/u32/4096/`, `"`+heading)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	out, code := onTerminal(t, 90, append([]string{"compare"}, paths...)...)
	table, _, _ := strings.Cut(out, "\n\n")
	if code != exitRegression || !regexp.MustCompile(`\n…\S+`+regexp.QuoteMeta(heading[len(heading)-40:])+`\n`).MatchString(table) {
		t.Errorf("exit status %d; on a terminal of 90 columns, the heading is not cut at its start:\n%s", code, out)
	}
	for _, line := range strings.Split(table, "\n") {
		if n := utf8.RuneCountInString(line); n > 90 {
			t.Errorf("a line of %d columns on a terminal of 90: %q", n, line)
		}
	}
	if r := mustRun(t, exitRegression, append([]string{"compare"}, paths...)...); !strings.Contains(r.stdout, "\n"+heading+"\n") {
		t.Errorf("in a pipe, the heading is not whole:\n%s", r.stdout)
	}
}
