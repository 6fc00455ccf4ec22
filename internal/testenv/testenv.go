// Package testenv is the test suite's one rule for what a test needs and
// cannot find here (a Vulkan driver or device, the validation layer, a
// tool such as glslc): the test fails, and its message says what is
// missing and which setup step brings it (scripts/test.sh installs all of
// it), so that a plain `go test ./...` on a fresh clone never passes by
// skipping what it could not run. A developer who wants such tests skipped
// says so with VKBENCH_SKIP_UNAVAILABLE=1: go test -v lists the skips, and
// a plain go test, which shows nothing of a package that passed, still
// says in one line a package that it skipped (see announce);
// where CI or VKBENCH_REQUIRE_VALIDATION is set (scripts/test.sh sets the
// latter) nothing is ever skipped. Every test that checks for such a thing
// ends through Unavailable.
//
// It holds too what the tests of several packages check alike:
// ContextEnd, a call that must end when its context does.
//
// It imports only the standard library and status (a leaf), so that the
// tests of every package but status can use it, package vk's white-box
// tests included.
package testenv

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// Strict reports whether the suite runs as CI runs it: whether CI or
// VKBENCH_REQUIRE_VALIDATION is set. Then the validation layer is
// required as well (elsewhere tests without it run unvalidated), and
// SkipVar is ignored.
func Strict() bool { return strictBy() != "" }

// strictBy names the variable that makes the suite strict, or is "".
func strictBy() string {
	for _, v := range []string{"CI", "VKBENCH_REQUIRE_VALIDATION"} {
		if os.Getenv(v) != "" {
			return v
		}
	}
	return ""
}

// SkipVar is the environment variable that lets tests skip what they
// need and cannot find, where the suite is not Strict.
const SkipVar = "VKBENCH_SKIP_UNAVAILABLE"

// setup is what every failure for something missing advises.
const setup = "bash scripts/test.sh installs what the tests need; or set " + SkipVar + "=1 to skip such tests"

// Unavailable ends tb because something it needs is not here, as the
// message formatted from format and args says: a failure that names the
// setup step, or a skip where SkipVar is set and the suite is not Strict.
func Unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	what := fmt.Sprintf(format, args...)
	if v := strictBy(); v != "" {
		tb.Fatalf("%s (required here because %s is set)", what, v)
	}
	if os.Getenv(SkipVar) != "" {
		line := fmt.Sprintf("%s: skipping tests that need what is not here (%s is set; go test -v lists them): %s", pkgName(), SkipVar, what)
		if r, ok := tb.(*recorder); ok {
			r.mu.Lock()
			r.out.Announced = append(r.out.Announced, line)
			r.mu.Unlock()
		} else {
			announced.Do(func() { announce(line) })
		}
		tb.Skipf("%s (skipped because %s is set)", what, SkipVar)
	}
	tb.Fatalf("%s (%s)", what, setup)
}

// NeedGlslc ends tb as Unavailable where glslc, the GLSL compiler that
// GLSL kernels and the tests' own shaders need, is not on the PATH.
func NeedGlslc(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("glslc"); err != nil {
		Unavailable(tb, "glslc is not on the PATH")
	}
}

// SkipExamplesWithout, called by a package's TestMain before m.Run, leaves
// the package's examples out of the run (as -test.skip '^Example' would)
// where SkipVar is set, the suite is not Strict and missing, which says
// why what they need is not here, returns an error. An example cannot
// skip: one that needs a device fails without one, so the examples go as
// a whole, announced in the one line of the process's first skip.
func SkipExamplesWithout(missing func() error) {
	if Strict() || os.Getenv(SkipVar) == "" {
		return
	}
	err := missing()
	if err == nil {
		return
	}
	flag.Parse()
	skip := "^Example"
	if old := flag.Lookup("test.skip").Value.String(); old != "" {
		skip = old + "|" + skip
	}
	if err := flag.Set("test.skip", skip); err != nil {
		panic(err)
	}
	announced.Do(func() {
		announce(fmt.Sprintf("%s: skipping its examples and the tests that need what is not here (%s is set; go test -v lists the tests): %v", pkgName(), SkipVar, err))
	})
}

// pkgName is the package under test: its import path where the test
// binary knows it, else the binary's name.
func pkgName() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
}

// announced makes the first skip of a process announce itself.
var announced sync.Once

// announce tells the person running the tests that some are skipped. go
// test shows nothing of a package that passed unless -v: what the test
// binary writes goes to the go command, which drops it. So where the
// binary's parent is the go command (Linux), the line goes to the go
// command's own standard error, /proc/<parent>/fd/2, where the person
// running go test sees it: a terminal or a pipe. Otherwise (the binary run
// by hand, another system, go test's output going to a file) it goes to
// the terminal (/dev/tty, never created), where there is one.
var announce = func(line string) {
	path := "/dev/tty"
	parent := fmt.Sprintf("/proc/%d/", os.Getppid())
	if comm, err := os.ReadFile(parent + "comm"); err == nil && strings.TrimSpace(string(comm)) == "go" {
		// A regular file is left alone: the go command writes it at an
		// offset of its own, which would write over the line and leave
		// its tail behind.
		if fi, err := os.Stat(parent + "fd/2"); err == nil && !fi.Mode().IsRegular() {
			path = parent + "fd/2"
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	_, _ = fmt.Fprintln(f, line)
	_ = f.Close()
}

// Outcome is what a test helper did to the testing.TB it was given.
type Outcome struct {
	Failed, Skipped bool
	// Messages are those of Error, Fatal, Skip and Log, in order.
	Messages []string
	// Announced is what Unavailable would have announced of a skip (each
	// process's first, to the person running the tests): an observed test
	// announces nothing.
	Announced []string
}

// Observe runs f with a testing.TB that records failures, skips and logs
// instead of reporting them to tb, and returns what f did with it: for
// tests of test helpers. f runs in a goroutine of its own, so that
// FailNow and SkipNow end f as they end a test. Other methods (Cleanup,
// TempDir, Setenv, ...) are tb's.
func Observe(tb testing.TB, f func(testing.TB)) Outcome {
	tb.Helper()
	r := &recorder{TB: tb}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.outcome()
}

// recorder is the testing.TB Observe gives its function.
type recorder struct {
	testing.TB
	mu  sync.Mutex
	out Outcome
}

func (r *recorder) note(failed, skipped bool, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.Failed = r.out.Failed || failed
	r.out.Skipped = r.out.Skipped || skipped
	if msg != "" {
		r.out.Messages = append(r.out.Messages, msg)
	}
}

func (r *recorder) outcome() Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out
}

func (r *recorder) Helper()                           {}
func (r *recorder) Log(args ...any)                   { r.note(false, false, fmt.Sprint(args...)) }
func (r *recorder) Logf(format string, args ...any)   { r.Log(fmt.Sprintf(format, args...)) }
func (r *recorder) Fail()                             { r.note(true, false, "") }
func (r *recorder) Error(args ...any)                 { r.note(true, false, fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) { r.Error(fmt.Sprintf(format, args...)) }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) SkipNow()                          { r.note(false, true, ""); runtime.Goexit() }
func (r *recorder) Skip(args ...any)                  { r.note(false, true, fmt.Sprint(args...)); runtime.Goexit() }
func (r *recorder) Skipf(format string, args ...any)  { r.Skip(fmt.Sprintf(format, args...)) }
func (r *recorder) Failed() bool                      { return r.outcome().Failed }
func (r *recorder) Skipped() bool                     { return r.outcome().Skipped }

// Opening holds the complaints a driver makes while a test opens it (a
// loader with no driver to load says so before it fails) until the test
// knows whether it opened: Opened(true) reports them, each through
// report; Opened(false) drops them, since the failure to open says what
// is missing, and a test skipped for it must not fail for what the loader
// said on the way. Complaints after Opened go straight to report. It is
// safe from any goroutine.
type Opening struct {
	mu     sync.Mutex
	report func(string)
	opened bool
	held   []string
}

// NewOpening returns an Opening that reports through report.
func NewOpening(report func(string)) *Opening { return &Opening{report: report} }

// Complain reports s, or holds it while the driver opens.
func (o *Opening) Complain(s string) {
	o.mu.Lock()
	if !o.opened {
		o.held = append(o.held, s)
		o.mu.Unlock()
		return
	}
	o.mu.Unlock()
	o.report(s)
}

// Opened ends the opening: it reports what was held where ok, and drops
// it where not.
func (o *Opening) Opened(ok bool) {
	o.mu.Lock()
	held := o.held
	o.held, o.opened = nil, true
	o.mu.Unlock()
	if ok {
		for _, s := range held {
			o.report(s)
		}
	}
}
