package testenv_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
)

// TestUnavailable checks the one rule: what a test needs and does not find
// fails it, naming the setup step, unless VKBENCH_SKIP_UNAVAILABLE asks
// for a skip; where CI or VKBENCH_REQUIRE_VALIDATION is set it fails even
// then.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		strict   bool
		want     testenv.Outcome
		mentions string
	}{
		{"nothing set", map[string]string{"CI": "", "VKBENCH_REQUIRE_VALIDATION": "", testenv.SkipVar: ""}, false,
			testenv.Outcome{Failed: true}, "bash scripts/test.sh installs what the tests need; or set VKBENCH_SKIP_UNAVAILABLE=1"},
		{"skip asked", map[string]string{"CI": "", "VKBENCH_REQUIRE_VALIDATION": "", testenv.SkipVar: "1"}, false,
			testenv.Outcome{Skipped: true}, "skipped because VKBENCH_SKIP_UNAVAILABLE is set"},
		{"CI", map[string]string{"CI": "true", "VKBENCH_REQUIRE_VALIDATION": "", testenv.SkipVar: "1"}, true,
			testenv.Outcome{Failed: true}, "because CI is set"},
		{"VKBENCH_REQUIRE_VALIDATION", map[string]string{"CI": "", "VKBENCH_REQUIRE_VALIDATION": "1", testenv.SkipVar: ""}, true,
			testenv.Outcome{Failed: true}, "because VKBENCH_REQUIRE_VALIDATION is set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if got := testenv.Strict(); got != tc.strict {
				t.Errorf("Strict() = %v, want %v", got, tc.strict)
			}
			after := false
			got := testenv.Observe(t, func(tb testing.TB) {
				testenv.Unavailable(tb, "no %s here", "Vulkan device")
				after = true
			})
			// A skip says so without -v, naming what was missing; a
			// failure says so itself.
			lines := got.Announced
			if tc.want.Skipped {
				if len(lines) != 1 || !strings.HasPrefix(lines[0], "github.com/vkbench/vkbench/internal/testenv: skipping tests") || !strings.Contains(lines[0], "no Vulkan device here") || !strings.Contains(lines[0], testenv.SkipVar) {
					t.Errorf("announced %q; want one line naming the package, what was missing and %s", lines, testenv.SkipVar)
				}
			} else if len(lines) != 0 {
				t.Errorf("announced %q for a failure", lines)
			}
			if after {
				t.Error("Unavailable returned: the test went on")
			}
			if len(got.Messages) != 1 || !strings.HasPrefix(got.Messages[0], "no Vulkan device here (") || !strings.Contains(got.Messages[0], tc.mentions) {
				t.Errorf("messages %q, want one that says what is missing and mentions %q", got.Messages, tc.mentions)
			}
			got.Messages, got.Announced = nil, nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObserve checks the recorder itself: each way of ending or marking
// a test is recorded, and FailNow and SkipNow end the function.
func TestObserve(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(testing.TB)
		want testenv.Outcome
	}{
		{"nothing", func(testing.TB) {}, testenv.Outcome{}},
		{"log", func(tb testing.TB) { tb.Logf("a %d", 1) }, testenv.Outcome{Messages: []string{"a 1"}}},
		{"error goes on", func(tb testing.TB) { tb.Error("e"); tb.Log("after") }, testenv.Outcome{Failed: true, Messages: []string{"e", "after"}}},
		{"fatal stops", func(tb testing.TB) { tb.Fatalf("f %s", "x"); tb.Log("after") }, testenv.Outcome{Failed: true, Messages: []string{"f x"}}},
		{"skip stops", func(tb testing.TB) { tb.Skip("s"); tb.Log("after") }, testenv.Outcome{Skipped: true, Messages: []string{"s"}}},
		{"Failed", func(tb testing.TB) {
			tb.Fail()
			if tb.Failed() {
				tb.Log("failed")
			}
		}, testenv.Outcome{Failed: true, Messages: []string{"failed"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := testenv.Observe(t, tc.f)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpening: what a driver says while it is opened counts only if it
// opened; after that, at once.
func TestOpening(t *testing.T) {
	var got []string
	o := testenv.NewOpening(func(s string) { got = append(got, s) })
	o.Complain("no driver here")
	o.Opened(false)
	o.Complain("later")
	if diff := cmp.Diff([]string{"later"}, got); diff != "" {
		t.Errorf("not opened (-want +got):\n%s", diff)
	}
	got = nil
	o = testenv.NewOpening(func(s string) { got = append(got, s) })
	o.Complain("a")
	o.Complain("b")
	if len(got) != 0 {
		t.Errorf("reported %q before it opened", got)
	}
	o.Opened(true)
	o.Complain("c")
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("opened (-want +got):\n%s", diff)
	}
}

// TestAnnounceThroughGoTest runs a plain go test of a package whose test
// and example need what is not here (testdata/skipper): with
// VKBENCH_SKIP_UNAVAILABLE set it passes and says so in one line that
// reaches go test's caller, here a pipe, though go test drops the output
// of a package that passed; without it, it fails naming the setup step.
func TestAnnounceThroughGoTest(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		testenv.Unavailable(t, "no go command on the PATH: %v", err)
	}
	const pkg = "./internal/testenv/testdata/skipper"
	for _, skip := range []bool{true, false} {
		cmd := exec.Command(goCmd, "test", "-count=1", pkg)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = []string{}
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); !slices.Contains([]string{"CI", "VKBENCH_REQUIRE_VALIDATION", testenv.SkipVar}, k) {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		if skip {
			cmd.Env = append(cmd.Env, testenv.SkipVar+"=1")
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		t.Logf("skip %v: go test: %v\nstdout:\n%s\nstderr:\n%s", skip, err, stdout.String(), stderr.String())
		var said []string
		for _, l := range strings.Split(stdout.String()+stderr.String(), "\n") {
			if strings.HasPrefix(l, "github.com/vkbench/vkbench/internal/testenv/testdata/skipper: skipping") {
				said = append(said, l)
			}
		}
		if skip {
			if err != nil || !strings.HasPrefix(stdout.String(), "ok ") {
				t.Errorf("with %s set: %v, stdout %q; want ok", testenv.SkipVar, err, stdout.String())
			}
			if len(said) != 1 || !strings.Contains(said[0], "its examples") || !strings.Contains(said[0], "no widget here") || !strings.HasPrefix(stderr.String(), said[0]) {
				t.Errorf("with %s set, said %q on stdout and stderr; want one line on stderr, naming the examples and what is missing", testenv.SkipVar, said)
			}
			if err == nil {
				// go test's output into a file, as `go test > log 2>&1`
				// writes it: the file must hold go's lines and nothing over
				// or after them.
				log, err := os.Create(filepath.Join(t.TempDir(), "log"))
				if err != nil {
					t.Fatal(err)
				}
				again := exec.Command(goCmd, "test", "-count=1", pkg)
				again.Dir, again.Env, again.Stdout, again.Stderr = cmd.Dir, cmd.Env, log, log
				runErr := again.Run()
				if err := log.Close(); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(log.Name())
				if err != nil {
					t.Fatal(err)
				}
				if runErr != nil || !strings.HasPrefix(string(got), "ok ") || strings.Count(string(got), "\n") != 1 {
					t.Errorf("go test into a file: %v, the file holds %q; want go's one ok line alone", runErr, got)
				}
			}
			continue
		}
		if err == nil || !strings.Contains(stdout.String(), "bash scripts/test.sh installs what the tests need") || !strings.Contains(stdout.String(), "--- FAIL: Example") {
			t.Errorf("without %s: %v; want the test failed naming the setup step, and the example failed", testenv.SkipVar, err)
		}
		if len(said) != 0 {
			t.Errorf("without %s, said %q", testenv.SkipVar, said)
		}
	}
}

// TestContextEnd: the check passes a call that returns its context's
// error at its end, and fails one that returns another error, one of
// another code, one that does not name what it must, and one that returns
// past the bound, which ends the check.
func TestContextEnd(t *testing.T) {
	atEnd := func(ctx context.Context) error { <-ctx.Done(); return fmt.Errorf("x: %w", ctx.Err()) }
	for _, tc := range []struct {
		name   string
		check  testenv.ContextEnd
		call   func(context.Context) error
		failed bool
	}{
		{"at the end", testenv.ContextEnd{Within: time.Minute, Names: "x:"}, atEnd, false},
		{"late", testenv.ContextEnd{Within: time.Minute, Late: true}, func(ctx context.Context) error {
			if ctx.Err() == nil {
				return errors.New("called before its context ended")
			}
			return ctx.Err()
		}, false},
		{"no error", testenv.ContextEnd{Within: time.Minute}, func(context.Context) error { return nil }, true},
		{"another code", testenv.ContextEnd{Within: time.Minute}, func(ctx context.Context) error {
			<-ctx.Done()
			return status.Wrap(ctx.Err(), status.Unavailable, "down")
		}, true},
		{"not named", testenv.ContextEnd{Within: time.Minute, Names: "the file"}, atEnd, true},
		{"past the bound", testenv.ContextEnd{Within: time.Millisecond}, func(ctx context.Context) error {
			<-ctx.Done()
			time.Sleep(100 * time.Millisecond)
			return ctx.Err()
		}, true},
	} {
		got := testenv.Observe(t, func(tb testing.TB) { tc.check.Check(tb, tc.name, tc.call) })
		if got.Failed != tc.failed {
			t.Errorf("%s: failed %v, want %v: %q", tc.name, got.Failed, tc.failed, got.Messages)
		}
		if tc.name == "past the bound" && len(got.Messages) != 2 {
			t.Errorf("%s: %q; want the first call's log and failure alone", tc.name, got.Messages)
		}
	}
}
