//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/vkbench/vkbench/autotune"
)

// runOnTerminal runs args as a process, through main as a user runs it,
// with stderr a pseudo-terminal of type termType, and returns what the
// terminal received and how long it took.
func runOnTerminal(t *testing.T, termType string, args ...string) (string, time.Duration) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	// Raw: what is read is exactly what was written.
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatalf("making the pseudo-terminal raw: %v", err)
	}
	cmd := exec.CommandContext(context.Background(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), "VKBENCH_TEST_MAIN=1", "TERM="+termType)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, tty
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, ptmx) // ends with EIO once no process holds the terminal end
		got <- b.Bytes()
	}()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := tty.Close(); err != nil { // the child holds its own
		t.Error(err)
	}
	runErr := cmd.Wait()
	took := time.Since(start)
	data := <-got
	if err := ptmx.Close(); err != nil {
		t.Error(err)
	}
	if runErr != nil {
		t.Fatalf("vkbench %s: %v\n%s", strings.Join(args, " "), runErr, data)
	}
	checkDriverMessages(t, args, string(data))
	return string(data), took
}

// TestProgressThrottled runs a 2-second measurement of many short samples
// as a process, its stderr a terminal. The bar was once never drawn (main
// wraps stderr, and the bar looked for a terminal file), and before that
// redrew at every sample, some 3000 times (350 KB); it now redraws, at most
// about ten times a second. A dumb terminal, which cannot redraw, gets
// plain lines, at most one a second and one for each new step; stderr that
// is not a terminal gets nothing.
func TestProgressThrottled(t *testing.T) {
	needDevice(t)
	run := []string{"run", "copy", "--size", "1024", "--budget", "2s", "--precision", "0.001", "--max-samples", "100000", "--min-samples", "6", "--cache", "off"}
	t.Run("terminal", func(t *testing.T) {
		got, took := runOnTerminal(t, "xterm-256color", run...)
		// Each redraw writes the key and the step.
		draws := strings.Count(got, "copy/u32/1024: ")
		if limit := int(took.Seconds()*12) + 5; draws > limit || draws < 2 {
			t.Errorf("%d redraws in %v (%d bytes), want between 2 and %d", draws, took.Round(time.Millisecond), len(got), limit)
		}
		t.Logf("%d redraws, %d bytes in %v", draws, len(got), took.Round(time.Millisecond))
	})
	t.Run("not-a-terminal", func(t *testing.T) {
		r := vkbenchProcess(t, []string{"TERM=xterm-256color"}, append(run[:len(run):len(run)], "--budget", "300ms")...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("exit status %d, stderr %q; want 0 and nothing on a stderr that is no terminal", r.code, r.stderr)
		}
	})
	t.Run("dumb", func(t *testing.T) {
		got, took := runOnTerminal(t, "dumb", run...)
		if strings.ContainsAny(got, "\r\x1b") {
			t.Errorf("a dumb terminal got carriage returns or escape sequences:\n%q", got)
		}
		lines := strings.Count(got, "\n")
		if limit := int(took.Seconds()) + 4; lines > limit || lines == 0 {
			t.Errorf("%d lines in %v, want between 1 and %d:\n%s", lines, took.Round(time.Millisecond), limit, got)
		}
		for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
			if !strings.HasPrefix(l, "copy/u32/1024: ") {
				t.Errorf("line %q is not a step of copy/u32/1024", l)
			}
		}
	})
}

// TestWarningAboveProgress: a warning logged while the bar is drawn (the
// store's, as the tune's commit moves a damaged cache file aside) starts a
// line of its own, the bar's line erased first; warnings were once
// written onto the end of the spinner's line.
func TestWarningAboveProgress(t *testing.T) {
	needDevice(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "cache", "damaged-truncated-in-first-page.db"))
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "damaged.db")
	if err := os.WriteFile(cache, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := runOnTerminal(t, "xterm-256color", "tune", "copy", "--size", "1024", "--budget", "300ms", "--min-samples", "6", "--max-samples", "6", "--cache", cache)
	moved := strings.Index(got, "vkbench: warning: store: cache "+cache+" was damaged")
	if moved < 0 || !strings.Contains(got[:moved], "copy/u32/1024: ") {
		t.Fatalf("the warning that the damaged cache was moved aside is missing, or came before the bar was drawn:\n%q", got)
	}
	for i := 0; ; i++ {
		at := strings.Index(got[i:], "vkbench: warning: ")
		if at < 0 {
			break
		}
		i += at
		if before := got[:i]; before != "" && !strings.HasSuffix(before, "\n") && !strings.HasSuffix(before, eraseLine) {
			t.Errorf("a warning does not start a line: %q", got[max(0, i-60):min(len(got), i+60)])
		}
	}
}

// TestLinesAboveBar: while a bar is drawn on the command's stderr, a
// warning logged there, as the bar is redrawn from another goroutine,
// starts a line of its own, the bar's line erased first; a line written in
// two parts is erased before its first only; once the bar has finished,
// lines are written as they come.
func TestLinesAboveBar(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatalf("making the pseudo-terminal raw: %v", err)
	}
	got := make(chan string)
	go func() {
		var b strings.Builder
		_, _ = io.Copy(&b, ptmx) // ends with EIO once the terminal end is closed
		got <- b.String()
	}()
	t.Setenv("TERM", "xterm-256color")
	stderr := &quietWriter{w: tty}
	bar := newProgress(stderr, false)
	step := func(i int) {
		bar.update(autotune.Progress{Key: "copy/u32/1024", Step: "sample", Candidate: "vec4-wg128", Done: i})
	}
	step(0) // the first step is drawn at once
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 30 {
			step(i + 1)
			time.Sleep(10 * time.Millisecond)
		}
	})
	time.Sleep(50 * time.Millisecond)
	warningLogger(stderr).Warn("autotune: answer kept in memory only")
	wg.Wait()
	_, _ = io.WriteString(stderr, "a line ")
	_, _ = io.WriteString(stderr, "in two parts\n")
	bar.finish()
	_, _ = io.WriteString(stderr, "after the bar\n")
	if err := tty.Close(); err != nil {
		t.Fatal(err)
	}
	out := <-got
	if err := ptmx.Close(); err != nil {
		t.Error(err)
	}
	before := func(s string) string {
		i := strings.Index(out, s)
		if i < 0 {
			t.Fatalf("%q is missing:\n%q", s, out)
		}
		return out[:i]
	}
	if b := before("vkbench: warning: autotune: answer kept in memory only\n"); !strings.Contains(b, "copy/u32/1024: sample") || !strings.HasSuffix(b, eraseLine) {
		t.Errorf("the warning was not written on a line erased after the bar was drawn:\n%q", out)
	}
	if b := before("a line in two parts\n"); !strings.HasSuffix(b, eraseLine) {
		t.Errorf("the line in two parts does not start on an erased line:\n%q", out)
	}
	if b := before("after the bar\n"); strings.HasSuffix(b, eraseLine) {
		t.Errorf("a line after the bar finished was erased before:\n%q", out)
	}
}
