package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
)

// The command's tests run it in-process, as main does (execute), on the
// real "vulkan" driver: lavapipe where there is no GPU. Where there is no
// Vulkan device they skip, unless CI or VKBENCH_REQUIRE_VALIDATION is set:
// there they fail, and every command runs with the validation layer on
// (VKBENCH_VALIDATION=1). Whatever a test expects of a command's stderr,
// a validation or driver message there fails it (checkDriverMessages).
//
// Outputs are compared with golden files in testdata/cli after the
// numbers that vary from run to run (times, rates, dates, paths, the
// device's identity) are masked, so that what is compared is the
// structure: columns, operations, candidates and their statuses. Run
// "go test ./cmd/vkbench -update" to rewrite the golden files, and read
// the diff.

var update = flag.Bool("update", false, "rewrite the golden files in testdata/cli")

func TestMain(m *testing.M) {
	flag.Parse()
	// No test may touch the user's own tune cache: those that use one pass
	// --cache; this catches any that forget.
	dir, err := os.MkdirTemp("", "vkbench-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.Setenv("VKBENCH_CACHE", filepath.Join(dir, "default-cache.db")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Where a device is required, so is validation: every command the
	// tests run validates (scripts/test.sh sets this too).
	if testenv.Strict() && os.Getenv("VKBENCH_VALIDATION") == "" {
		if err := os.Setenv("VKBENCH_VALIDATION", "1"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// result is what one command line did.
type result struct {
	stdout, stderr string
	code           int
}

// vkbench runs the command line args in-process. Every command the tests
// run goes through it (or, as a process, through vkbenchProcess or
// interrupted), and each fails the test on a validation or driver message
// in the command's stderr.
func vkbench(t testing.TB, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, &out, &errb)
	r := result{stdout: out.String(), stderr: errb.String(), code: code}
	checkDriverMessages(t, args, r.stderr)
	return r
}

// driverMessage matches a line of the command's stderr that is a
// validation or driver message. Package vk logs every such message with
// the prefix "vk: " (the validation layer's through its message sink, its
// own warnings, such as a leaked device, directly), and the command prints
// each as a "vkbench: warning: vk: " line. A line that names a validation
// error or a VUID, from wherever it came, counts too.
var driverMessage = regexp.MustCompile(`(?m)^.*(vkbench: warning: vk: |Validation (Error|Warning)|VUID-).*$`)

// checkDriverMessages fails t for each validation or driver message in
// stderr, whatever else the test expects there: the test command runs
// every command with the validation layer on, and no message may pass.
func checkDriverMessages(t testing.TB, args []string, stderr string) {
	t.Helper()
	for _, line := range driverMessage.FindAllString(stderr, -1) {
		t.Errorf("vkbench %s: a validation or driver message: %s", strings.Join(args, " "), line)
	}
}

// mustRun runs args and fails the test unless the exit status is want.
func mustRun(t testing.TB, want int, args ...string) result {
	t.Helper()
	r := vkbench(t, args...)
	if r.code != want {
		t.Fatalf("vkbench %s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

var (
	deviceOnce sync.Once
	deviceInfo hal.DeviceInfo
	deviceErr  error
)

// needDevice returns the default device's identity, or ends the test
// through testenv.Unavailable when there is none.
func needDevice(t testing.TB) hal.DeviceInfo {
	t.Helper()
	deviceOnce.Do(func() {
		drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{})
		if err != nil {
			deviceErr = err
			return
		}
		defer func() { _ = drv.Release() }() // only enumerated
		infos, err := drv.Enumerate()
		if err == nil && len(infos) == 0 {
			err = fmt.Errorf("no Vulkan devices")
		}
		if err != nil {
			deviceErr = err
			return
		}
		deviceInfo = infos[hal.DefaultDevice(infos)]
	})
	if deviceErr != nil {
		testenv.Unavailable(t, "no Vulkan device: %v", deviceErr)
	}
	return deviceInfo
}

// masker replaces what varies between runs and machines with
// placeholders.
type masker struct {
	literals []string // old, new pairs, applied first
	res      []maskRE
	kept     []string // never masked
}

type maskRE struct {
	re   *regexp.Regexp
	with string
}

func (m *masker) literal(old, new string) *masker {
	if old != "" {
		m.literals = append(m.literals, old, new)
	}
	return m
}

func (m *masker) regexp(expr, with string) *masker {
	m.res = append(m.res, maskRE{regexp.MustCompile(expr), with})
	return m
}

// keep protects text (a column's title, "95% CI") from the regexps.
func (m *masker) keep(text string) *masker {
	m.kept = append(m.kept, text)
	return m
}

func (m *masker) mask(s string) string {
	s = strings.NewReplacer(m.literals...).Replace(s)
	var hide, unhide []string
	for i, k := range m.kept {
		token := fmt.Sprintf("\x00%d\x00", i)
		hide, unhide = append(hide, k, token), append(unhide, token, k)
	}
	if len(hide) > 0 {
		s = strings.NewReplacer(hide...).Replace(s)
	}
	for _, r := range m.res {
		s = r.re.ReplaceAllString(s, r.with)
	}
	if len(unhide) > 0 {
		s = strings.NewReplacer(unhide...).Replace(s)
	}
	return s
}

// deviceMasker masks the device's identity and the test's folders.
func deviceMasker(t testing.TB, dirs ...string) *masker {
	info := needDevice(t)
	m := &masker{}
	for _, d := range dirs {
		m.literal(d, "<tmp>")
	}
	// Longest first: the hardware string contains parts of the name.
	m.literal(info.Hardware(), "<hardware>")
	m.literal(fmt.Sprintf("%x", info.DeviceUUID), "<uuid>")
	m.literal(info.DriverName+" "+info.DriverVersionString(), "<driver>")
	m.literal(info.Name, "<device>")
	return m
}

// tableMasker masks the numbers of vkbench's tables. Runs of spaces become
// two, since masked numbers change the width of tabwriter's columns.
func tableMasker(m *masker) *masker {
	return m.keep("95% CI").
		regexp(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?( [A-Z]{3,5})?`, "<date>").
		regexp(`\b\d+(\.\d+)?(ns|µs|ms|s)\b`, "<t>").
		regexp(`±\d+(\.\d+)?%`, "±<p>%").
		regexp(`\b\d+(\.\d+)?%`, "<p>%").
		regexp(`\b\d+\.\d+(e[-+]?\d+)?\b`, "<n>").
		regexp(`\b\d+×\d+\b`, "<n>×<n>").
		regexp(`(?m)[ \t]+$`, "").
		regexp(` {2,}`, "  ")
}

// golden compares got with testdata/cli/name.golden, or writes it with
// -update.
func golden(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "cli", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from %s (-want +got):\n%s", name, path, diff)
	}
}

// compareData is a crafted result file in testdata/compare.
func compareData(name string) string {
	return filepath.Join("..", "..", "testdata", "compare", name)
}

// cliData is a file in testdata/cli.
func cliData(name string) string {
	return filepath.Join("..", "..", "testdata", "cli", name)
}
