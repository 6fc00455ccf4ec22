package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/vkbench/vkbench/autotune"
)

// How often progress is drawn at most: a spinner redrawn in place ten
// times a second reads as live; a dumb terminal, which cannot redraw, gets
// a plain line when the step changes, at most once a second.
const (
	redrawEvery = 100 * time.Millisecond
	lineEvery   = time.Second
)

// eraseLine returns to the start of a terminal's line and erases it.
const eraseLine = "\r\x1b[2K"

// progress shows what a long measurement is doing, on a terminal: a
// spinner with the current step redrawn in place, or plain lines where the
// terminal cannot redraw (TERM=dumb). Elsewhere (a file, a pipe) nothing:
// the output is for programs. Its update is called for every sample, up
// to thousands of times a second; what it draws is throttled.
type progress struct {
	bar    *progressbar.ProgressBar // made at its first draw
	stderr *quietWriter             // what the bar is drawn on
	out    io.Writer                // the bar's writer on it, where a bar is drawn

	mu    sync.Mutex
	lines io.Writer // dumb terminal
	notes io.Writer // a wait's and a takeover's lines: stderr, unless -v logs them
	last  time.Time
	step  string // the last line's step, to draw one when it changes
}

// startProgress shows the progress of what opts measure on cmd's stderr
// (unless quiet, or -v, which rather logs there where the time goes).
func startProgress(cmd *cobra.Command, quiet bool, opts *autotune.Options) *progress {
	bar := newProgress(cmd.ErrOrStderr(), quiet || verbose(cmd))
	opts.Progress = bar.update
	if verbose(cmd) {
		opts.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	} else {
		bar.notes = cmd.ErrOrStderr()
	}
	return bar
}

// newProgress draws progress on w where w is, or writes through to, a
// terminal (main's stderr is a quietWriter around one), and not quiet.
// The bar is drawn through w's barWriter, where w is the command's
// quietWriter, so that the others' lines on w are written above it.
func newProgress(w io.Writer, quiet bool) *progress {
	switch {
	case quiet || terminal(w) == nil:
		return &progress{}
	case os.Getenv("TERM") == "dumb":
		return &progress{lines: w}
	}
	q, ok := w.(*quietWriter)
	if !ok {
		q = &quietWriter{w: w}
	}
	return &progress{stderr: q, out: q.barWriter()}
}

// draw draws the bar with text, making it at the first draw: drawn as it
// is made, it is started before its spinner's goroutine, which reads the
// start time without the bar's lock (started by a first Describe, that
// was a data race). Called with p.mu held.
func (p *progress) draw(text string) {
	if p.bar == nil {
		p.bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(p.out), progressbar.OptionSpinnerType(14), progressbar.OptionClearOnFinish(),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionThrottle(redrawEvery), progressbar.OptionSetDescription(text), progressbar.OptionSetRenderBlankState(true))
		return
	}
	p.bar.Describe(text)
	_ = p.bar.Add(1) // a progress bar that cannot draw must not stop the work
}

// terminal is the terminal w is or writes through to, or nil: a writer
// around another says which by its Unwrap method, an output (outFile) by
// what it writes to.
func terminal(w io.Writer) *os.File {
	for {
		switch v := w.(type) {
		case *os.File:
			if term.IsTerminal(int(v.Fd())) {
				return v
			}
			return nil
		case interface{ Unwrap() io.Writer }:
			w = v.Unwrap()
		case *outFile:
			w = v.w
		default:
			return nil
		}
	}
}

// terminalWidth is the width of the terminal w writes to (terminal),
// columns where the terminal does not say, and 0 where w writes to no
// terminal.
func terminalWidth(w io.Writer) tableWidth {
	t := terminal(w)
	if t == nil {
		return 0
	}
	if n, _, err := term.GetSize(int(t.Fd())); err == nil && n > 0 {
		return tableWidth(n)
	}
	return columns
}

func (p *progress) update(ev autotune.Progress) {
	switch ev.Step {
	case "wait", "waiting", "waited":
		p.wait(ev)
		return
	case "took over":
		p.tookOver(ev)
		return
	}
	if p.out == nil && p.lines == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.lines != nil {
		step := ev.Key + ": " + ev.Step
		if step == p.step && now.Sub(p.last) < lineEvery || now.Sub(p.last) < redrawEvery {
			return
		}
		p.step, p.last = step, now
		_, _ = fmt.Fprintf(p.lines, "%s %s %d\n", step, ev.Candidate, ev.Done) // progress that cannot be drawn must not stop the work
		return
	}
	if now.Sub(p.last) < redrawEvery {
		return
	}
	p.last = now
	p.draw(fmt.Sprintf("%s: %s %s %d", ev.Key, ev.Step, ev.Candidate, ev.Done))
}

// wait shows a wait for another machine of the fleet, or another process
// sharing the cache file: a line as it starts and after each lock wait it
// goes on, on any stderr (above the bar, where one is drawn), and the bar
// redrawn with what it waits for, so that it does not look frozen;
// cleared as the wait ends, for the lines that follow (the answer taken,
// the warning of a wait given up).
func (p *progress) wait(ev autotune.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Step == "waited" {
		if p.bar != nil {
			// Erased through the bar's writer, as the goroutine that redraws
			// the spinner writes: the bar's own Clear reads its state without
			// its lock, a data race with that goroutine.
			_, _ = p.out.Write([]byte(eraseLine)) // a bar that cannot draw must not stop the work
		}
		return
	}
	who, where := lockedBy(ev)
	who = withNote(who, ev.Holder)
	if ev.Step == "wait" && p.notes != nil {
		line := fmt.Sprintf("%s: %s holds its lock in %s; waiting as long as it renews the lock", ev.Key, who, where)
		switch {
		case ev.Waited > 0:
			line = fmt.Sprintf("%s: still waiting for %s, %v so far", ev.Key, who, ev.Waited.Round(time.Second))
		case ev.MaxWait > 0:
			line = fmt.Sprintf("%s: %s holds its lock in %s; waiting up to %v for its answer, then tuning here", ev.Key, who, where, ev.MaxWait)
		}
		_, _ = fmt.Fprintln(p.notes, line) // stderr, above the bar
	}
	if p.out != nil && time.Since(p.last) >= redrawEvery {
		p.last = time.Now()
		p.draw(fmt.Sprintf("%s: waiting for %s", ev.Key, who))
	}
}

// tookOver says, on stderr (above the bar, where one is drawn), that the
// lock of a process of this host that no longer exists was taken over:
// why the work starts at once although the store said the lock was held.
func (p *progress) tookOver(ev autotune.Progress) {
	if p.notes == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, where := lockedBy(ev)
	_, _ = fmt.Fprintf(p.notes, "%s: took over the lock in %s of %s, which no longer runs on this host\n", ev.Key, where, ev.Holder)
}

// lockedBy says who holds ev's lock, and where: another process in the
// cache file, or another machine of the fleet in the shared store.
func lockedBy(ev autotune.Progress) (who, where string) {
	if ev.InFile {
		return "another process", "the cache file"
	}
	return "another machine", "the shared store"
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.stderr.drawn(false)
	}
}
