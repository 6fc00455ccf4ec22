//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/vkbench/vkbench/internal/redistest"
	"github.com/vkbench/vkbench/store"
)

// stoppedAt runs args as a process and stops it (SIGSTOP) once a line of
// its stderr matches re: it keeps what it held then (a lock in the
// shared store, no longer renewed) until the test ends and kills it.
func stoppedAt(t *testing.T, re *regexp.Regexp, args ...string) *os.Process {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), "VKBENCH_TEST_MAIN=1")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // SIGKILL ends a stopped process too
		_ = cmd.Wait()         // killed: its status says so
	})
	var seen strings.Builder
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if re.MatchString(sc.Text()) {
			if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = io.Copy(io.Discard, pipe) }() // until it is killed
			return cmd.Process
		}
	}
	t.Fatalf("vkbench %s ended before a line of its stderr matched %s:\n%s", strings.Join(args, " "), re, seen.String())
	return nil
}

// TestFleetWaitShown: a tune and a search that wait for another machine's
// lock say so on a stderr that is no terminal, without -v: which key,
// which process holds it (host and process id), and how long they may
// wait; the search again after each lock wait. The search, interrupted
// (SIGINT) while it waits, exits 130 as any interrupted command does,
// having begun no tuning log. The holder is a vkbench process stopped
// while it holds the lock (its lock-expiry is long).
func TestFleetWaitShown(t *testing.T) {
	needDevice(t)
	srv := redistest.Start(t)
	dir := t.TempDir()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	quick := []string{"--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--store"}
	holdURL := srv.URL() + "&lock-expiry=10m"
	holder := func(re string, args ...string) string {
		p := stoppedAt(t, regexp.MustCompile(re), append(append(args, "-v", "--cache", filepath.Join(dir, "h.db")), append(quick, holdURL)...)...)
		return fmt.Sprintf("another machine (%s pid %d) holds its lock in the shared store; ", host, p.Pid)
	}

	held := holder(`autotune: prepared`, "tune", "copy", "--size", "4096")
	r := mustRun(t, 0, append([]string{"tune", "copy", "--size", "4096", "--cache", filepath.Join(dir, "t.db")}, append(quick, holdURL+"&lock-wait=1s")...)...)
	if want := "copy/u32/4096: " + held + "waiting up to 1s for its answer, then tuning here\n"; !strings.HasPrefix(r.stderr, want) ||
		!strings.Contains(r.stderr, "waited 1s for another machine's tune of copy/u32/4096; tuning it here") {
		t.Errorf("the tune's stderr does not start with\n%sand then say it tunes:\n%s", want, r.stderr)
	}
	// On a terminal the line comes above the bar, which is redrawn with
	// the wait, rather than stand still, and cleared as the wait ends,
	// before the warning that it was given up.
	held = holder(`autotune: prepared`, "tune", "copy", "--size", "8192")
	got, _ := runOnTerminal(t, "xterm-256color", append([]string{"tune", "copy", "--size", "8192", "--cache", filepath.Join(dir, "t2.db")}, append(quick, holdURL+"&lock-wait=1s")...)...)
	if n := strings.Count(got, "copy/u32/8192: waiting for another machine ("); !strings.Contains(got, "copy/u32/8192: "+held+"waiting up to 1s") || n < 3 {
		t.Errorf("on a terminal: the bar drew the wait %d times in its second (want 3 or more), or the line is missing:\n%q", n, got)
	}
	if m := regexp.MustCompile(`\[\d+s\] *vkbench: warning`).FindString(got); m != "" {
		t.Errorf("on a terminal, the warning was written onto the bar: %q", m)
	}

	search := []string{"tune", "gemm", "--strategy", "exhaustive", "--size", "64x64x64"}
	held = holder(`^search: 1/`, search...)
	still := regexp.MustCompile(`(?m)^gemm\.space/f32/64x64x64: still waiting for another machine \(` + regexp.QuoteMeta(fmt.Sprintf("%s pid ", host)) + `\d+\), \ds so far$`)
	r, _ = interruptedAfter(t, append(append(search, "--cache", filepath.Join(dir, "s.db")), append(quick, holdURL+"&lock-wait=1s")...),
		regexp.MustCompile(`(?s)still waiting.*still waiting`), syscall.SIGINT)
	if want := "gemm.space/f32/64x64x64: " + held + "waiting as long as it renews the lock\n"; !strings.HasPrefix(r.stderr, want) || len(still.FindAllString(r.stderr, -1)) < 2 {
		t.Errorf("the search's stderr does not start with\n%sand then say at each lock wait that it still waits:\n%s", want, r.stderr)
	}
	// Interrupted while it waits, it stops as any interrupted command
	// does, having begun no tuning log.
	if !strings.HasSuffix(r.stderr, "vkbench: interrupted by SIGINT: stopped; no results written, winners already in the tune cache kept\n") || r.code != 130 {
		t.Errorf("the search interrupted while it waited: exit status %d, want 130 and a last line saying so:\n%s", r.code, r.stderr)
	}
	c, err := store.Open(store.Options{Path: filepath.Join(dir, "s.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }() // read only
	if logs, err := c.TuneLogs(t.Context()); len(logs) != 0 || err != nil {
		t.Errorf("the search interrupted while it waited began tuning logs %v (%v); want none", logs, err)
	}
}

// TestFleetTakeoverShown: a tune whose question's lock is held by a
// vkbench process of this host that was killed (SIGKILL) takes the lock
// over at once and says so on stderr without -v, naming the dead process;
// it neither waits (its lock wait is 1 s, its lock's expiry 10 minutes)
// nor warns.
func TestFleetTakeoverShown(t *testing.T) {
	needDevice(t)
	srv := redistest.Start(t)
	dir := t.TempDir()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	quick := []string{"--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--store", srv.URL() + "&lock-expiry=10m&lock-wait=1s"}
	p := stoppedAt(t, regexp.MustCompile(`autotune: prepared`), append([]string{"tune", "copy", "--size", "4096", "-v", "--cache", filepath.Join(dir, "h.db")}, quick...)...)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, 0, append([]string{"tune", "copy", "--size", "4096", "--cache", filepath.Join(dir, "t.db")}, quick...)...)
	want := fmt.Sprintf("copy/u32/4096: took over the lock in the shared store of %s pid %d, which no longer runs on this host\n", host, p.Pid)
	if !strings.HasPrefix(r.stderr, want) || strings.Contains(r.stderr, "holds its lock") || strings.Contains(r.stderr, "warning") {
		t.Errorf("the tune's stderr does not start with\n%sor it waited, or warned:\n%s", want, r.stderr)
	}
}

// TestFileWaitShown: without a shared store, a tune of a question that
// another vkbench process sharing the cache file is tuning waits for its
// answer and says so (which process holds the lock in the cache file),
// rather than measure the question beside it; interrupted, it exits 130.
// Once the holder is killed, its lock is taken over at once and the
// question tuned.
func TestFileWaitShown(t *testing.T) {
	needDevice(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	tune := []string{"tune", "copy", "--size", "4096", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--cache", filepath.Join(t.TempDir(), "c.db")}
	p := stoppedAt(t, regexp.MustCompile(`autotune: prepared`), append(tune, "-v")...)
	r, _ := interruptedAfter(t, tune, regexp.MustCompile(`holds its lock`), syscall.SIGINT)
	want := fmt.Sprintf("copy/u32/4096: another process (%s pid %d) holds its lock in the cache file; waiting up to 10m0s for its answer, then tuning here\n", host, p.Pid)
	if !strings.HasPrefix(r.stderr, want) || r.code != 130 {
		t.Errorf("the tune that waited: exit status %d (want 130), and its stderr does not start with\n%s%s", r.code, want, r.stderr)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, 0, tune...)
	want = fmt.Sprintf("copy/u32/4096: took over the lock in the cache file of %s pid %d, which no longer runs on this host\n", host, p.Pid)
	if !strings.HasPrefix(r.stderr, want) || strings.Contains(r.stderr, "warning") {
		t.Errorf("the tune after the holder died: its stderr does not start with\n%sor it warned:\n%s", want, r.stderr)
	}
}
