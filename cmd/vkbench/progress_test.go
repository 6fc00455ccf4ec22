//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// openPTY opens a pseudo-terminal: the terminal end, which a command
// writes to as it would to a user's terminal, and the other end, which
// reads what it wrote.
func openPTY(t *testing.T) (tty, reader *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pseudo-terminal: %v", err)
	}
	// Raw: what is read is exactly what was written.
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatalf("making the pseudo-terminal raw: %v", err)
	}
	return tty, ptmx
}

// runOnTerminal runs args in-process with stderr a terminal of type
// termType, and returns what the terminal received and how long it took.
func runOnTerminal(t *testing.T, termType string, args ...string) (string, time.Duration) {
	t.Helper()
	t.Setenv("TERM", termType)
	tty, reader := openPTY(t)
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, reader) // ends with EIO once the terminal end is closed
		got <- b.Bytes()
	}()
	var out bytes.Buffer
	start := time.Now()
	code := execute(context.Background(), args, &out, tty)
	took := time.Since(start)
	if err := tty.Close(); err != nil {
		t.Error(err)
	}
	data := <-got
	if err := reader.Close(); err != nil {
		t.Error(err)
	}
	if code != 0 {
		t.Fatalf("vkbench %s: exit status %d\n%s", strings.Join(args, " "), code, data)
	}
	return string(data), took
}

// TestProgressThrottled runs a 2-second measurement of many short samples
// with its progress on a terminal. The bar once redrew at every sample,
// some 3000 times (350 KB); it now redraws at most about ten times a
// second. A dumb terminal, which cannot redraw, gets plain lines, at most
// one a second and one for each new step.
func TestProgressThrottled(t *testing.T) {
	needDevice(t)
	run := []string{"run", "copy", "--size", "1024", "--budget", "2s", "--precision", "0.001", "--max-samples", "100000", "--min-samples", "6", "--cache", "off"}
	t.Run("terminal", func(t *testing.T) {
		got, took := runOnTerminal(t, "xterm-256color", run...)
		// Each redraw writes the key and the step.
		draws := strings.Count(got, "copy/u32/1024: ")
		if limit := int(took.Seconds()*12) + 5; draws > limit || draws == 0 {
			t.Errorf("%d redraws in %v (%d bytes), want between 1 and %d", draws, took.Round(time.Millisecond), len(got), limit)
		}
		t.Logf("%d redraws, %d bytes in %v", draws, len(got), took.Round(time.Millisecond))
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
