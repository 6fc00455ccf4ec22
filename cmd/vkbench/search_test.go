package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
)

// modelLog is the synthetic GEMM tuning log the strategies are tested on.
var modelLog = filepath.Join("..", "..", "search", "testdata", "search", "gemm-4096-model.jsonl")

// quickSearch are flags that keep a search short on lavapipe: gemm at
// 32³ has 32 valid configurations (BM = BN = 32; PH, BK, SWZ and EXACT
// vary).
var quickSearch = []string{"gemm", "--size", "32x32x32", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet"}

// TestTuneSearch searches gemm's space, then again with another strategy
// (every configuration from the tuning log), exports the log, shows the
// committed answer and draws the searches' convergence.
func TestTuneSearch(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.db")
	r := mustRun(t, 0, append([]string{"tune", "--strategy", "exhaustive", "--cache", cache}, quickSearch...)...)
	if !strings.Contains(r.stderr, "gemm.space/f32/32x32x32: searched gemm's space with exhaustive (seed 1): 32 of 32 configurations evaluated, 32 measured, 0 from the tuning log; compile ") {
		t.Errorf("stderr does not sum the search up:\n%s", r.stderr)
	}
	// A row each, and the winner's in the summary.
	if n := strings.Count(r.stdout, "regblock-32x32x"); n != 32+1 || !strings.Contains(r.stdout, "gemm.space f32, size 32x32x32") {
		t.Errorf("the table shows %d configurations, want the 32 and the winner:\n%s", n, r.stdout)
	}
	r = mustRun(t, 0, append([]string{"tune", "--strategy", "random", "--max-evals", "5", "--seed", "3", "--cache", cache}, quickSearch...)...)
	if !strings.Contains(r.stderr, "5 of 32 configurations evaluated, 0 measured, 5 from the tuning log") {
		t.Errorf("the second search measured again:\n%s", r.stderr)
	}
	// The answer is the fastest of the log's 32, in the table where the 5 lack it.
	if n := strings.Count(r.stdout, "regblock-32x32x"); n != 5+1 && (n != 6+1 || !strings.Contains(r.stderr, ", of an earlier search in the tuning log (this one's fastest: ")) {
		t.Errorf("the table shows %d configurations, want the 5 evaluated and the winner:\n%s%s", n, r.stdout, r.stderr)
	}
	log := filepath.Join(dir, "gemm.jsonl")
	mustRun(t, 0, "cache", "export-log", "gemm/f32/32x32x32", log, "--cache", cache)
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	l, err := search.ReadTuneLog(f)
	_ = f.Close() // read only
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Evals) != 32 || len(l.Searches) != 2 || l.Searches[1].Strategy != "random" || len(l.Header.Space.Params) != 8 {
		t.Errorf("exported log: %d evaluations, %d searches (%+v), %d params; want 32, 2 (exhaustive then random), 8", len(l.Evals), len(l.Searches), l.Searches, len(l.Header.Space.Params))
	}
	if list := mustRun(t, 0, "cache", "export-log", "--cache", cache).stdout; !strings.Contains(list, "/builtin/gemm/f32/32x32x32@hot") {
		t.Errorf("export-log lists %q", list)
	}
	show := mustRun(t, 0, "cache", "show", "gemm.space/f32/32x32x32", "--cache", cache)
	if !strings.Contains(show.stdout, "winner: regblock-32x32x") || strings.Count(show.stdout, "regblock-32x32x") != 33 || strings.Contains(show.stdout, "no search evaluated") {
		t.Errorf("cache show of the search's key (the log's 32, of both searches):\n%s", show.stdout)
	}
	checkSearchNotes(t, dir, cache)
	svg := filepath.Join(dir, "conv.svg")
	r = mustRun(t, 0, "report", log, "-o", svg)
	data, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(data), "<svg") || !strings.Contains(r.stderr, "the convergence of 2 searches in 1 log") {
		t.Errorf("report of the log: %v, %q", err, r.stderr)
	}
	texts := strings.Join(svgTexts(t, data), " | ")
	for _, want := range []string{"Search convergence: gemm/f32/32x32x32", "exhaustive", "random", "evaluations"} {
		if !strings.Contains(texts, want) {
			t.Errorf("the chart does not say %q: %s", want, texts)
		}
	}
}

// TestReplay replays strategies against the synthetic log: a table, the
// same every time (a golden file), and the searches as a log.
func TestReplay(t *testing.T) {
	args := []string{"replay", modelLog, "--seeds", "3", "--stop-within", "3"}
	r := mustRun(t, 0, args...)
	golden(t, "replay", r.stdout)
	if again := mustRun(t, 0, args...); again.stdout != r.stdout {
		t.Error("two replays of the same searches differ")
	}
	out := filepath.Join(t.TempDir(), "trace.jsonl")
	mustRun(t, 0, append(args, "--format", "log", "-o", out)...)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	l, err := search.ReadTuneLog(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Searches) != 10 || !l.Searches[0].Simulated {
		t.Errorf("%d simulated searches, want 10 (exhaustive once, three strategies × 3 seeds)", len(l.Searches))
	}
}

// TestSearchBadInput: each misuse is one line and exit status 2.
func TestSearchBadInput(t *testing.T) {
	dir := t.TempDir()
	notLog := filepath.Join(dir, "not.jsonl")
	if err := os.WriteFile(notLog, []byte(`{"schema":"vkbench.results/v1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--strategy", "genetic"}, `unknown --strategy "genetic"`},
		{[]string{"tune", "--strategy", "random,bayes", "gemm"}, "takes one strategy (vkbench replay compares several)"},
		{[]string{"tune", "--seeds", "3", "gemm"}, "unknown flag: --seeds"},
		{[]string{"tune", "--simulate", modelLog}, "unknown flag: --simulate"},
		{[]string{"tune", "--max-evals", "-1", "gemm"}, "must not be negative"},
		// A zero was no search at all: a plain tune of the named candidates, exit 0.
		{append([]string{"tune", "--max-evals", "0", "--cache", filepath.Join(dir, "z.db")}, quickSearch...), "--max-evals and --time-limit take a bound above 0"},
		{append([]string{"tune", "--time-limit", "0s", "--cache", filepath.Join(dir, "z.db")}, quickSearch...), "leave one out for its default"},
		{[]string{"tune", "--all-devices", "--strategy", "bayes"}, "--all-devices does not search"},
		{[]string{"replay", filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{[]string{"replay", notLog}, "not a tuning log"},
		{[]string{"replay", modelLog, "--format", "csv"}, "--format table or log"},
		{[]string{"replay", modelLog, "--strategy", "random,genetic"}, `unknown --strategy "genetic"`},
		{[]string{"replay", modelLog, "--seeds", "0"}, "--seeds at least 1"},
		{[]string{"replay"}, "replay takes one tuning log (see vkbench replay --help)"},
		{[]string{"report", modelLog, cliData("report-input.json"), "-o", filepath.Join(dir, "r.svg")}, "not both at once"},
		{[]string{"cache", "export-log", "gemm/f32/32x32x32", "--cache", filepath.Join(dir, "c.db")}, "takes KEY and FILE, or nothing to list the logs (see vkbench cache export-log --help)"},
		{[]string{"cache", "export-log", "gemm/f32/32x32x32", filepath.Join(dir, "x"), "--cache", filepath.Join(dir, "c.db")}, "c.db has no tuning logs (a tune --strategy search writes one)"},
	} {
		r := vkbench(t, tt.args...)
		if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("vkbench %s: exit %d, stderr %q; want 2 and one line saying %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.want)
		}
	}
}

// TestSearchTimeLimitTooShort: a --time-limit that runs out before the
// first configuration is evaluated is bad usage, one line, and stores
// nothing; it exited 0 with an empty table and "fastest " naming nothing.
func TestSearchTimeLimitTooShort(t *testing.T) {
	needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	r := vkbench(t, append([]string{"tune", "--strategy", "random", "--time-limit", "1ns", "--cache", cache}, quickSearch...)...)
	want := "gemm.space/f32/32x32x32: --time-limit 1ns ran out before the search evaluated a configuration; nothing was stored (give it longer)\n"
	if r.code != exitUsage || !strings.HasSuffix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("search of no time: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	if ls := mustRun(t, 0, "cache", "ls", "--cache", cache).stdout; !strings.Contains(ls, "the cache is empty") {
		t.Errorf("cache ls after a search of no time: %q", ls)
	}
}

// TestSearchInterrupt sends SIGINT to a search after some configurations
// were measured (as -v reports them), then runs it again: the second run
// measures exactly the configurations the first did not record.
func TestSearchInterrupt(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.db")
	args := append([]string{"tune", "--strategy", "exhaustive", "--cache", cache, "-v"}, quickSearch...)
	first, _ := interruptedAfter(t, args, regexp.MustCompile(`(?m)^search: 3/32 `), syscall.SIGINT)
	if first.code != 130 {
		t.Fatalf("interrupted search: exit status %d, want 130\n%s", first.code, first.stderr)
	}
	done := len(regexp.MustCompile(`(?m)^search: \d+/32 `).FindAllString(first.stderr, -1))
	r := mustRun(t, 0, append([]string{"tune", "--strategy", "exhaustive", "--cache", cache}, quickSearch...)...)
	m := regexp.MustCompile(`32 of 32 configurations evaluated, (\d+) measured, (\d+) from the tuning log`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("the second run does not sum up:\n%s", r.stderr)
	}
	measured, _ := strconv.Atoi(m[1])
	logged, _ := strconv.Atoi(m[2])
	if done < 3 || logged != done || measured != 32-done {
		t.Errorf("the first run recorded %d configurations; the second measured %d and took %d from the log, want %d and %d", done, measured, logged, 8-done, done)
	}
}

// interruptedAfter runs the command as a process with the validation
// layer on and sends it sig once its stderr matches re.
func interruptedAfter(t *testing.T, args []string, re *regexp.Regexp, sig syscall.Signal) (result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "VKBENCH_TEST_MAIN=1", "VKBENCH_VALIDATION=1")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	var sent time.Time
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if sent.IsZero() && re.MatchString(stderr.String()) {
			sent = time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatalf("signalling %v: %v", args, err)
			}
		}
	}
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", args, err)
	}
	if sent.IsZero() {
		t.Fatalf("%v ended before its stderr matched %s:\n%s", args, re, stderr.String())
	}
	checkDriverMessages(t, args, stderr.String())
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}, time.Since(sent)
}

// TestExportLogKey: cache export-log takes the key of a search's answer as
// cache ls shows it (gemm.space/...), where it said "0 tuning logs match
// ... (narrow with --hardware and --tuner)"; a key with no log says so,
// naming the logs there are, rather than advising to narrow.
func TestExportLogKey(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.db")
	mustRun(t, 0, append([]string{"tune", "--strategy", "random", "--max-evals", "3", "--cache", cache}, quickSearch...)...)
	const key = "gemm.space/f32/32x32x32"
	if ls := mustRun(t, 0, "cache", "ls", "--cache", cache).stdout; !strings.Contains(ls, key) {
		t.Fatalf("cache ls does not show %s:\n%s", key, ls)
	}
	log := filepath.Join(dir, "gemm.jsonl")
	r := mustRun(t, 0, "cache", "export-log", key, log, "--cache", cache)
	if !strings.HasSuffix(r.stderr, "/builtin/gemm/f32/32x32x32@hot (3 configurations, 1 search) to "+log+"\n") {
		t.Errorf("cache export-log %s: stderr %q", key, r.stderr)
	}
	if data, err := os.ReadFile(log); err != nil || !strings.Contains(string(data), `"key":"gemm/f32/32x32x32"`) {
		t.Errorf("the exported log: %.200q (%v)", data, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gemm/f32/64x64x64"}, `^vkbench: no tuning log of gemm/f32/64x64x64; logs: \S+/builtin/gemm/f32/32x32x32@hot\n$`},
		{[]string{key, "--mode", "cold"}, `^vkbench: no tuning log of gemm\.space/f32/32x32x32 in cold mode; logs of it: \S+/builtin/gemm/f32/32x32x32@hot\n$`},
		{[]string{key, "--tuner", "other"}, `^vkbench: no tuning log of gemm\.space/f32/32x32x32 in hot mode with --tuner other; logs of it: `},
	} {
		wantUsage(t, tc.want, append([]string{"cache", "export-log", tc.args[0], filepath.Join(dir, "x.jsonl"), "--cache", cache}, tc.args[1:]...)...)
	}
}

// TestSearchSaysNoEmptyName: a search's summary and -v's progress lines
// name a configuration in every slot they have for one, or say that none
// computed correctly: a search whose configurations all failed, after an
// earlier one that measured, said "(this one's fastest: )", and -v's
// lines "best  failed" until one passed. The summary says the answer is
// of an earlier search only where this one did not evaluate it: by
// energy, the log's points can tie this search's winner b with a point
// that uses less energy and so crown a, this search's too, which was
// said to be of an earlier search.
func TestSearchSaysNoEmptyName(t *testing.T) {
	five := []string{"b", "c", "d", "e", "f"}
	for _, c := range []struct {
		by, committed, best string
		order               []string
		want                string
	}{
		{"fastest", "a", "a", []string{"a", "b"}, "fastest a"},
		{"fastest", "a", "b", five, "fastest a, of an earlier search in the tuning log (this one's fastest: b)"},
		{"winner by energy", "a", "b", five, "winner by energy a, of an earlier search in the tuning log (this one's winner by energy: b)"},
		{"winner by energy", "a", "b", []string{"b", "a"}, "winner by energy a"},
		{"fastest", "a", "", five, "fastest a, of an earlier search in the tuning log (nothing this one evaluated could be measured: 5 wrong: 5× why)"},
	} {
		if got := winnerSaid(c.by, c.committed, c.best, c.order, "5 wrong: 5× why"); got != c.want {
			t.Errorf("winnerSaid(%q, %q, %q, %q) = %q, want %q", c.by, c.committed, c.best, c.order, got, c.want)
		}
	}
	for _, c := range []struct {
		p    autotune.SearchProgress
		want string
	}{
		{autotune.SearchProgress{Eval: 1, Budget: 4, Name: "x"}, "search: 1/4 x: failed; none correct yet"},
		{autotune.SearchProgress{Eval: 2, Budget: 4, Name: "y", Seconds: 2e-3, FromLog: true, Best: "y", BestSeconds: 2e-3},
			"search: 2/4 y: 2.000ms (from the tuning log); best y 2.000ms"},
		// By energy or edp, the figure the search ranks by too; before, the times alone.
		{autotune.SearchProgress{Eval: 3, Budget: 4, Name: "z", Seconds: 1e-3, Best: "y", BestSeconds: 2e-3, Objective: autotune.ObjectiveEnergy, Value: 3e-3, BestValue: 1.5e-3},
			"search: 3/4 z: 1.000ms, 3.00 mJ; best y 2.000ms, 1.50 mJ"},
		{autotune.SearchProgress{Eval: 3, Budget: 4, Name: "z", Seconds: 1e-3, Best: "y", BestSeconds: 2e-3, Objective: autotune.ObjectiveEDP, Value: 3e-6, BestValue: 3e-6},
			"search: 3/4 z: 1.000ms, 3.00 µJ·s; best y 2.000ms, 3.00 µJ·s"},
		{autotune.SearchProgress{Eval: 4, Budget: 4, Name: "w", Seconds: 1e-3, Best: "w", BestSeconds: 1e-3, Objective: autotune.ObjectiveEnergy},
			"search: 4/4 w: 1.000ms, no energy; best w 1.000ms, no energy"},
		{autotune.SearchProgress{Eval: 1, Budget: 4, Name: "x", Objective: autotune.ObjectiveEnergy}, "search: 1/4 x: failed; none correct yet"},
	} {
		if got := progressLine(c.p); got != c.want {
			t.Errorf("progressLine(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// checkSearchNotes: cache show of a search's key says where its tuning
// log is and how to write it out, or that there is none (an imported
// answer); of the operation's key, that its space was searched, where the
// search's key is. Before, neither said anything of the search: cache
// show gemm/f32/32x32x32 was "no entry" alone.
func checkSearchNotes(t *testing.T, dir, cache string) {
	t.Helper()
	show := mustRun(t, 0, "cache", "show", "gemm.space/f32/32x32x32", "--cache", cache)
	logLine := regexp.MustCompile(`(?m)^  tuning log: \S+/builtin/gemm/f32/32x32x32@hot, 32 configurations of 2 searches \(vkbench cache export-log gemm\.space/f32/32x32x32 FILE writes it\)$`)
	if !logLine.MatchString(show.stdout) {
		t.Errorf("cache show of the search's key does not say where its tuning log is:\n%s", show.stdout)
	}
	wantUsage(t, `^vkbench: no entry gemm/f32/32x32x32 in .*; a search of its operation's space answered gemm\.space/f32/32x32x32 \(vkbench cache show gemm\.space/f32/32x32x32\)\n`,
		"cache", "show", "gemm/f32/32x32x32", "--cache", cache)
	table := filepath.Join(dir, "table.json")
	mustRun(t, 0, "cache", "export", table, "--cache", cache)
	mustRun(t, 0, append([]string{"tune", "--cache", cache}, quickSearch...)...)
	show = mustRun(t, 0, "cache", "show", "gemm/f32/32x32x32", "--cache", cache)
	if !strings.HasSuffix(show.stdout, "\n  its operation's space was searched too: vkbench cache show gemm.space/f32/32x32x32\n") {
		t.Errorf("cache show of the operation's key does not say that its space was searched:\n%s", show.stdout)
	}
	imported := filepath.Join(dir, "imported.db")
	mustRun(t, 0, "cache", "import", table, "--cache", imported)
	show = mustRun(t, 0, "cache", "show", "gemm.space/f32/32x32x32", "--cache", imported)
	if !strings.Contains(show.stdout, "  tuning log: none in "+imported+" (an answer imported, or taken from the shared store, comes without its log)\n") {
		t.Errorf("cache show of an imported search's answer does not say it has no log here:\n%s", show.stdout)
	}
}

// TestSearchHangTimeout searches a space one of whose configurations
// never ends in time (hang.json's loop, over LOOP, exhaustively): the
// device is lost running it, and the search reports as run and tune do:
// exit 3, the configuration measured before keeps its numbers, the one
// running fails with the loss, those proposed after it are not run, naming
// it, and no winner. It once failed the operation's named candidate with
// the search's error, keeping nothing.
func TestSearchHangTimeout(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "hang.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	slow := m["operations"].([]any)[0].(map[string]any)
	loop := slow["candidates"].([]any)[0].(map[string]any) // short: LOOP 16
	loop["name"], loop["spirv"] = "loop", filepath.Join(dir, loop["spirv"].(string))
	loop["space"] = map[string]any{"LOOP": []int{16, 1 << 20, 32, 64}}
	slow["candidates"] = []any{loop}
	tmp := t.TempDir()
	path, out := filepath.Join(tmp, "hangspace.json"), filepath.Join(tmp, "out.json")
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"tune", "--manifest", path, "--strategy", "exhaustive", "--cache", filepath.Join(tmp, "c.db"),
		"--hang-timeout", "1s", "--budget", "100ms", "--format", "json", "-o", out}
	// A process of its own: the long kernel goes on running in the
	// process that left it.
	cmd := exec.CommandContext(context.Background(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), "VKBENCH_TEST_MAIN=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	stderr := regexp.MustCompile(`(?m)^vkbench: warning: vk: the GPU did not finish its work in time.*\n`).ReplaceAllString(errb.String(), "")
	checkDriverMessages(t, args, stderr)
	line := regexp.MustCompile(`^vkbench: autotune: searching slow/f32/262144 \(1 of 4 evaluated, 1 measured; the tuning log keeps them\): running loop-LOOP1048576: vk: device lost: .*past the hang timeout of 1s.*\n$`)
	if code != 3 || !line.MatchString(stderr) {
		t.Errorf("vkbench %s: exit %d, stderr:\n%s\nwant exit 3 and one line matching %s", strings.Join(args, " "), code, errb.String(), line)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatalf("-o %s: %v", out, err)
	}
	got := map[string]string{}
	for _, b := range f.Benchmarks {
		got[b.Op+"/"+b.Candidate] = string(b.Outcome) + " " + b.Error
	}
	notRun := "not run " + results.LostBefore("loop-LOOP1048576")
	lost := regexp.MustCompile(`^failed DATA_LOSS: running loop-LOOP1048576: .*past the hang timeout of 1s`)
	if len(got) != 4 || got["slow.space/loop-LOOP16"] != "measured " || !lost.MatchString(got["slow.space/loop-LOOP1048576"]) ||
		got["slow.space/loop-LOOP32"] != notRun || got["slow.space/loop-LOOP64"] != notRun {
		t.Errorf("-o holds %v, want LOOP16 measured, LOOP1048576 failed naming the loss, LOOP32 and LOOP64 %q", got, notRun)
	}
}

// TestSearchNamesItsObjective: a search's summary named its answer
// "fastest" whatever the objective, where by energy or edp the answer is
// the winner by that; and by time again where the entry says the pick
// fell back to it.
func TestSearchNamesItsObjective(t *testing.T) {
	for _, c := range []struct {
		flag, note, want string
	}{
		{"time", "", "fastest"},
		{"energy", "", "winner by energy"},
		{"EDP", "", "winner by edp"},
		{"energy", "b has no energy per run: picked by time", "fastest"},
	} {
		if got := pickedBy(c.flag, &autotune.Entry{ObjectiveNote: c.note}); got != c.want {
			t.Errorf("pickedBy(%q, note %q) = %q, want %q", c.flag, c.note, got, c.want)
		}
	}
}

// TestReplayByEnergy: replay ranks a log whose last search picked by
// energy by energy, and names the winners as tune would; before, by time:
// "the log's best a0, 1.500ms", each search's winner the fastest it
// found, and --stop-within counted to the fastest.
func TestReplayByEnergy(t *testing.T) {
	l := &search.TuneLog{Header: search.LogHeader{Key: "k/f32/1", Mode: "hot", Space: search.LogSpace{Params: []kernels.Param{{Name: "A", Values: []int{0, 1, 2, 3}}}}},
		Searches: []search.LogSearch{{Strategy: search.Exhaustive, Best: "a2", Objective: "energy"}}}
	for i, p := range []struct{ ms, mJ float64 }{{1.5, 5}, {2, 4}, {6, 1}, {3, 1.2}} {
		l.Evals = append(l.Evals, search.LogRecord{ID: fmt.Sprint(i), Config: kernels.Config{"A": i}, Result: results.Result{Name: fmt.Sprintf("a%d", i),
			Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: p.ms / 1e3, N: 6, Batch: 1}, EnergyJ: p.mJ / 1e3}}})
	}
	path := filepath.Join(t.TempDir(), "energy.jsonl")
	var buf bytes.Buffer
	if err := search.WriteTuneLog(&buf, l); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, 0, "replay", path, "--strategy", "exhaustive", "--stop-within", "3").stdout
	for _, want := range []string{"the log's best by energy a2, 1.00 mJ\n", "| best found | its energy | within 3% after |", "| exhaustive | 1 | 3 | a2 | 1.00 mJ | 3 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay of a log searched by energy does not say %q:\n%s", want, out)
		}
	}
}

// TestSearchNothingMeasured searches a space of GLSL configurations each
// of which needs more shared memory than any device has: the device
// cannot run one, which is no failure (exit 0), and the summary says that
// nothing could be measured and why, counted, and nothing of a winner.
// It said "3 measured" and ended with "fastest " and no name.
func TestSearchNothingMeasured(t *testing.T) {
	needDevice(t)
	m := stagedSpace(t, "4194304, 8388608, 16777216")
	r := mustRun(t, 0, "tune", "--manifest", m, "--strategy", "exhaustive", "--cache", filepath.Join(filepath.Dir(m), "c.db"),
		"--budget", "100ms", "--min-samples", "6", "--max-samples", "6", "--quiet")
	summary := regexp.MustCompile(`(?m)^saxpy-staged\.space/f32/4096: searched saxpy-staged's space with exhaustive \(seed 1\): 3 of 3 configurations evaluated, 0 from the tuning log; compile .*; nothing could be measured: 3 unsupported: 1× needs 65536 KiB of shared memory, device has .*; 1× needs 262144 KiB of shared memory, device has [^;]*$`)
	if !summary.MatchString(r.stderr) || strings.Contains(r.stderr, "fastest") || strings.Contains(r.stderr, "measured,") {
		t.Errorf("the summary does not say that nothing could be measured, and why, alone:\n%s", r.stderr)
	}
}

// TestSearchNothingMeasuredAfterWinner: a search that measures nothing
// (its one configuration needs 64 MiB of shared memory) after an earlier
// one that measured the space's winner names that winner, of the earlier
// search, and says why this one measured nothing, counted: it said "1
// measured" and that the one configuration "did not compute correctly".
func TestSearchNothingMeasuredAfterWinner(t *testing.T) {
	needDevice(t)
	m := stagedSpace(t, "64, 4194304, 8388608")
	tune := func(seed string) string { // random's seed 3 picks SHARED 64 first, seed 1 4194304
		return mustRun(t, 0, "tune", "--manifest", m, "--strategy", "random", "--max-evals", "1", "--seed", seed, "--cache", filepath.Join(filepath.Dir(m), "c.db"),
			"--budget", "100ms", "--min-samples", "6", "--max-samples", "6", "--quiet").stderr
	}
	if got := tune("3"); !strings.Contains(got, "1 measured, 0 from the tuning log; ") || !strings.HasSuffix(got, "; fastest staged-SHARED64\n") {
		t.Fatalf("the first search does not measure staged-SHARED64 alone:\n%s", got)
	}
	want := regexp.MustCompile(`(?m)^saxpy-staged\.space/f32/4096: searched saxpy-staged's space with random \(seed 1\): 1 of 3 configurations evaluated, 0 from the tuning log; compile .*; fastest staged-SHARED64, of an earlier search in the tuning log \(nothing this one evaluated could be measured: 1 unsupported: 1× needs 65536 KiB of shared memory, device has \d+ KiB\)$`)
	if got := tune("1"); !want.MatchString(got) {
		t.Errorf("the summary does not say why this search measured nothing:\n%s", got)
	}
}

// stagedSpace writes a manifest of saxpy-staged, whose space is the
// shared vec4s (space, a JSON list) its GLSL candidate stages, with its
// own tuning log, and returns its path.
func stagedSpace(t *testing.T, space string) string {
	dir := t.TempDir()
	spv, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests", "saxpy.spv"))
	if err != nil {
		t.Fatal(err)
	}
	glsl := `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer XBuf { vec4 x[]; };
layout(std430, binding = 1) buffer YBuf { vec4 y[]; };
layout(push_constant) uniform Params { uint n4; float a; };
shared vec4 staged[SHARED];
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < n4) { staged[gl_LocalInvocationID.x] = x[i]; }
    barrier();
    if (i < n4) { y[i] = a * staged[gl_LocalInvocationID.x] + y[i]; }
}
`
	first, _, _ := strings.Cut(space, ",")
	m := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy-staged", "dims": {"N": 4096},
 "buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0}, {"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout"}],
 "push_constants": [{"type": "u32", "value": "N / 4"}, {"type": "f32", "value": 2.5}],
 "verify": {"reference": "scalar", "tolerance": {"rel": 1e-6, "abs": 1e-6}},
 "candidates": [
  {"name": "scalar", "spirv": "` + spv + `", "push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}], "groups": ["div_up(N, 256)"]},
  {"name": "staged", "glsl": "staged.glsl", "defines": {"SHARED": "SHARED"}, "params": {"SHARED": ` + first + `},
   "space": {"SHARED": [` + space + `]}, "groups": ["div_up(N / 4, 64)"]}]}]}`
	for name, text := range map[string]string{"staged.glsl": glsl, "staged.json": m} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("VKBENCH_CACHE", filepath.Join(dir, "tune.db"))
	return filepath.Join(dir, "staged.json")
}
